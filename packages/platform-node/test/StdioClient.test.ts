/**
 * The client's stdio transport (`NodeMcpClient.layerStdio`) when the server fails at startup:
 * the client's error says how the child ended and what its stderr ended with, the last lines
 * kept in a tail bounded in lines and in bytes whatever the child writes.
 */
import { ClientError, McpClient } from "@effect-mcp/client"
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import { NodeMcpClient } from "../src/index.js"
import * as StderrTail from "../src/internal/stderrTail.js"

/** A client of `node -e script`, its stderr not shown. */
const clientOf = (script: string, era?: McpClient.Options["era"]) =>
  McpClient.layer({ clientInfo: { name: "test", version: "1.0.0" }, ...(era !== undefined ? { era } : {}) }).pipe(
    Layer.provide(NodeMcpClient.layerStdio({ command: process.execPath, args: ["-e", script], stderr: "ignore" }))
  )

const failing = "console.error('starting'); console.error('boom: no config'); process.exit(1)"

const bytes = (text: string) => new TextEncoder().encode(text)

describe("NodeMcpClient.layerStdio: a server that exits at startup", () => {
  for (const era of [undefined, "handshake", "stateless"] as const) {
    it.live(`the error names the exit code and the child's last stderr lines (era ${era ?? "auto"})`, () =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(Effect.scoped(Layer.build(clientOf(failing, era))))
        assert.strictEqual(error._tag, "TransportClosed")
        assert.match(
          error.message,
          /^Transport closed before \S+ was answered; the server exited with code 1; its stderr ended with:\n  starting\n  boom: no config$/
        )
        const exited = error._tag === "TransportClosed" ? error.reason?.cause : undefined
        assert.instanceOf(exited, NodeMcpClient.ServerExited)
        assert.strictEqual(exited.code, 1)
        assert.deepStrictEqual(exited.stderr, ["starting", "boom: no config"])
      }))
  }

  it.live("a child ended by a signal, with nothing on stderr: the signal, and no tail", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        Effect.scoped(Layer.build(clientOf("process.kill(process.pid, 'SIGKILL')", "handshake")))
      )
      assert.strictEqual(
        error.message,
        "Transport closed before initialize was answered; the server was ended by SIGKILL"
      )
    }))

  it.live("a child that spews 10 MB on stderr before exiting: the error holds its last lines, bounded", () =>
    Effect.gen(function*() {
      const script =
        "const line = 'x'.repeat(1023) + '\\n'; for (let i = 0; i < 10240; i++) process.stderr.write(line);" +
        " process.stderr.write('the last line\\n', () => process.exit(3))"
      const error = yield* Effect.flip(Effect.scoped(Layer.build(clientOf(script, "handshake"))))
      const exited = error._tag === "TransportClosed" ? error.reason?.cause : undefined
      assert.instanceOf(exited, NodeMcpClient.ServerExited)
      assert.strictEqual(exited.code, 3)
      assert.strictEqual(exited.stderr.at(-1), "the last line")
      assert.isAtMost(exited.stderr.join("\n").length, 4096)
    }))
})

/** Every listener on our own stderr. */
const stderrListeners = () =>
  process.stderr.eventNames().reduce((sum, name) => sum + process.stderr.listenerCount(name), 0)

/** Our pipes still open (one per child stream we hold). */
const openPipes = () => process.getActiveResourcesInfo().filter((name) => name === "PipeWrap").length

/** The pipes this process had before any test here started a child. */
const pipesOfOurOwn = openPipes()

/**
 * Once none but our own pipes are open: a destroyed pipe's handle closes on a later turn, and
 * nothing announces it (polled, for 5 seconds at most).
 */
const pipesClosed = Effect.repeat(Effect.sync(openPipes), {
  until: (open) => open <= pipesOfOurOwn,
  schedule: Schedule.spaced("5 millis")
}).pipe(
  Effect.timeoutFail({
    duration: "5 seconds",
    onTimeout: () => new Error(`${openPipes()} pipes open, ${pipesOfOurOwn} before the first child`)
  })
)

