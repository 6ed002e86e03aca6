/**
 * Client pairs, `tools/call add`, same run: our `McpClient` calling our server against the
 * official SDK's `Client` (`@modelcontextprotocol/client` 2.4.0) calling the SDK's server, over
 * stdio (each client spawns its server: `ours-stdio-server.ts`, `sdk-add-server.ts`) and over
 * Streamable HTTP with a session (`ours-http-server.ts`, `sdk-http-server.ts --json`), in the
 * handshake era (the era both pairs speak on every transport). One client per pair, a fixed
 * number of calls in flight; alternating rounds; each pair's best round. Every answer is checked.
 * Beside the rate, the CPU each call cost the client process and (from `/proc`, on Linux) the
 * server process: on a machine of two cores the pair shares them, so the rate alone hides which
 * side spent what.
 *
 * Target: ours ≥ 2× the SDK pair's requests/s. Over HTTP, our client is also run authorized
 * (`McpAuth` holding a token, as after its first authorization): target ≤ 1.05× the client CPU of
 * the unauthorized call per call.
 *
 * Environment: BENCH_CLIENT_CALLS (30000), BENCH_CLIENT_WARMUP (10000), BENCH_IN_FLIGHT (16),
 * BENCH_ROUNDS (3), BENCH_CLIENT_ONLY (`stdio-ours,stdio-sdk,http-ours,http-ours-auth,http-sdk`: a subset), BENCH_CLIENT_HTTP
 * (our client's `HttpClient`: `node`, the default, `NodeMcpClient.layerHttp` on undici's keep-alive pool;
 * `agent`, `node:http` on a keep-alive `Agent`; `fetch`, Node's `fetch`, like the SDK client).
 *
 * A benchmark, not a test.
 */
import { McpAuth, McpClient, McpClientTransport, TokenStore } from "@effect-mcp/client"
import { NodeMcpClient } from "@effect-mcp/platform-node"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Redacted from "effect/Redacted"
import { setMaxListeners } from "node:events"
import { readdirSync, readFileSync } from "node:fs"
import { here, median, ms, num, percentile, ratio, startHttpServer, table } from "./proc.js"
import { record, type Row, targetRow } from "./summary.js"

// Long enough for both pairs to reach their steady state: after 2,000 calls either side's CPU per
// call is still up to twice what it settles at (the JIT is not done).
const calls = Number(process.env.BENCH_CLIENT_CALLS ?? 30_000)
const warmup = Number(process.env.BENCH_CLIENT_WARMUP ?? 10_000)
const inFlight = Number(process.env.BENCH_IN_FLIGHT ?? 16)
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)

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

/**
 * Our HTTP transport authorized by `McpAuth`, with a token already held (what a client has after
 * its first authorization): what authorization costs every call. The server does not check it.
 */
const authorizedTransport = (url: string): Layer.Layer<McpClientTransport.McpClientTransport> => {
  const store = Layer.effect(
    TokenStore.TokenStore,
    Effect.tap(TokenStore.makeMemory, (store) =>
      store.save({
        resource: url,
        registrations: {},
        tokens: {
          issuer: "http://127.0.0.1",
          accessToken: Redacted.make("bench-token"),
          tokenType: "Bearer",
          scopes: []
        }
      }))
  )
  return McpClientTransport.layerHttp({ url }).pipe(
    Layer.provide(McpAuth.layer()),
    Layer.provide(Layer.merge(NodeMcpClient.layerHttpClient, store))
  )
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
  // The HTTP transport gives every request's `fetch` its one AbortSignal, so with 16 calls in flight undici adds
  // 16 abort listeners to it and Node prints a MaxListenersExceededWarning (with its stack) again and again: the
  // client's process spent its time printing them. The limit is lifted on that signal, as a user of the SDK with
  // concurrent calls would.
  const signal = (transport as unknown as { _abortController?: AbortController })._abortController?.signal
  if (signal !== undefined) setMaxListeners(0, signal)
  return {
    add: (a, b) =>
      client.callTool({ name: "add", arguments: { a, b } }).then((r) => (r.structuredContent as { sum: number }).sum),
    close: () => client.close()
  }
}

/**
 * CPU milliseconds (user + system) of this process's children, from `/proc` (Linux; elsewhere
 * undefined): the server each pair runs.
 */
const childrenCpu = (): number | undefined => {
  try {
    let ticks = 0
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue
      let stat: string
      try {
        stat = readFileSync(`/proc/${entry}/stat`, "utf8")
      } catch {
        continue
      }
      // After the command's closing parenthesis: state, ppid, …, utime (14th field), stime (15th).
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      if (Number(fields[1]) === process.pid) ticks += Number(fields[11]) + Number(fields[12])
    }
    return ticks * 10 // USER_HZ is 100 on Linux
  } catch {
    return undefined
  }
}

/** `count` calls, `inFlight` at a time: requests/s, the latencies, and CPU per call on each side. */
const drive = async (pair: Pair, count: number) => {
  const latencies = new Float64Array(count)
  let next = 0
  const serverCpu = childrenCpu()
  const cpu = process.cpuUsage()
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
  const used = process.cpuUsage(cpu)
  const serverAfter = childrenCpu()
  const sorted = latencies.slice().sort()
  return {
    rps: count / seconds,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    clientCpu: (used.user + used.system) / count,
    serverCpu: serverCpu === undefined || serverAfter === undefined
      ? undefined
      : (serverAfter - serverCpu) * 1000 / count
  }
}

interface Case {
  readonly name: string
  readonly transport: "stdio" | "http"
  readonly side: "ours" | "sdk" | "ours-auth"
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
    name: "effect-mcp client, authorized (McpAuth) → effect-mcp server",
    transport: "http",
    side: "ours-auth",
    connect: async () => {
      const { child, port } = await startHttpServer(here("./ours-http-server.js"), ["--mode", "layerHttp"])
      const pair = await ours(authorizedTransport(`http://127.0.0.1:${port}/mcp`))
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
      ["transport", "pair", "req/s", "p50", "p99", "CPU/call client", "server", "runs (req/s)"],
      ...chosen.map((c) => {
        const b = best(c)
        return [
          c.transport,
          c.name,
          num(b.rps),
          ms(b.p50),
          ms(b.p99),
          `${b.clientCpu.toFixed(1)} µs`,
          b.serverCpu === undefined ? "n/a" : `${b.serverCpu.toFixed(1)} µs`,
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
  const plain = chosen.find((c) => c.transport === "http" && c.side === "ours")
  const authorized = chosen.find((c) => c.transport === "http" && c.side === "ours-auth")
  if (plain !== undefined && authorized !== undefined) {
    const rates = results.get(authorized)!.map((r, i) => r.rps / results.get(plain)![i].rps)
    const cpu = results.get(authorized)!.map((r, i) => r.clientCpu / results.get(plain)![i].clientCpu)
    const cost = median(cpu)
    out.push(
      `http: authorized / unauthorized ${ratio(median(rates))} req/s, ${
        ratio(cost)
      } client CPU per call (median of rounds); target ≤ 1.05x CPU: ${cost <= 1.05 ? "met" : "NOT MET"}`
    )
    summary.push(targetRow("client", "http authorized / unauthorized CPU", cost, ratio(cost), "≤", 1.05, "1.05x"))
  }
  process.stdout.write(out.join("\n") + "\n")
  record(summary)
}

main().catch((error) => {
  process.stderr.write(`CLIENT BENCHMARK FAILED: ${error instanceof Error ? error.stack : String(error)}\n`)
  process.exit(1)
})
