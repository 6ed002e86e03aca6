/**
 * `tools/call add` over Streamable HTTP in the stateless revision (2026-07-28): every call one
 * POST carrying its `_meta` envelope and the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`
 * headers, answered with JSON, no session. End to end, against servers in child processes (the
 * engine, rounds and ratios: `http-bench.ts`):
 *
 * - effect-mcp through `NodeMcpServer.layerHttp` (`ours-http-server.ts`), serving 2026-07-28
 *   alone (`--revisions stateless`) and both eras on one endpoint (`--revisions dual`);
 * - the official SDK's stateless entry, `createMcpHandler` on `node:http` through `toNodeHandler`
 *   (`sdk-stateless-http-server.ts`), modern-only (`legacy: "reject"`, like our stateless-only
 *   server); its default (`legacy: "stateless"`, also serving 2025-era requests, like our dual
 *   server) is the opt-in key `sdk-legacy`;
 * - bare `node:http` answering JSON-RPC with `JSON.parse` / `JSON.stringify`
 *   (`bare-http-server.ts`, which reads no header): the floor.
 *
 * Targets (issue 36): ours ≥ 10x the SDK's requests/s and ≥ 65% of bare's.
 *
 * To see where a server's time goes: `BENCH_PROFILE=/tmp/prof` (a CPU profile of each measured
 * run, taken in the server), then `node dist/profile.js /tmp/prof/http-stateless-stateless-*`.
 *
 * Environment: BENCH_ROUNDS (3), BENCH_HTTP_MILLIS (1500), BENCH_HTTP_SERVERS (keys: stateless,
 * dual, sdk, sdk-legacy, bare, stateless-before; default all but sdk-legacy and stateless-before),
 * and those of `http-bench.ts`. `stateless-before` is the stateless server of an earlier commit
 * (BENCH_STATELESS_BEFORE, default main's bf314d17; built once by `baseline.ts`), to set a change
 * beside the code before it in the same run.
 *
 * A benchmark, not a test.
 */
import { join } from "node:path"
import { baseline } from "./baseline.js"
import { stateless } from "./envelope.js"
import { main } from "./http-bench.js"
import { here } from "./proc.js"

const tenTimes = { threshold: 10, shown: "10x" }
const twoThirds = { threshold: 0.65, shown: "65%" }
const before = process.env.BENCH_STATELESS_BEFORE ?? "bf314d17"
/** Built only when asked for. */
const wantsBefore = process.env.BENCH_HTTP_SERVERS?.split(",").includes("stateless-before") ?? false

main({
  section: "http-stateless",
  title: "HTTP tools/call add (2026-07-28, stateless: one POST per call, no session)",
  envelope: stateless,
  rounds: Number(process.env.BENCH_ROUNDS ?? 3),
  millis: Number(process.env.BENCH_HTTP_MILLIS ?? 1_500),
  servers: [
    {
      key: "stateless",
      name: "effect-mcp layerHttp, 2026-07-28 only",
      file: here("./ours-http-server.js"),
      args: ["--mode", "layerHttp", "--revisions", "stateless"]
    },
    {
      key: "dual",
      name: "effect-mcp layerHttp, dual (both eras)",
      file: here("./ours-http-server.js"),
      args: ["--mode", "layerHttp", "--revisions", "dual"]
    },
    {
      key: "sdk",
      name: "SDK 2.4.0 createMcpHandler, modern only",
      file: here("./sdk-stateless-http-server.js"),
      args: []
    },
    {
      key: "sdk-legacy",
      name: "SDK 2.4.0 createMcpHandler, default (legacy too)",
      file: here("./sdk-stateless-http-server.js"),
      args: ["--legacy"],
      optIn: true
    },
    { key: "bare", name: "bare node:http + JSON.parse", file: here("./bare-http-server.js"), args: [] },
    {
      key: "stateless-before",
      name: `effect-mcp layerHttp, 2026-07-28 only, at ${before}`,
      file: wantsBefore ? join(baseline(before), "bench/dist/ours-http-server.js") : "",
      args: ["--mode", "layerHttp", "--revisions", "stateless"],
      optIn: true
    }
  ],
  pairs: [
    { a: "stateless", b: "sdk", label: "stateless / SDK", unit: "x", target: tenTimes },
    { a: "dual", b: "sdk", label: "dual / SDK", unit: "x", target: tenTimes },
    { a: "dual", b: "sdk-legacy", label: "dual / SDK default (legacy too)", unit: "x" },
    { a: "stateless", b: "bare", label: "stateless / bare", unit: "%", target: twoThirds },
    { a: "dual", b: "bare", label: "dual / bare", unit: "%", target: twoThirds },
    { a: "dual", b: "stateless", label: "dual / stateless", unit: "%" },
    { a: "sdk", b: "bare", label: "SDK / bare", unit: "%" },
    { a: "stateless", b: "stateless-before", label: `stateless / at ${before}`, unit: "%" },
    { a: "stateless-before", b: "sdk", label: `at ${before} / SDK`, unit: "x" }
  ],
  notes: [
    "SDK = createMcpHandler (a fresh McpServer from the factory per request, as the entry is designed; " +
    "responseMode auto: JSON here) behind the node package's Host/Origin guards, like ours checks Host."
  ]
}, "HTTP STATELESS BENCHMARK")
