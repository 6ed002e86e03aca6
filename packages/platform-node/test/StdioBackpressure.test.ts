/**
 * Stdio's output is bounded (issue 35, item 4): a client that sends requests and does not read
 * the answers stops its own requests once `maxBufferedBytes` wait on the output; they are read
 * again once it reads. Before, every request was served and every answer waited in memory.
 *
 * The bound holds whatever a write carries (issue 35 review, finding 2): the answers of requests
 * already running wait their turn (the output never holds more than the bound and one answer), and
 * past the bound no line of a chunk is read, however many it holds. Before, reading stopped only
 * once a whole chunk had started, and every answer of it was written: 40 calls in one write left
 * 20 MB on the output for a 1 MiB bound.
 */
import type { JsonRpc } from "@effect-mcp/core"
import { McpRequest, McpServer, Tool } from "@effect-mcp/server"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { PassThrough } from "node:stream"
import { expect, it } from "vitest"
import * as NodeMcpServer from "../src/NodeMcpServer.js"

const V = "2026-07-28"

/** Resolves once `check` holds, tested after each turn of the event loop; rejects after `ms` (a guard). */
const until = (check: () => boolean, what: string, ms = 20_000) =>
  new Promise<void>((resolve, reject) => {
    const started = Date.now()
    const test = () => {
      if (check()) return resolve()
      if (Date.now() - started > ms) return reject(new Error(`timed out waiting for ${what}`))
      setImmediate(test)
    }
    test()
  })

it(
  "a client that does not read its answers: input stops once maxBufferedBytes wait, and goes on once it reads",
  async () => {
    let calls = 0
    const Big = Tool.make("big", { description: "512 KiB of text" }, () =>
      Effect.sync(() => {
        calls++
        return "x".repeat(512 * 1024)
      }))
    const runtime = ManagedRuntime.make(
      McpServer.layer({ serverInfo: { name: "bp", version: "1" }, revisions: [V], tools: [Big] }).pipe(Layer.orDie)
    )
    const input = new PassThrough()
    const output = new PassThrough()
    const fiber = runtime.runFork(
      McpServer.serve(NodeMcpServer.protocol(input, output, { maxBufferedBytes: 1024 * 1024, endOfInputGrace: 0 }))
    )
    try {
      const meta = {
        "io.modelcontextprotocol/protocolVersion": V,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { name: "bp", version: "1" }
      }
      // Ten calls, one after another (each once the one before is answered, or the input stopped);
      // nobody reads the output.
      for (let id = 1; id <= 10; id++) {
        input.write(
          JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "big", _meta: meta } }) + "\n"
        )
        await until(
          () => input.isPaused() || output.writableLength >= id * 512 * 1024,
          `call ${id} answered, or the input stopped`
        )
      }
      await until(() => input.isPaused(), "the input to stop")
      // About two answers (1 MiB) wait; the other calls were not read.
      expect(calls).toBeLessThan(10)
      expect(input.readableLength).toBeGreaterThan(0)
      // The client reads: the rest are read and answered.
      let answers = 0
      let pending = ""
      output.on("data", (chunk: Buffer) => {
        pending += chunk.toString("utf8")
        let newline = pending.indexOf("\n")
        while (newline >= 0) {
          if (JSON.parse(pending.slice(0, newline)).result !== undefined) answers++
          pending = pending.slice(newline + 1)
          newline = pending.indexOf("\n")
        }
      })
      await until(() => answers === 10, "every answer")
      expect(calls).toBe(10)
    } finally {
      await runtime.runPromise(Fiber.interrupt(fiber))
      await runtime.dispose()
    }
  },
  30_000
)

const meta = {
  "io.modelcontextprotocol/protocolVersion": V,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "bp", version: "1" }
}

/** `count` calls of tool `name` from id `from` on, as lines of one write. */
const calls = (name: string, from: number, count: number) =>
  Array.from(
    { length: count },
    (_, i) =>
      JSON.stringify({ jsonrpc: "2.0", id: from + i, method: "tools/call", params: { name, _meta: meta } }) + "\n"
  ).join("")

const size = 512 * 1024
const bound = 1024 * 1024
/** An answer as written: its text and the envelope. */
const answer = size + 1024

/**
 * A server over two streams with `maxBufferedBytes` of 1 MiB (and `options`), serving `tools`; `most` is the most
 * ever waiting on the output, seen after each write the server makes; `read` starts reading the
 * output and tells which calls were answered with the whole text.
 */
