import { Revision } from "@effect-mcp/core"
import { McpServer } from "@effect-mcp/server"
import { Config } from "effect"
import { Greet } from "./greet.js"

export const DualServer = McpServer.layer({
  serverInfo: { name: "demo", version: "1.0.0" },
  tools: [Greet],
  // both eras: `initialize` opens a session, a request with a version in its `_meta` is stateless
  revisions: [...Revision.handshake, "2026-07-28"],
  cachePolicy: { "tools/list": { ttlMs: 60_000, cacheScope: "public" } },
  // the key that seals multi-round-trip state: share it between the processes behind a balancer
  requestStateKey: Config.redacted("MCP_REQUEST_STATE_KEY")
})
