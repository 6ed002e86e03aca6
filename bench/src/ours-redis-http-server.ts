/**
 * effect-mcp serving the `add` tool (`ours-add.ts`) through `NodeMcpServer.layerHttp`, with its
 * shared state in process memory (the default) or, with `--redis URL`, on Redis:
 * `RedisState.layer({ url })` provided under both the server and its HTTP layer, as the demo's
 * `--redis` does (`apps/everything/src/main.ts`). One program for both, so the Redis benchmark
 * (`redis.ts`) compares state, not code.
 *
 * The transport's limits are those of `ours-http-server.ts` (idle sessions live for an hour, up to
 * 100,000 of them, 20,000 connections). Logs go to stderr; stdout is the control channel of
 * `control.ts` (`ready` once listening; `profile-start` / `profile-stop <file>`).
 *
 * `node dist/ours-redis-http-server.js --port N [--revisions handshake|stateless|dual] [--redis redis://127.0.0.1:P]`
 */
import { NodeMcpServer } from "@effect-mcp/platform-node"
import { RedisState } from "@effect-mcp/redis"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { port, ready } from "./control.js"
import { revisionsArg, serverOf } from "./ours-add.js"

const at = process.argv.indexOf("--redis")
const url = at > 0 ? process.argv[at + 1] : undefined

const Http = NodeMcpServer.layerHttp({
  path: "/mcp",
  sessionIdleTimeout: "1 hour",
  maxSessions: 100_000,
  port: port(),
  host: "127.0.0.1",
  maxConnections: 20_000
})

Http.pipe(
  Layer.provideMerge(serverOf(revisionsArg())),
  // Under both the server and its HTTP layer: each takes the shared parts from its context.
  Layer.provide(url === undefined ? Layer.empty : RedisState.layer({ url })),
  Layer.tap(() => Effect.sync(() => ready())),
  Layer.launch,
  Effect.tapErrorCause(Effect.logError),
  Effect.provide(NodeMcpServer.layerStderrLogger),
  NodeRuntime.runMain({ disableErrorReporting: true, disablePrettyLogger: true })
)