const serve = (
  tools: ReadonlyArray<Tool.Tool<McpRequest.McpRequest>>,
  options: NodeMcpServer.ProtocolOptions = {},
  revisions: ReadonlyArray<"2025-11-25" | typeof V> = [V]
) => {
  const runtime = ManagedRuntime.make(
    McpServer.layer({ serverInfo: { name: "bp", version: "1" }, revisions, tools }).pipe(Layer.orDie)
  )
  const input = new PassThrough()
  const output = new PassThrough()
  const seen = { most: 0 }
  const write = output.write.bind(output)
  // Wrapped to look after each write; `write` is overloaded, and every overload passes through.
  output.write = ((...args: Parameters<typeof output.write>) => {
    const accepted = write(...args)
    seen.most = Math.max(seen.most, output.writableLength)
    return accepted
  }) as typeof output.write
  const fiber = runtime.runFork(
    McpServer.serve(
      NodeMcpServer.protocol(input, output, { maxBufferedBytes: bound, endOfInputGrace: 0, ...options })
    )
  )
  const read = () => {
    const answered = new Set<number>()
    let pending = ""
    output.on("data", (chunk: Buffer) => {
      pending += chunk.toString("utf8")
      let newline = pending.indexOf("\n")
      while (newline >= 0) {
        const message = JSON.parse(pending.slice(0, newline))
        if (message.result?.content?.[0]?.text.length === size) answered.add(message.id)
        pending = pending.slice(newline + 1)
        newline = pending.indexOf("\n")
      }
    })
    return answered
  }
  const close = async () => {
    await runtime.runPromise(Fiber.interrupt(fiber))
    await runtime.dispose()
  }
  return { input, output, seen, read, close }
}

it(
  "many calls in one write, each answered at once: no line is read once the bound is passed",
  async () => {
    let started = 0
    const Big = Tool.make("big", { description: "512 KiB of text" }, () =>
      Effect.sync(() => {
        started++
        return "x".repeat(size)
      }))
    const server = serve([Big])
    try {
      server.input.write(calls("big", 1, 40))
      await until(() => server.input.isPaused(), "the input to stop")
      // The rest of the write waits unread: a few calls, not forty (before: all forty, 20 MB waiting).
      expect(started).toBeLessThan(5)
      expect(server.seen.most).toBeLessThanOrEqual(bound + answer)
      const answered = server.read()
      await until(() => answered.size === 40, "every answer")
      expect(server.seen.most).toBeLessThanOrEqual(bound + answer)
    } finally {
      await server.close()
    }
  },
  30_000
)

it(
  "the answers of calls already running wait their turn: the output never holds more than the bound and one answer",
  async () => {
    let started = 0
    // Every call is running before any answers: then all forty answer at once.
    const gate = Deferred.unsafeMake<void>(FiberId.none)
    const Gated = Tool.make(
      "gated",
      { description: "512 KiB of text, once the gate opens" },
      () =>
        Effect.gen(function*() {
          started++
          yield* Deferred.await(gate)
          return "x".repeat(size)
        })
    )
    const server = serve([Gated])
    try {
      server.input.write(calls("gated", 1, 40))
      await until(() => started === 40, "every call to start")
      Deferred.unsafeDone(gate, Exit.void)
      // (The stream's readable side takes what it is given off the writable one.)
      await until(
        () => server.output.writableLength + server.output.readableLength > bound,
        "the output to pass the bound"
      )
      // Before: the forty answers were written at once (20 MB waiting).
      expect(server.seen.most).toBeLessThanOrEqual(bound + answer)
      // Forty more in one write while the output is past the bound: none of them is read.
      server.input.write(calls("gated", 41, 40))
      await until(() => server.input.isPaused(), "the input to stop")
      await new Promise((resolve) => setImmediate(resolve))
      expect(started).toBe(40)
      // The client reads: every call is answered, and the bound held all along.
      const answered = server.read()
      await until(() => answered.size === 80, "every answer")
      expect(started).toBe(80)
      expect(server.seen.most).toBeLessThanOrEqual(bound + answer)
    } finally {
      await server.close()
    }
  },
  30_000
)

it(
  "calls whose answers are still being made: at most maxRequestsInFlight (100) run, the next lines wait",
  async () => {
    let started = 0
    const gate = Deferred.unsafeMake<void>(FiberId.none)
    const Small = Tool.make("small", { description: "a word, once the gate opens" }, () =>
      Effect.gen(function*() {
        started++
        yield* Deferred.await(gate)
        return "done"
      }))
    const server = serve([Small])
    try {
      const answered = new Set<number>()
      let pending = ""
      server.output.on("data", (chunk: Buffer) => {
        pending += chunk.toString("utf8")
        let newline = pending.indexOf("\n")
        while (newline >= 0) {
          const message = JSON.parse(pending.slice(0, newline))
          if (message.result?.content?.[0]?.text === "done") answered.add(message.id)
          pending = pending.slice(newline + 1)
          newline = pending.indexOf("\n")
        }
      })
      // 150 calls in one write, read while the output is empty: each would make its answer at once
      // (before, all 150 started; with large answers, a chunk of them exhausted a 256 MB heap).
      server.input.write(calls("small", 1, 150))
      await until(() => server.input.isPaused() || started > 100, "the input to stop")
      await new Promise((resolve) => setImmediate(resolve))
      expect(started).toBe(100)
      Deferred.unsafeDone(gate, Exit.void)
      await until(() => answered.size === 150, "every answer")
      expect(started).toBe(150)
    } finally {
      await server.close()
    }
  },
  30_000
)

