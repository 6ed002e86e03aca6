/**
 * Client pairs, `tools/call add`, same run: our `McpClient` calling our server against the
 * official SDK's `Client` (`@modelcontextprotocol/client` 2.4.0) calling the SDK's server, over
 * stdio (each client spawns its server: `ours-stdio-server.ts`, `sdk-add-server.ts`) and over
 * Streamable HTTP with a session (`ours-http-server.ts`, `sdk-http-server.ts --json`), in the
 * handshake era (the era both pairs speak on every transport). One client per pair, a fixed
 * number of calls in flight; alternating rounds; each pair's best round. Every answer is checked.
 *
 * Target: ours ≥ 2× the SDK pair's requests/s.
 *
 * Environment: BENCH_CLIENT_CALLS (10000), BENCH_CLIENT_WARMUP (2000), BENCH_IN_FLIGHT (16),
 * BENCH_ROUNDS (2), BENCH_CLIENT_ONLY (`stdio-ours,stdio-sdk,http-ours,http-sdk`: a subset), BENCH_CLIENT_HTTP
 * (our client's `HttpClient`: `node`, the default, `NodeMcpClient.layerHttp` on undici's keep-alive pool;
 * `agent`, `node:http` on a keep-alive `Agent`; `fetch`, Node's `fetch`, like the SDK client).
 *
 * A benchmark, not a test.
 */
import { McpClient, McpClientTransport } from "@effect-mcp/client"
import { NodeMcpClient } from "@effect-mcp/platform-node"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { here, median, ms, num, percentile, ratio, startHttpServer, table } from "./proc.js"
import { record, type Row, targetRow } from "./summary.js"

const calls = Number(process.env.BENCH_CLIENT_CALLS ?? 10_000)
const warmup = Number(process.env.BENCH_CLIENT_WARMUP ?? 2_000)
const inFlight = Number(process.env.BENCH_IN_FLIGHT ?? 16)
const rounds = Number(process.env.BENCH_ROUNDS ?? 2)

/** Our client's HTTP transport on the `HttpClient` `BENCH_CLIENT_HTTP` names. */
const httpTransport = (url: string): Layer.Layer<McpClientTransport.McpClientTransport> => {
  const http = process.env.BENCH_CLIENT_HTTP ?? "node"
  if (http === "node") return NodeMcpClient.layerHttp({ url })
  const client = http === "agent"
    ? NodeHttpClient.layerWithoutAgent.pipe(Layer.provide(NodeHttpClient.makeAgentLayer({ keepAlive: true })))
    : http === "fetch"
    ? FetchHttpClient.layer
    : undefined
  if (client === undefined) throw new Error(`BENCH_CLIENT_HTTP=${http}: expected node, agent or fetch`)
  return McpClientTransport.layerHttp({ url }).pipe(Layer.provide(client))
}

/** One connected client: `add(a, b)` resolves with the sum; `close` ends it. */
interface Pair {
  readonly add: (a: number, b: number) => Promise<number>
  readonly close: () => Promise<void>
}

const ours = async (transport: Layer.Layer<McpClientTransport.McpClientTransport, unknown>): Promise<Pair> => {
  const runtime = ManagedRuntime.make(
    McpClient.layer({ clientInfo: { name: "bench", version: "1.0.0" }, era: "handshake", cache: false }).pipe(
      Layer.provide(transport)
    )
  )
  const client = await runtime.runPromise(McpClient.McpClient)
  return {
    add: (a, b) =>
      runtime.runPromise(client.callTool("add", { a, b })).then((r) => (r.structuredContent as { sum: number }).sum),
    close: () => runtime.dispose()
  }
}

const sdk = async (transport: StdioClientTransport | StreamableHTTPClientTransport): Promise<Pair> => {
  const client = new Client({ name: "bench", version: "1.0.0" }, { capabilities: {} })
  await client.connect(transport)
  return {
    add: (a, b) =>
      client.callTool({ name: "add", arguments: { a, b } }).then((r) => (r.structuredContent as { sum: number }).sum),
    close: () => client.close()
  }
}

/** `count` calls, `inFlight` at a time: requests/s and the latencies. */
const drive = async (pair: Pair, count: number) => {
  const latencies = new Float64Array(count)
  let next = 0
  const started = performance.now()
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (next < count) {
      const i = next++
      const sent = performance.now()
      const sum = await pair.add(i, 1)
      if (sum !== i + 1) throw new Error(`add(${i}, 1) answered ${sum}`)
      latencies[i] = performance.now() - sent
    }
  }))
  const seconds = (performance.now() - started) / 1000
  const sorted = latencies.slice().sort()
  return { rps: count / seconds, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) }
}

