/**
 * `McpToolkit`'s cost per tool call: the toolkit's handler (`toolkit.handle("add", …)`, what
 * `LanguageModel.generateText` calls for each tool call) against `client.callTool("add", …)`
 * directly, one client over stdio to our server (`ours-stdio-server.ts`, a child: this process's
 * CPU is the client's alone). Alternating rounds, a fixed number of calls in flight; CPU per call
 * of this process, as the median of the rounds' ratios. Every answer is checked.
 *
 * Target: the toolkit ≤ 1.05× the client CPU of the direct call per call.
 *
 * Environment: BENCH_TOOLKIT_CALLS (20000), BENCH_TOOLKIT_WARMUP (5000), BENCH_IN_FLIGHT (16),
 * BENCH_ROUNDS (5).
 *
 * A benchmark, not a test.
 */
import { McpClient } from "@effect-mcp/client"
import * as McpToolkit from "@effect-mcp/client/McpToolkit"
import { NodeMcpClient } from "@effect-mcp/platform-node"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { here, markLoad, median, ms, num, otherLoadNote, ratio, table } from "./proc.js"
import { record, targetRow } from "./summary.js"

const calls = Number(process.env.BENCH_TOOLKIT_CALLS ?? 20_000)
const warmup = Number(process.env.BENCH_TOOLKIT_WARMUP ?? 5_000)
const inFlight = Number(process.env.BENCH_IN_FLIGHT ?? 16)
const rounds = Number(process.env.BENCH_ROUNDS ?? 5)

/** `count` calls of `add`, `inFlight` at a time: requests/s and this process's CPU per call (µs). */
const drive = async (add: (a: number, b: number) => Promise<unknown>, sumOf: (r: any) => number, count: number) => {
  let next = 0
  const cpu = process.cpuUsage()
  const started = performance.now()
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (next < count) {
      const i = next++
      const sum = sumOf(await add(i, 1))
      if (sum !== i + 1) throw new Error(`add(${i}, 1) answered ${sum}`)
    }
  }))
  const used = process.cpuUsage(cpu)
  return { rps: count / ((performance.now() - started) / 1000), cpu: (used.user + used.system) / count }
}

const main = async () => {
  const load = markLoad()
  const runtime = ManagedRuntime.make(
    McpClient.layer({ clientInfo: { name: "bench", version: "1.0.0" }, era: "handshake", cache: false }).pipe(
      Layer.provide(
        NodeMcpClient.layerStdio({
          command: process.execPath,
          args: [here("./ours-stdio-server.js")],
          stderr: "ignore"
        })
      )
    )
  )
  const client = await runtime.runPromise(McpClient.McpClient)
  const tools = await runtime.runPromise(
    Effect.scoped(McpToolkit.make(client, { refresh: false })).pipe(
      // The toolkit outlives the scope above: it holds no resource once refresh is off.
      Effect.flatMap((tools) => tools.toolkit)
    )
  )
  const cases = {
    direct: {
      add: (a: number, b: number) => runtime.runPromise(client.callTool("add", { a, b })),
      sumOf: (r: McpClient.RequestResult<"tools/call">) => (r.structuredContent as { sum: number }).sum
    },
    toolkit: {
      add: (a: number, b: number) => runtime.runPromise(tools.handle("add", { a, b })),
      sumOf: (r: { readonly result: { sum: number } }) => r.result.sum
    }
  } as const
  for (const c of Object.values(cases)) await drive(c.add, c.sumOf, warmup)
  const results = {
    direct: [] as Array<{ rps: number; cpu: number }>,
    toolkit: [] as Array<{ rps: number; cpu: number }>
  }
  for (let round = 0; round < rounds; round++) {
    for (const name of round % 2 === 0 ? ["direct", "toolkit"] as const : ["toolkit", "direct"] as const) {
      results[name].push(await drive(cases[name].add, cases[name].sumOf, calls))
    }
  }
  await runtime.dispose()
  const ratios = results.toolkit.map((r, i) => r.cpu / results.direct[i]!.cpu)
  const value = median(ratios)
  const rows = (["direct", "toolkit"] as const).map((name) => [
    name === "direct" ? "client.callTool" : "McpToolkit handle",
    num(median(results[name].map((r) => r.rps))),
    ms(median(results[name].map((r) => r.cpu)) / 1000)
  ])
  process.stdout.write(
    [
      `McpToolkit per tool call, stdio, ${calls} calls × ${rounds} rounds, ${inFlight} in flight`,
      ...table([["path", "req/s (median)", "client CPU per call (median)"], ...rows]),
      `toolkit / direct client CPU per call: ${ratio(value)} (median of rounds; rounds ${
        ratios.map(ratio).join(" ")
      }); target ≤ 1.05x: ${value <= 1.05 ? "met" : "NOT MET"}`,
      otherLoadNote(load)
    ].join("\n") + "\n"
  )
  record([targetRow("toolkit", "McpToolkit / callTool client CPU", value, ratio(value), "≤", 1.05, "1.05x")])
}

main().catch((error) => {
  process.stderr.write(`TOOLKIT BENCHMARK FAILED: ${error instanceof Error ? error.stack : String(error)}\n`)
  process.exit(1)
})
