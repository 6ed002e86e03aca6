/**
 * The floor of the router route (`ours-http-server.ts --mode router`): @effect/platform's
 * `HttpLayerRouter` with one hand-written route at `/mcp` (and the same `GET /health` beside it),
 * served the same way (`HttpLayerRouter.serve` with its request logger off, on
 * `NodeHttpServer.layer(createServer, …)`). The route reads the body as text
 * (`HttpServerRequest.text`), `JSON.parse`s it and answers the same JSON as the bare server
 * (`bare-answer.ts`) with `HttpServerResponse.text`; a notification gets 202. Nothing of MCP: what
 * the platform itself costs per request, so the router route's cost splits into the platform's
 * and ours. `--no-platform-tracer`: the platform's own span per request off
 * (`HttpMiddleware.withTracerDisabledWhen`), as in `ours-http-server.ts`.
 *
 * `node dist/router-bare-http-server.js --port N [--no-platform-tracer]`
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { createServer } from "node:http"
import { answer, type Message } from "./bare-answer.js"
import { flag, port, ready } from "./control.js"

const Mcp = HttpLayerRouter.add(
  "POST",
  "/mcp",
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    Effect.map(Effect.orDie(request.text), (text) => {
      const message: Message = JSON.parse(text)
      if (message.id === undefined) return HttpServerResponse.empty({ status: 202 })
      return HttpServerResponse.text(answer(message), {
        contentType: "application/json",
        headers: message.method === "initialize" ? { "mcp-session-id": "bare" } : {}
      })
    }))
)

const Health = HttpLayerRouter.add("GET", "/health", HttpServerResponse.text("ok"))

const Routed = HttpLayerRouter.serve(Layer.mergeAll(Mcp, Health), { disableLogger: true, disableListenLog: true })

const Served = flag("no-platform-tracer") ? HttpMiddleware.withTracerDisabledWhen(Routed, () => true) : Routed

Served.pipe(
  Layer.provide(NodeHttpServer.layer(createServer, { port: port(), host: "127.0.0.1" })),
  Layer.tap(() => Effect.sync(() => ready({}))),
  Layer.launch,
  NodeRuntime.runMain({ disableErrorReporting: true, disablePrettyLogger: true })
)