interface Case {
  readonly name: string
  readonly transport: "stdio" | "http"
  readonly side: "ours" | "sdk"
  readonly connect: () => Promise<{ readonly pair: Pair; readonly stop: () => void }>
}

const node = process.execPath
const cases: ReadonlyArray<Case> = [
  {
    name: "effect-mcp client → effect-mcp server",
    transport: "stdio",
    side: "ours",
    connect: async () => ({
      pair: await ours(
        NodeMcpClient.layerStdio({ command: node, args: [here("./ours-stdio-server.js")], stderr: "ignore" })
      ),
      stop: () => {}
    })
  },
  {
    name: "SDK client → SDK server",
    transport: "stdio",
    side: "sdk",
    connect: async () => ({
      pair: await sdk(
        new StdioClientTransport({ command: node, args: [here("./sdk-add-server.js")], stderr: "ignore" })
      ),
      stop: () => {}
    })
  },
  {
    name: "effect-mcp client → effect-mcp server",
    transport: "http",
    side: "ours",
    connect: async () => {
      const { child, port } = await startHttpServer(here("./ours-http-server.js"), ["--mode", "layerHttp"])
      const pair = await ours(
        httpTransport(`http://127.0.0.1:${port}/mcp`)
      )
      return { pair, stop: () => child.process.kill() }
    }
  },
  {
    name: "SDK client → SDK server",
    transport: "http",
    side: "sdk",
    connect: async () => {
      const { child, port } = await startHttpServer(here("./sdk-http-server.js"), ["--json"])
      const pair = await sdk(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)))
      return { pair, stop: () => child.process.kill() }
    }
  }
]

/** `BENCH_CLIENT_ONLY=stdio-ours,http-sdk`: a subset (to profile one pair). */
const only = process.env.BENCH_CLIENT_ONLY?.split(",")
const chosen = only === undefined ? cases : cases.filter((c) => only.includes(`${c.transport}-${c.side}`))

const main = async () => {
  const results = new Map<Case, Array<Awaited<ReturnType<typeof drive>>>>()
  for (let round = 0; round < rounds; round++) {
    for (const c of chosen) {
      const { pair, stop } = await c.connect()
      try {
        await drive(pair, warmup)
        const result = await drive(pair, calls)
        results.set(c, [...(results.get(c) ?? []), result])
      } finally {
        await pair.close()
        stop()
      }
    }
  }
  const best = (c: Case) => results.get(c)!.reduce((a, b) => (b.rps > a.rps ? b : a))
  const out = [
    `client pairs, tools/call add (2025-11-25), ${num(calls)} calls after ${
      num(warmup)
    } warm-up, ${inFlight} in flight, ${rounds} alternating rounds; best round of each`,
    ...table([
      ["transport", "pair", "req/s", "p50", "p99", "runs (req/s)"],
      ...chosen.map((c) => {
        const b = best(c)
        return [
          c.transport,
          c.name,
          num(b.rps),
          ms(b.p50),
          ms(b.p99),
          results.get(c)!.map((r) => num(r.rps)).join(", ")
        ]
      })
    ])
  ]
  const summary: Array<Row> = []
  for (const transport of ["stdio", "http"] as const) {
    const [o, s] = (["ours", "sdk"] as const).map((side) =>
      chosen.find((c) => c.transport === transport && c.side === side)
    )
    if (o === undefined || s === undefined) continue
    const perRound = results.get(o)!.map((r, i) => r.rps / results.get(s)![i].rps)
    const value = median(perRound)
    out.push(
      `${transport}: ours / SDK ${ratio(best(o).rps / best(s).rps)} (best), ${ratio(value)} (median of rounds); p99 ${
        ratio(best(o).p99 / best(s).p99)
      }; target ≥ 2x: ${value >= 2 ? "met" : "NOT MET"}`
    )
    summary.push(targetRow("client", `${transport} ours / SDK pair`, value, ratio(value), "≥", 2, "2x"))
  }
  process.stdout.write(out.join("\n") + "\n")
  record(summary)
}

main().catch((error) => {
  process.stderr.write(`CLIENT BENCHMARK FAILED: ${error instanceof Error ? error.stack : String(error)}\n`)
  process.exit(1)
})
