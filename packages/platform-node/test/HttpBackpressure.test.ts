/**
 * The bytes waiting to be written on connections whose clients do not read (issue 35, item 4), on
 * both HTTP paths, at the wire: raw sockets that send a 2026-07-28 call and never read its SSE
 * stream, while the call sends 64 KiB progress messages.
 *
 * - Past `maxBufferedBytes` on one connection, it is closed (the call, whose response is gone,
 *   is cancelled), with a warning in the log.
 * - Past `maxBufferedBytesTotal` across connections, the one whose bytes waited longest without
 *   any being read is closed; a newer non-reader and a reader that keeps up go on.
 *
 * Before the bounds, nothing was ever closed: every message waited in memory for a reader that
 * never came (these calls ran to their end, and the tests timed out waiting for the close).
 * The sizes are small (a few MiB): the 256 MB run with 16 MiB skill files is measured apart.
 */
import { McpRequest, McpServer, Tool } from "@effect-mcp/server"
import { HttpTransport } from "@effect-mcp/server"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as FiberId from "effect/FiberId"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Schema from "effect/Schema"
import * as http from "node:http"
import * as net from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import * as NodeMcpServer from "../src/NodeMcpServer.js"
import { awaitDeferred, freePort, type ServerPath, serverPaths } from "./utils/http.js"

const V = "2026-07-28"
const piece = "x".repeat(64 * 1024)

/** What a `flood` call tells the test: it sent all its messages, it was interrupted. */
interface Flood {
  readonly sent: Deferred.Deferred<void>
  readonly interrupted: Deferred.Deferred<void>
}
const floods = new Map<string, Flood>()
const flood = (key: string): Flood => {
  let f = floods.get(key)
  if (f === undefined) {
    f = { sent: Deferred.unsafeMake(FiberId.none), interrupted: Deferred.unsafeMake(FiberId.none) }
    floods.set(key, f)
  }
  return f
}

/** Sends `pieces` progress messages of 64 KiB each, then waits (until cancelled). */
const Flood = Tool.make("flood", {
  parameters: Schema.Struct({ key: Schema.String, pieces: Schema.Number })
}, ({ key, pieces }) =>
  Effect.gen(function*() {
    for (let i = 1; i <= pieces; i++) yield* McpRequest.progress(i, pieces, piece)
    yield* Deferred.succeed(flood(key).sent, undefined)
    return yield* Effect.never
  }).pipe(Effect.onInterrupt(() => Deferred.succeed(flood(key).interrupted, undefined))))

const httpLayer = (
  path: ServerPath,
  port: number,
  options: HttpTransport.Options
): Layer.Layer<never, unknown, McpServer.McpServer> =>
  path === "NodeMcpServer.layerHttp"
    ? NodeMcpServer.layerHttp({ port, ...options })
    : HttpLayerRouter.serve(HttpTransport.layer(options), { disableLogger: true, disableListenLog: true }).pipe(
      Layer.provide(NodeHttpServer.layer(http.createServer, { port, host: "127.0.0.1" }))
    )

const running: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const stop of running.splice(0)) await stop()
})

