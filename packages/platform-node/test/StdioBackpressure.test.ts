/**
 * Stdio's output is bounded (issue 35, item 4): a client that sends requests and does not read
 * the answers stops its own requests once `maxBufferedBytes` wait on the output; they are read
 * again once it reads. Before, every request was served and every answer waited in memory.
 */
import { McpServer, Tool } from "@effect-mcp/server"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { PassThrough } from "node:stream"
import { expect, it } from "vitest"
import * as NodeMcpServer from "../src/NodeMcpServer.js"

const V = "2026-07-28"

/** Resolves once `check` holds, tested after each turn of the event loop; rejects after `ms`. */
const until = (check: () => boolean, what: string, ms = 10_000) =>
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
