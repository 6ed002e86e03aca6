/**
 * effect-mcp serving the `add` tool (the one of `apps/everything`, `ours-add.ts`) over Streamable
 * HTTP, in one of the two ways the library offers, through its public API only:
 *
 * - `--mode layerHttp` (default): `NodeMcpServer.layerHttp({ port, host })`;
 * - `--mode router`: `HttpTransport.layer({ path: "/mcp" })` mounted on an `HttpLayerRouter`
 *   next to an application route (`GET /health`), served with `HttpLayerRouter.serve` (its
 *   request logger off) and `NodeHttpServer.layer(createServer, { port, host })`.
 *
 * Idle sessions live for an hour and up to 100,000 sessions are allowed (`sessionIdleTimeout`,
 * `maxSessions`), so the memory benchmark can hold thousands. Logs go to stderr; stdout is the
 * control channel of `control.ts`.
 *
 * `node dist/ours-http-server.js --port N [--mode layerHttp|router]`
 */
import { NodeMcpServer } from "@effect-mcp/platform-node"
import { HttpTransport, type McpServer } from "@effect-mcp/server"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { createServer } from "node:http"
import { port, ready } from "./control.js"
import { Server } from "./ours-add.js"

const listen = { port: port(), host: "127.0.0.1" }
const at = process.argv.indexOf("--mode")
const mode = at > 0 ? process.argv[at + 1] : "layerHttp"

/** Generous session limits, so the memory benchmark can hold its 10,000 idle sessions (`BENCH_MAX_SESSIONS` to test a cap). */
const transportOptions: HttpTransport.Options = {
  path: "/mcp",
  sessionIdleTimeout: "1 hour",
  maxSessions: Number(process.env.BENCH_MAX_SESSIONS ?? 100_000)
}

const Health = HttpLayerRouter.add("GET", "/health", HttpServerResponse.text("ok"))

const Http: Layer.Layer<never, unknown, McpServer.McpServer> = mode === "router"
  ? HttpLayerRouter.serve(Layer.mergeAll(HttpTransport.layer(transportOptions), Health), {
    disableLogger: true,
    disableListenLog: true
  }).pipe(Layer.provide(NodeHttpServer.layer(createServer, listen)))
  : NodeMcpServer.layerHttp({ ...transportOptions, ...listen })

if (mode !== "router" && mode !== "layerHttp") {
  process.stderr.write(`unknown mode ${mode}: layerHttp or router\n`)
  process.exit(2)
}

Http.pipe(
  Layer.provide(Server),
  Layer.tap(() => Effect.sync(ready)),
  Layer.launch,
  Effect.tapErrorCause(Effect.logError),
  Effect.provide(NodeMcpServer.layerStderrLogger),
  NodeRuntime.runMain({ disableErrorReporting: true, disablePrettyLogger: true })
)