/** A stateless server with `flood` on `path`; its log's messages collected. */
const start = async (path: ServerPath, options: HttpTransport.Options) => {
  const port = await freePort()
  const logged: Array<string> = []
  const layer = httpLayer(path, port, options).pipe(
    Layer.provideMerge(McpServer.layer({ serverInfo: { name: "bp", version: "1" }, revisions: [V], tools: [Flood] })),
    Layer.provide(Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => logged.push(String(message)))))
  )
  const runtime = ManagedRuntime.make(layer)
  await runtime.runPromise(McpServer.McpServer)
  const sockets: Array<net.Socket> = []
  running.push(async () => {
    for (const socket of sockets) socket.destroy()
    await runtime.dispose()
  })
  const body = (key: string, pieces: number) =>
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "flood",
        arguments: { key, pieces },
        _meta: {
          "io.modelcontextprotocol/protocolVersion": V,
          "io.modelcontextprotocol/clientCapabilities": {},
          "io.modelcontextprotocol/clientInfo": { name: "bp", version: "1" },
          progressToken: key
        }
      }
    })
  const request = (key: string, pieces: number) => {
    const text = body(key, pieces)
    return `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\n` +
      `accept: application/json, text/event-stream\r\nmcp-protocol-version: ${V}\r\nmcp-method: tools/call\r\n` +
      `mcp-name: flood\r\ncontent-length: ${Buffer.byteLength(text)}\r\n\r\n${text}`
  }
  return {
    logged,
    /** A client that sends the call and never reads a byte of the answer. */
    silent: async (key: string, pieces: number) => {
      const socket = net.connect(port, "127.0.0.1")
      sockets.push(socket)
      socket.on("error", () => undefined)
      await new Promise((resolve) => socket.once("connect", resolve))
      socket.pause()
      socket.write(request(key, pieces))
    },
    /** A client that reads everything as it comes; resolves with the bytes read once `pieces` arrived. */
    reader: (key: string, pieces: number) =>
      new Promise<number>((resolve, reject) => {
        const socket = net.connect(port, "127.0.0.1", () => socket.write(request(key, pieces)))
        sockets.push(socket)
        let read = 0
        let text = ""
        socket.on("data", (chunk: Buffer) => {
          read += chunk.length
          // Only the end of what came is looked at: the last progress message says its number.
          text = (text + chunk.toString("latin1")).slice(-256 * 1024)
          if (text.includes(`"progress":${pieces},`)) resolve(read)
        })
        socket.on("error", reject)
        socket.on("close", () =>
          reject(new Error(`the reader's connection closed after ${read} bytes: ${text.slice(0, 300)}`)))
      })
  }
}

const closedLine = /effect-mcp: closed a connection that does not read its answers/

for (const path of serverPaths) {
  describe(`bytes waiting for clients that do not read [${path}]`, () => {
    /** A call's key, its own on each path. */
    const k = (name: string) => `${path}: ${name}`
    it("past maxBufferedBytes on one connection, it is closed (the call cancelled) and logged", async () => {
      const server = await start(path, { maxBufferedBytes: 1024 * 1024 })
      // 16 MiB of messages: far past the bound (and past what the system's buffers take).
      await server.silent(k("one"), 256)
      await awaitDeferred(flood(k("one")).interrupted, 10_000, "the call to be cancelled")
      expect(server.logged.some((line) => closedLine.test(line) && line.includes("over maxBufferedBytes"))).toBe(
        true
      )
    }, 30_000)

    it(
      "past maxBufferedBytesTotal, the longest unread connection is closed; a newer one and a reader go on",
      async () => {
        // The sizes leave room for what the system's buffers take of a connection that is not read
        // (3.7 MiB on loopback here; counted as written): each non-reader alone stays within the
        // total, the two together do not.
        const server = await start(path, {
          maxBufferedBytes: 64 * 1024 * 1024,
          maxBufferedBytesTotal: 12 * 1024 * 1024
        })
        // The first non-reader: 11.75 MiB of messages, all sent.
        await server.silent(k("old"), 188)
        await awaitDeferred(flood(k("old")).sent, 10_000, "the first call's messages")
        // A reader that keeps up, 1 MiB of messages.
        const reading = server.reader(k("reader"), 16)
        // A second non-reader, as much as the first: together, past the total.
        await server.silent(k("new"), 188)
        await awaitDeferred(flood(k("old")).interrupted, 10_000, "the first non-reader to be closed")
        // Every message came (the 16th has begun to: its number is at its start).
        expect(await reading).toBeGreaterThan(15 * 64 * 1024)
        await awaitDeferred(flood(k("new")).sent, 10_000, "the second call's messages")
        expect(Effect.runSync(Deferred.isDone(flood(k("new")).interrupted))).toBe(false)
        expect(Effect.runSync(Deferred.isDone(flood(k("reader")).interrupted))).toBe(false)
        expect(
          server.logged.some((line) => closedLine.test(line) && line.includes("over maxBufferedBytesTotal"))
        ).toBe(true)
      },
      30_000
    )
  })
}
