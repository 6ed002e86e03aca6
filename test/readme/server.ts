import { NodeMcpServer } from "@effect-mcp/platform-node"
import { Effect } from "effect"
import { Server } from "./greet.js"

// Over stdio until stdin closes: nothing but protocol on stdout, logs and a startup failure on stderr.
NodeMcpServer.runMain(NodeMcpServer.serveStdio.pipe(Effect.provide(Server)))
