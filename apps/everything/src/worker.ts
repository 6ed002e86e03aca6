/**
 * The demo server as a Cloudflare Worker (workerd), over Streamable HTTP at `/mcp`, the
 * 2026-07-28 revision only, on `StatelessServer` (its handler has no handshake back end): a Worker
 * keeps no process between requests, so no handshake session lives; a handshake-era request is refused with a JSON-RPC error that names the revision served.
 * The server is built once per isolate, by the first request, from the Worker's `env`: the
 * binding `MCP_REQUEST_STATE_KEY` seals `requestState` (give every isolate the same key; without
 * it each isolate seals with a random key of its own, and a retry reaching another isolate fails).
 * A `subscriptions/listen` is held open as a streamed response, told of the changes the isolate's
 * requests make (`test_trigger_tool_change`, say).
 *
 * Bundled into one ES module first (`esbuild --bundle --platform=browser`), then served by
 * `workerd serve` (`pnpm run everything:workerd --port 3000`).
 *
 * @since 0.2.0
 */
import { StatelessServer } from "@effect-mcp/server"
import * as Everything from "./Everything.js"

/**
 * The demo server of one isolate, its state key from the `MCP_REQUEST_STATE_KEY` binding when the
 * Worker has it (else a random key of the isolate, and the server's warning when it first seals a
 * state, as on Node); its log on stderr.
 */
const server = Everything.layerFromConfig({ era: "stateless" })

/**
 * The Worker: `export default { fetch }`, the server built by the isolate's first request with the
 * Worker's text bindings as its configuration.
 *
 * @since 0.2.0
 * @category handlers
 */
export default StatelessServer.toWorkerHandler(server)
