/**
 * effect-mcp serving only the `add` tool over stdio (`NodeMcpServer.serveStdio`), set up as
 * `apps/everything` does: the like-for-like counterpart of `sdk-add-server.ts` for the startup
 * measurement (`apps/everything` also builds every conformance fixture when it starts), and
 * the stdio server of the 2026-07-28 benchmark (`--revisions stateless` or `dual`,
 * `ours-add.ts`).
 *
 * `node dist/ours-stdio-server.js [--revisions handshake|stateless|dual]`
 */
import { NodeMcpServer } from "@effect-mcp/platform-node"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import { revisionsArg, serverOf } from "./ours-add.js"

NodeMcpServer.serveStdio.pipe(
  Effect.provide(serverOf(revisionsArg())),
  Effect.tapErrorCause(Effect.logError),
  Effect.provide(NodeMcpServer.layerStderrLogger),
  NodeRuntime.runMain({ disableErrorReporting: true, disablePrettyLogger: true })
)
