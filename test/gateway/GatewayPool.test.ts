/**
 * `mcp gateway --max-connections N`: the gateway's connections to an HTTP upstream are a bounded
 * pool. Twelve concurrent slow calls to one upstream through a gateway bounded at 4 never have more
 * than 4 sockets open at the upstream at once (counted where the upstream accepts them, a TCP
 * forwarder in front of it), and all twelve complete: those beyond the bound wait their turn.
 * Before the bound (undici's `Agent` with no `connections`), each concurrent call opened its own
 * socket: 12 at once here (and there was no `--max-connections`).
 */
import { NodeMcpServer } from "@effect-mcp/platform-node"
import { McpServer, Tool } from "@effect-mcp/server"
import { Services } from "@effect-mcp/test-support"
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { mkdtempSync, writeFileSync } from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { overStdio } from "./support.js"

const calls = 12
const bound = 4

/** A TCP forwarder to `port`: how many sockets it has open, and the most it had at once. */
const counting = (port: number) =>
  Effect.acquireRelease(
    Effect.async<{ readonly port: number; readonly most: () => number; readonly close: () => void }>((resume) => {
      let open = 0
      let most = 0
      const sockets = new Set<net.Socket>()
      const server = net.createServer((socket) => {
        open++
        most = Math.max(most, open)
        sockets.add(socket)
        const upstream = net.connect(port, "127.0.0.1")
        socket.pipe(upstream).pipe(socket)
        const end = () => {
          if (sockets.delete(socket)) open--
          socket.destroy()
          upstream.destroy()
        }
        socket.on("close", end).on("error", end)
        upstream.on("close", end).on("error", end)
      })
      server.listen(0, "127.0.0.1", () =>
        resume(Effect.succeed({
          port: (server.address() as net.AddressInfo).port,
          most: () => most,
          close: () => {
            for (const socket of sockets) socket.destroy()
            server.close()
          }
        })))
    }),
    (forwarder) => Effect.sync(forwarder.close)
  )

describe("mcp gateway: a bounded pool of connections to an HTTP upstream", () => {
  it.scopedLive(
    `${calls} concurrent calls through --max-connections ${bound}: at most ${bound} sockets, all answered`,
    () =>
      Effect.gen(function*() {
        // The upstream's tool holds each call until all twelve are in, or a quarter second passed:
        // unbounded, all twelve are in at once; bounded, those in are let go and the next come.
        let inFlight = 0
        const allIn = yield* Deferred.make<void>()
        const Hold = Tool.make("hold", { success: Schema.Struct({ ok: Schema.Boolean }) }, () =>
          Effect.gen(function*() {
            if (++inFlight === calls) yield* Deferred.succeed(allIn, undefined)
            yield* Effect.race(Deferred.await(allIn), Effect.sleep("250 millis"))
            inFlight--
            return { ok: true }
          }))
        const port = yield* Services.freePort
        yield* Layer.build(
          NodeMcpServer.layerHttp({ port }).pipe(
            Layer.provide(McpServer.layer({ serverInfo: { name: "slow", version: "1.0.0" }, tools: [Hold] }))
          )
        )
        const forwarder = yield* counting(port)
        const file = path.join(mkdtempSync(path.join(os.tmpdir(), "mcp-gateway-pool-")), "gateway.json")
        writeFileSync(file, JSON.stringify({ mcpServers: { slow: { url: `http://127.0.0.1:${forwarder.port}/mcp` } } }))
        const client = yield* overStdio(file, "gateway-pool-test", ["--max-connections", String(bound)])
        const results = yield* Effect.forEach(
          Array.from({ length: calls }),
          () => client.callTool("slow_hold", {}),
          { concurrency: "unbounded" }
        )
        assert.deepStrictEqual(results.map((r) => r.structuredContent), Array(calls).fill({ ok: true }))
        assert.isAtLeast(forwarder.most(), 1)
        assert.isAtMost(forwarder.most(), bound, `sockets open at once at the upstream`)
      }),
    60_000
  )
})
