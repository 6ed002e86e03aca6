/**
 * The demo server on runtimes that serve fetch handlers (Bun, Deno), over Streamable HTTP at
 * `/mcp`, both eras, on `--port N` (default 3000; 0 picks a free one), on every interface; the
 * port it listens on is said on stderr (`listening on http://127.0.0.1:N/mcp`). The 2026-07-28
 * `requestState` is sealed with `MCP_REQUEST_STATE_KEY` when set (else a random key of the process);
 * `MCP_MAX_LISTENS`, when set, is the most `subscriptions/listen` held open at once (default 1000).
 *
 * Bundled into one ES module first (`esbuild --bundle`), then `bun web.mjs --port 3000` or
 * `deno run --allow-net --allow-env web.mjs --port 3000`.
 *
 * @since 0.2.0
 */
import { HttpTransport } from "@effect-mcp/server"
import * as Everything from "./Everything.js"

interface Served {
  readonly port: number
}

declare const Bun:
  | {
    readonly argv: ReadonlyArray<string>
    readonly serve: (
      options: { port: number; hostname: string; fetch: (request: Request) => Promise<Response> }
    ) => Served
  }
  | undefined

declare const Deno:
  | {
    readonly args: ReadonlyArray<string>
    readonly serve: (
      options: { port: number; hostname: string; onListen: (served: Served) => void },
      handler: (request: Request) => Promise<Response>
    ) => unknown
  }
  | undefined

const args = typeof Bun !== "undefined" ? Bun.argv.slice(2) : typeof Deno !== "undefined" ? Deno.args : []
const at = args.indexOf("--port")
const port = at >= 0 ? Number(args[at + 1]) : 3000

/** The demo server, its state key from `MCP_REQUEST_STATE_KEY` when that is set; its log on stderr. */
const server = Everything.layerFromConfig()

/**
 * The demo as a fetch handler, built by the first request.
 *
 * @since 0.2.0
 * @category handlers
 */
export const web: HttpTransport.WebHandler = HttpTransport.toWebHandler(server)

const said = (served: Served) => console.error(`listening on http://127.0.0.1:${served.port}/mcp`)

if (typeof Bun !== "undefined") {
  said(Bun.serve({ port, hostname: "0.0.0.0", fetch: web.handler }))
} else if (typeof Deno !== "undefined") {
  Deno.serve({ port, hostname: "0.0.0.0", onListen: said }, web.handler)
}