describe("NodeMcpClient.layerStdio: what it holds of this process", () => {
  it.live("a dozen children writing to our stderr add no listener to it", () =>
    Effect.gen(function*() {
      const before = stderrListeners()
      yield* Effect.scoped(Effect.gen(function*() {
        for (let i = 0; i < 12; i++) {
          yield* Layer.build(NodeMcpClient.layerStdio({
            command: process.execPath,
            args: ["-e", "process.stdin.resume(); process.stdin.on('end', () => process.exit(0))"],
            closeTimeout: "1 second"
          }))
        }
        assert.strictEqual(stderrListeners(), before)
      }))
    }))

  it.live("once the child has exited, its pipes are let go even while a grandchild holds them", () =>
    Effect.gen(function*() {
      yield* pipesClosed // the pipes of the tests before
      const grandchild = yield* Deferred.make<number>()
      // The child starts a grandchild that keeps the child's stderr, says its pid, and exits at end of input.
      const script =
        "const c = require('child_process').spawn('sleep', ['30'], { stdio: ['ignore', 'ignore', 'inherit'] });" +
        " console.error('grandchild ' + c.pid); c.unref();" +
        " process.stdin.resume(); process.stdin.on('end', () => process.exit(0))"
      yield* Effect.scoped(Effect.gen(function*() {
        yield* Layer.build(NodeMcpClient.layerStdio({
          command: process.execPath,
          args: ["-e", script],
          stderr: (line) => {
            const found = /^grandchild (\d+)$/.exec(line)
            if (found) Deferred.unsafeDone(grandchild, Exit.succeed(Number(found[1])))
          }
        }))
        yield* Deferred.await(grandchild)
      }))
      const pid = yield* Deferred.await(grandchild)
      yield* pipesClosed.pipe(Effect.ensuring(Effect.sync(() => process.kill(pid, "SIGKILL"))))
    }))
})

describe("NodeMcpClient.layerStdio: maxMessageLength", () => {
  it.live("a server's answer longer than it is never held: its request fails with MessageTooLarge, nothing is answered", () =>
    Effect.gen(function*() {
      // The server answers initialize with a line of 2,000 characters, then says on stderr whatever
      // comes back but notifications, and stays.
      const script = "process.stdin.setEncoding('utf8'); let got = '';" +
        " process.stdin.on('data', (c) => { got += c; let i; while ((i = got.indexOf('\\n')) >= 0) {" +
        " const line = got.slice(0, i); got = got.slice(i + 1); const m = JSON.parse(line);" +
        " if (m.method === 'initialize') process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id," +
        " result: { pad: 'x'.repeat(2000) } }) + '\\n'); else if (m.id !== undefined || m.error) console.error(line) } })"
      const error = yield* Effect.flip(Effect.scoped(Layer.build(
        McpClient.layer({ clientInfo: { name: "test", version: "1.0.0" }, era: "handshake" }).pipe(
          Layer.provide(NodeMcpClient.layerStdio({
            command: process.execPath,
            args: ["-e", script],
            stderr: (line) => assert.fail(`the client answered the server: ${line}`),
            maxMessageLength: 1000
          }))
        )
      )))
      assert.deepStrictEqual(
        error,
        new ClientError.MessageTooLarge({ method: "initialize", limit: 1000, option: "maxMessageLength" })
      )
      assert.strictEqual(
        error.message,
        "initialize: the server's answer is larger than 1000 bytes (the client's maxMessageLength); it was not read"
      )
    }))
})

describe("the stderr tail", () => {
  it("keeps the last lines, at most maxLines of them", () => {
    const tail = StderrTail.make({ maxLines: 3 })
    for (let i = 1; i <= 10; i++) tail.push(bytes(`line ${i}\n`))
    assert.deepStrictEqual(tail.lines(), ["line 8", "line 9", "line 10"])
  })

  it("joins lines across chunks, a character split across them too, and keeps the unfinished one", () => {
    const tail = StderrTail.make()
    const all = bytes("héllo\r\nwor")
    tail.push(all.subarray(0, 2)) // "h" and half of "é"
    tail.push(all.subarray(2))
    tail.push(bytes("ld\n\n   \nlast, unfinished"))
    assert.deepStrictEqual(tail.lines(), ["héllo", "world", "last, unfinished"])
  })

  it("10 MB of stderr, in lines or in one endless line, never keeps more than maxBytes", () => {
    for (const newlines of [true, false]) {
      const chunk = new Uint8Array(64 * 1024).fill(0x78) // "x"
      const tail = StderrTail.make({ maxBytes: 4096 })
      if (newlines) { for (let i = 1023; i < chunk.length; i += 1024) chunk[i] = 0x0a }
      let most = 0
      for (let written = 0; written < 10 * 1024 * 1024; written += chunk.length) {
        tail.push(chunk)
        most = Math.max(most, tail.size())
      }
      tail.push(bytes("é the end"))
      assert.isAtMost(most, 4096)
      assert.isAtMost(tail.size(), 4096)
      const lines = tail.lines()
      assert.isTrue(lines.at(-1)!.endsWith("é the end"))
      assert.isAtMost(new TextEncoder().encode(lines.join("")).length, 4096 + 3 * lines.length)
      if (!newlines) assert.deepStrictEqual(lines.map((line) => line.slice(0, 2)), ["…x"])
    }
  })

  it("one line longer than maxBytes keeps its end, marked as cut, and no broken character", () => {
    const tail = StderrTail.make({ maxBytes: 8 })
    tail.push(bytes("abcdefghijé\n")) // "é" is 2 bytes
    assert.deepStrictEqual(tail.lines(), ["…efghijé"])
    const utf8 = StderrTail.make({ maxBytes: 3 })
    utf8.push(bytes("ééé\n")) // 6 bytes: the last 3 start inside the second "é"
    assert.deepStrictEqual(utf8.lines(), ["…é"])
  })
})
