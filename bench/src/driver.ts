/**
 * The client side of the in-process benchmarks: keeps `window` requests in flight over a text
 * endpoint, timing each from send to answer. Request texts are made before the clock starts and
 * only the id is read back, so the client costs as little as it can.
 */
import type { MemoryTransport, Transport } from "@effect-mcp/core"
import * as Effect from "effect/Effect"

export interface Stats {
  readonly rps: number
  readonly p50: number
  readonly p99: number
}

const percentile = (sorted: Float64Array, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]

/** `tools/call add` request number `i`, as text. */
export const addCall = (i: number): string =>
  `{"jsonrpc":"2.0","id":${i},"method":"tools/call","params":{"name":"add","arguments":{"a":${i},"b":1}}}`

export const drive = (
  remote: MemoryTransport.TextEndpoint,
  texts: ReadonlyArray<string>,
  window: number
): Effect.Effect<Stats, Transport.TransportError> =>
  Effect.gen(function*() {
    const count = texts.length
    const sentAt = new Float64Array(count)
    const latency = new Float64Array(count)
    let next = 0
    const send = Effect.suspend(() => {
      const i = next++
      sentAt[i] = performance.now()
      return remote.write(texts[i])
    })
    const start = performance.now()
    for (let i = 0; i < Math.min(window, count); i++) yield* send
    for (let done = 0; done < count; done++) {
      const text = yield* remote.read
      // Answers start with {"jsonrpc":"2.0","id":<id>,
      const id = Number(text.slice(22, text.indexOf(",", 22)))
      latency[id] = performance.now() - sentAt[id]
      if (next < count) yield* send
    }
    const seconds = (performance.now() - start) / 1000
    latency.sort()
    return { rps: count / seconds, p50: percentile(latency, 0.5), p99: percentile(latency, 0.99) }
  })

export const report = (label: string, stats: Stats, count: number, window: number): string =>
  `${label}: ${Math.round(stats.rps).toLocaleString("en-US")} req/s, ` +
  `p50 ${stats.p50.toFixed(3)} ms, p99 ${stats.p99.toFixed(3)} ms (${count} requests, ${window} in flight, one process)`
