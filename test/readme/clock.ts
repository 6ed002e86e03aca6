import { NodeMcpServer } from "@effect-mcp/platform-node"
import { AppView, McpServer, Tool } from "@effect-mcp/server"
import { NodeContext } from "@effect/platform-node"
import { Effect } from "effect"
const Clock = AppView.make("ui://clock/view", { name: "clock" }, AppView.file("clock.html")) // the view, ui://
const ShowTime = AppView.link(Tool.make("show_time", {}, () => Effect.sync(() => new Date().toISOString())), Clock)
const Server = McpServer.layer({ serverInfo: { name: "clock", version: "1" }, tools: [ShowTime], resources: [Clock] })
NodeMcpServer.runMain(NodeMcpServer.serveStdio.pipe(Effect.provide(Server), Effect.provide(NodeContext.layer)))
