/**
 * The launcher of the fetch-handler servers of `runtimes.ts` on Bun and Deno: serves one handler
 * (`Served`: `web-ours.ts`, `web-sdk.ts`, `web-bare.ts`) with `Bun.serve` / `Deno.serve` on
 * 127.0.0.1 and `--port N`, prints `ready` on stdout once listening, and answers control lines on
 * stdin like the Node children (`control.ts`):
 *
 * - `memory` → `memory {"rss":…,"heapUsed":…}` after a full collection (`Bun.gc(true)`; on Deno
 *   `gc()` when run with `--v8-flags=--expose-gc`), from `process.memoryUsage()` /
 *   `Deno.memoryUsage()`;
 * - `construct <n>` → `construct <text>`: the handler's own construction measure (`Served.construct`);
 *
 * and exits when stdin ends, so a child never outlives its benchmark. Bundled with its handler
 * into one module by `runtimes.ts` (`import { served } from "./web-ours.js"; serve(served)`).
 */

/** A fetch handler to serve, and how to measure what building it costs (n times, in this process). */
export interface Served {
  readonly fetch: (request: Request) => Response | Promise<Response>
  readonly construct?: (n: number) => Promise<string>
}

interface Listening {
  readonly port: number
}

declare const Bun:
  | {
    readonly argv: ReadonlyArray<string>
    readonly stdin: { readonly stream: () => ReadableStream<Uint8Array> }
    readonly gc: (force: boolean) => void
    readonly serve: (options: {
      port: number
      hostname: string
      idleTimeout: number
      fetch: (request: Request) => Response | Promise<Response>
    }) => Listening
  }
  | undefined

declare const Deno:
  | {
    readonly args: ReadonlyArray<string>
    readonly stdin: { readonly readable: ReadableStream<Uint8Array> }
    readonly memoryUsage: () => Record<string, number>
    readonly exit: (code: number) => never
    readonly serve: (
      options: { port: number; hostname: string; onListen: (listening: Listening) => void },
      handler: (request: Request) => Response | Promise<Response>
    ) => unknown
  }
  | undefined

const memory = (): Record<string, number> => {
  const gc = (globalThis as { gc?: () => void }).gc
  if (typeof Bun !== "undefined") {
    Bun.gc(true)
    return { ...process.memoryUsage() }
  }
  gc?.()
  return Deno!.memoryUsage()
}

const say = (line: string) => console.log(line)

const control = async (served: Served, stdin: ReadableStream<Uint8Array>) => {
  const decoder = new TextDecoder()
  let carry = ""
  for await (const chunk of stdin as unknown as AsyncIterable<Uint8Array>) {
    const lines = (carry + decoder.decode(chunk, { stream: true })).split("\n")
    carry = lines.pop()!
    for (const line of lines.map((text) => text.trim())) {
      if (line === "memory") say(`memory ${JSON.stringify(memory())}`)
      else if (line.startsWith("construct ") && served.construct !== undefined) {
        await served.construct(Number(line.slice("construct ".length))).then(
          (text) => say(`construct ${text}`),
          (error) => say(`failed ${line}: ${String(error)}`)
        )
      }
    }
  }
}

/** Serves `served` on this runtime (Bun or Deno) until stdin ends. */
export const serve = (served: Served): void => {
  const args = typeof Bun !== "undefined" ? Bun.argv.slice(2) : typeof Deno !== "undefined" ? Deno.args : []
  const at = args.indexOf("--port")
  const port = at >= 0 ? Number(args[at + 1]) : Number.NaN
  if (!Number.isInteger(port) || port <= 0) throw new Error("usage: <server>.mjs --port N")
  if (typeof Bun !== "undefined") {
    // Keep-alive connections idle between rounds stay open, as on Node (Bun closes them after 10 s by default).
    Bun.serve({ port, hostname: "127.0.0.1", idleTimeout: 255, fetch: served.fetch })
    say("ready")
    void control(served, Bun.stdin.stream()).then(() => process.exit(0))
  } else if (typeof Deno !== "undefined") {
    const deno = Deno
    deno.serve({ port, hostname: "127.0.0.1", onListen: () => say("ready") }, served.fetch)
    void control(served, deno.stdin.readable).then(() => deno.exit(0))
  } else {
    throw new Error("neither Bun nor Deno")
  }
}