it(
  "a call waiting on the client's answer to its ask does not count: the answers are read though the other calls fill maxRequestsInFlight",
  async () => {
    const Ask = Tool.make("ask", { description: "asks the user, says the answer" }, () =>
      McpRequest.elicit("sure", {
        message: "Sure?",
        requestedSchema: { type: "object", properties: { sure: { type: "boolean" } } }
      }).pipe(Effect.map((answer) => `answered ${answer.action}`), Effect.orDie))
    // Two at a time: the three calls of one write ask, and the answers come after the third call.
    const server = serve([Ask], { maxRequestsInFlight: 2 }, ["2025-11-25"])
    try {
      const asks: Array<JsonRpc.RequestId> = []
      const answered = new Set<number>()
      let pending = ""
      server.output.on("data", (chunk: Buffer) => {
        pending += chunk.toString("utf8")
        let newline = pending.indexOf("\n")
        while (newline >= 0) {
          const message = JSON.parse(pending.slice(0, newline))
          if (message.method === "elicitation/create") asks.push(message.id)
          if (message.result?.content?.[0]?.text === "answered accept") answered.add(message.id)
          pending = pending.slice(newline + 1)
          newline = pending.indexOf("\n")
        }
      })
      const line = (message: object) => JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n"
      server.input.write(
        line({
          id: 0,
          method: "initialize",
          params: {
            protocolVersion: "2025-11-25",
            capabilities: { elicitation: {} },
            clientInfo: { name: "bp", version: "1" }
          }
        }) +
          line({ method: "notifications/initialized" }) +
          [1, 2, 3].map((id) => line({ id, method: "tools/call", params: { name: "ask" } })).join("")
      )
      // Were they counted, two calls would ask and the third would wait for a place that never frees.
      await until(() => asks.length === 3, "three asks")
      server.input.write(
        asks.map((id) => line({ id, result: { action: "accept", content: { sure: true } } })).join("")
      )
      await until(() => answered.size === 3, "every answer")
    } finally {
      await server.close()
    }
  },
  30_000
)

it(
  "a cancellation is read while maxRequestsInFlight calls run: the call it ends makes room for the next",
  async () => {
    let started = 0
    const Forever = Tool.make("forever", { description: "never answers" }, () =>
      Effect.suspend(() => {
        started++
        return Effect.never
      }))
    const server = serve([Forever], { maxRequestsInFlight: 2 })
    try {
      const line = (message: object) => JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n"
      // Two calls fill the places; the client gives up on the first, then makes a third.
      server.input.write(
        calls("forever", 1, 2) +
          line({ method: "notifications/cancelled", params: { requestId: 1, _meta: meta } }) +
          calls("forever", 3, 1)
      )
      // Were lines held back whatever they hold, the cancellation would wait behind the running calls.
      await until(() => started === 3, "the third call to start")
    } finally {
      await server.close()
    }
  },
  30_000
)

it(
  "the input ends while answers and an ask wait for room: the server ends all the same, nobody reading",
  async () => {
    const answers = Deferred.unsafeMake<void>(FiberId.none)
    const asking = Deferred.unsafeMake<void>(FiberId.none)
    const Big = Tool.make(
      "big",
      { description: "512 KiB of text, once told" },
      () => Effect.as(Deferred.await(answers), "x".repeat(size))
    )
    // Its ask is sent while the output is full: the sending of a request cannot be interrupted.
    const AskLater = Tool.make(
      "askLater",
      { description: "asks the user, once told" },
      () =>
        Deferred.await(asking).pipe(
          Effect.zipRight(McpRequest.elicit("sure", {
            message: "Sure?",
            requestedSchema: { type: "object", properties: { sure: { type: "boolean" } } }
          })),
          Effect.as("asked"),
          Effect.orDie
        )
    )
    const runtime = ManagedRuntime.make(
      McpServer.layer({ serverInfo: { name: "bp", version: "1" }, revisions: ["2025-11-25"], tools: [Big, AskLater] })
        .pipe(Layer.orDie)
    )
    const input = new PassThrough()
    const output = new PassThrough()
    const served = runtime.runPromiseExit(
      McpServer.serve(NodeMcpServer.protocol(input, output, { maxBufferedBytes: bound, endOfInputGrace: 0 }))
    )
    try {
      const line = (message: object) => JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n"
      input.write(
        line({
          id: 0,
          method: "initialize",
          params: {
            protocolVersion: "2025-11-25",
            capabilities: { elicitation: {} },
            clientInfo: { name: "bp", version: "1" }
          }
        }) +
          line({ method: "notifications/initialized" }) +
          [1, 2, 3, 4].map((id) => line({ id, method: "tools/call", params: { name: "big" } })).join("") +
          line({ id: 5, method: "tools/call", params: { name: "askLater" } })
      )
      await until(() => output.readableLength > 0, "the initialize answer")
      Deferred.unsafeDone(answers, Exit.void)
      await until(() => output.writableLength + output.readableLength > bound, "the output to pass the bound")
      Deferred.unsafeDone(asking, Exit.void)
      await new Promise((resolve) => setImmediate(resolve))
      // The client closes its input and reads nothing: what waits is let go, and the server ends.
      input.end()
      const exit = await served
      expect(exit._tag).toBe("Success")
    } finally {
      await runtime.dispose()
    }
  },
  30_000
)
