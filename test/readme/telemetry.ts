import { NodeMcpServer } from "@effect-mcp/platform-node"
import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto"
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Layer } from "effect"
import { Server } from "./greet.js"

// The OpenTelemetry SDK's batching and OTLP exporter. @effect/opentelemetry's Otlp.layer works too, without the
// SDK; over protobuf its encoder took about twice the CPU a request in our measurements.
const Telemetry = NodeSdk.layer(() => ({
  resource: { serviceName: "greeter" },
  spanProcessor: new BatchSpanProcessor(new OTLPTraceExporter({ url: "http://127.0.0.1:4318/v1/traces" }))
}))

// Provided outside the server: what sets the tracer must be in place when the server is built.
export const Live = NodeMcpServer.layerHttp({ port: 3000 }).pipe(Layer.provide(Server), Layer.provide(Telemetry))
