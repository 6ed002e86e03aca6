/**
 * `tools/call add` over Streamable HTTP in the handshake era (2025-11-25, one session per
 * connection), end to end, against servers in child processes (the engine: `http-bench.ts`):
 *
 * - effect-mcp through `NodeMcpServer.layerHttp` and through `HttpTransport.layer` mounted on an
 *   `HttpLayerRouter` (`ours-http-server.ts`);
 * - the official SDK's sessionful server (`sdk-http-server.ts`), with `enableJsonResponse: true`
 *   (JSON answers, as ours gives: the fair comparison) and with its default (every answer an SSE
 *   stream);
 * - bare `node:http` answering JSON-RPC with `JSON.parse` / `JSON.stringify` (`bare-http-server.ts`):
 *   the floor, which also shows how far the client can go;
 * - a bare `HttpLayerRouter` route answering the same JSON by hand (`router-bare-http-server.ts`):
 *   the floor of the router route, what @effect/platform itself costs.
 *
 * The stateless 2026-07-28 revision has its own benchmark: `http-stateless.ts`.
 *
 * Environment: BENCH_ROUNDS (2), BENCH_HTTP_MILLIS (2000), BENCH_HTTP_SERVERS (keys: layerHttp,
 * router, sdk-json, sdk-sse, bare, router-bare; default all but the opt-in router-untraced and
 * router-bare-untraced: both router servers with the platform's span per request off, and router-before:
 * the router server built from the commit BENCH_ROUTER_BEFORE, default f6e11d25, by `baseline.ts`), and those of `http-bench.ts`.
 *
 * A benchmark, not a test.
 */
import { join } from "node:path"
import { baseline } from "./baseline.js"
import { handshakeEra } from "./envelope.js"
import { main } from "./http-bench.js"
import { here, startHttpServer } from "./proc.js"

/** The commit the opt-in `router-before` server is built from (`baseline.ts`): before the router route's rework. */
const routerBefore = process.env.BENCH_ROUTER_BEFORE ?? "f6e11d25"

main({
  section: "http",
  title: "HTTP tools/call add (2025-11-25, one session per connection)",
  envelope: handshakeEra,
  rounds: Number(process.env.BENCH_ROUNDS ?? 2),
  millis: Number(process.env.BENCH_HTTP_MILLIS ?? 2_000),
  servers: [
    {
      key: "layerHttp",
      name: "effect-mcp NodeMcpServer.layerHttp",
      file: here("./ours-http-server.js"),
      args: ["--mode", "layerHttp"]
    },
    {
      key: "router",
      name: "effect-mcp HttpTransport on HttpLayerRouter",
      file: here("./ours-http-server.js"),
      args: ["--mode", "router"]
    },
    { key: "sdk-json", name: "SDK 2.4.0, enableJsonResponse", file: here("./sdk-http-server.js"), args: ["--json"] },
    { key: "sdk-sse", name: "SDK 2.4.0, default (SSE answers)", file: here("./sdk-http-server.js"), args: [] },
    { key: "bare", name: "bare node:http + JSON.parse", file: here("./bare-http-server.js"), args: [] },
    {
      key: "router-bare",
      name: "bare HttpLayerRouter route + JSON.parse",
      file: here("./router-bare-http-server.js"),
      args: []
    },
    {
      key: "router-before",
      name: `effect-mcp on HttpLayerRouter at ${routerBefore}`,
      file: "ours-http-server.js",
      args: ["--mode", "router"],
      optIn: true,
      start: () => startHttpServer(join(baseline(routerBefore), "bench/dist/ours-http-server.js"), ["--mode", "router"])
    },
    {
      key: "router-untraced",
      name: "effect-mcp on HttpLayerRouter, platform tracer off",
      file: here("./ours-http-server.js"),
      args: ["--mode", "router", "--no-platform-tracer"],
      optIn: true
    },
    {
      key: "router-bare-untraced",
      name: "bare HttpLayerRouter route, platform tracer off",
      file: here("./router-bare-http-server.js"),
      args: ["--no-platform-tracer"],
      optIn: true
    }
  ],
  pairs: [
    { a: "layerHttp", b: "sdk-json", label: "layerHttp / SDK json", unit: "x", target: { threshold: 2, shown: "2x" } },
    { a: "layerHttp", b: "sdk-sse", label: "layerHttp / SDK sse (default)", unit: "x" },
    { a: "layerHttp", b: "bare", label: "layerHttp / bare", unit: "%", target: { threshold: 0.25, shown: "25%" } },
    { a: "router", b: "sdk-json", label: "router / SDK json", unit: "x" },
    { a: "router", b: "sdk-sse", label: "router / SDK sse (default)", unit: "x" },
    { a: "router", b: "bare", label: "router / bare", unit: "%" },
    { a: "router", b: "router-bare", label: "router / router-bare", unit: "%" },
    { a: "router-bare", b: "sdk-json", label: "router-bare / SDK json", unit: "x" },
    { a: "router", b: "router-before", label: "router / router before", unit: "x" },
    { a: "router-before", b: "sdk-json", label: "router before / SDK json", unit: "x" },
    { a: "router-untraced", b: "sdk-json", label: "router, platform tracer off / SDK json", unit: "x" },
    {
      a: "router-untraced",
      b: "router-bare-untraced",
      label: "router / router-bare, platform tracer off",
      unit: "%"
    }
  ],
  notes: [
    "SDK json = enableJsonResponse: true (application/json answers, like ours); SDK sse = its default, " +
    "every POST answered as an SSE stream."
  ]
}, "HTTP BENCHMARK")
