import { NodeMcpServer } from "@effect-mcp/platform-node"
import { Effect } from "effect"
import { AppLive } from "./services.js"

// Over stdio: nothing but protocol on stdout, a startup failure as one line on stderr, exit when stdin ends.
NodeMcpServer.runMain(NodeMcpServer.serveStdio.pipe(Effect.provide(AppLive)))
