import { NodeMcpServer } from "@effect-mcp/platform-node"
import { Layer } from "effect"
import { AppLive } from "./services.js"

// Over Streamable HTTP at http://127.0.0.1:3000/mcp, until SIGINT or SIGTERM.
NodeMcpServer.runMain(
  NodeMcpServer.layerHttp({ port: Number(process.env.PORT ?? 3000), announce: true }).pipe(Layer.provide(AppLive))
)
