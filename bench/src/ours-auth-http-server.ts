/**
 * effect-mcp serving the `add` tool (`ours-add.ts`) over Streamable HTTP as an OAuth 2.1
 * resource server: `NodeMcpServer.layerHttp` with `auth: { resource, authorizationServers }` and
 * no `verifier`, so the default one, `TokenVerifier.jwt()`, verifies every request's bearer JWT
 * with the keys it finds through the issuer's metadata (RFC 8414, then OpenID Connect) and
 * jose's remote key set (cached). The transport options are those of `ours-http-server.ts`
 * `--mode layerHttp`, so the two differ only in `auth`.
 *
 * `--revisions handshake|stateless|dual` (`ours-add.ts`). Logs go to stderr; stdout is the control
 * channel of `control.ts` (no commands of its own).
 *
 * `node dist/ours-auth-http-server.js --port N --issuer URL --resource URL [--revisions …] [--no-cache]`
 */
import { NodeMcpServer } from "@effect-mcp/platform-node"
import { TokenVerifier } from "@effect-mcp/server"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { arg, port, ready } from "./control.js"
import { revisionsArg, serverOf } from "./ours-add.js"

NodeMcpServer.layerHttp({
  path: "/mcp",
  sessionIdleTimeout: "1 hour",
  maxSessions: 100_000,
  port: port(),
  host: "127.0.0.1",
  maxConnections: 20_000,
  auth: {
    resource: arg("resource"),
    authorizationServers: [arg("issuer")]
  }
}).pipe(
  // `--no-cache`: every request's signature is checked (no verified tokens kept).
  Layer.provide(process.argv.includes("--no-cache") ? TokenVerifier.layerJwt({ cache: false }) : Layer.empty),
  Layer.provideMerge(serverOf(revisionsArg())),
  Layer.tap(() => Effect.sync(() => ready())),
  Layer.launch,
  Effect.tapErrorCause(Effect.logError),
  Effect.provide(NodeMcpServer.layerStderrLogger),
  NodeRuntime.runMain({ disableErrorReporting: true, disablePrettyLogger: true })
)
