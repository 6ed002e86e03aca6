import { HttpTransport } from "@effect-mcp/server"
import { HttpLayerRouter, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Layer } from "effect"
import { createServer } from "node:http"
import { AppLive } from "./services.js"

// The MCP endpoints at /mcp beside a route of your own, on one router.
const Hello = HttpLayerRouter.add("GET", "/hello", HttpServerResponse.text("hello"))

export const Routes = Layer.mergeAll(HttpTransport.layer({ path: "/mcp" }), Hello).pipe(Layer.provide(AppLive))

// On node:http: run it with NodeRuntime.runMain(Layer.launch(Live)). Elsewhere (Deno, Bun, Workers, ...),
// HttpLayerRouter.toWebHandler(Routes) is a fetch handler.
export const Live = HttpLayerRouter.serve(Routes).pipe(
  Layer.provide(NodeHttpServer.layer(createServer, { port: 3000 }))
)
