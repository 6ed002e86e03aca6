import { NodeMcpServer, NodeTelemetry } from "@effect-mcp/platform-node"
import { Layer } from "effect"
import { Server } from "./greet.js"

// Traces and metrics where OTEL_EXPORTER_OTLP_ENDPOINT and its kin say; nothing is loaded when none is set.
export const Live = NodeMcpServer.layerHttp({ port: 3000 }).pipe(
  Layer.provide(Server),
  Layer.provide(NodeTelemetry.layerFromEnv())
)
