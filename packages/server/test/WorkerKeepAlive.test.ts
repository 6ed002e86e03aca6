/**
 * A 2026-07-28 listen served as on a Cloudflare Worker (`navigator.userAgent` "Cloudflare-Workers",
 * stubbed here on Node), at the wire through `HttpTransport.makeWebHandler`, on a `TestClock`: the
 * listen has a keep-alive of its own (a sleep of its own on the clock, the comment every 15
 * seconds, and not a second one from the handler's sweep), which ends with the listen.
 *
 * On a Worker a timer belongs to the request that set it: the handler's sweep sleeps on a timer of
 * the request that built the server, gone with it, and a listen with no timer of its own pending is
 * cancelled by workerd as hung (test/runtimes/Workerd.test.ts runs the real thing). Before: a listen
 * had no timer of its own (the sleeps did not change when it opened).
 */
import { statelessHeaders } from "@effect-mcp/test-support/HttpWire"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Scope from "effect/Scope"
import * as TestClock from "effect/TestClock"
import * as TestContext from "effect/TestContext"
import { onTestFinished, vi } from "vitest"
import * as HttpTransport from "../src/HttpTransport.js"
import * as McpServer from "../src/McpServer.js"

const V = "2026-07-28"

const listen = () =>
  new Request("http://localhost/mcp", {
    method: "POST",
    headers: statelessHeaders("subscriptions/listen", undefined),
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "subscriptions/listen",
      params: {
        notifications: { toolsListChanged: true },
        _meta: {
          "io.modelcontextprotocol/protocolVersion": V,
          "io.modelcontextprotocol/clientCapabilities": {},
          "io.modelcontextprotocol/clientInfo": { name: "worker-test", version: "1.0.0" }
        }
      }
    })
  })

describe("a listen as on a Worker", () => {
  it("has a keep-alive of its own on the clock, one comment every 15 seconds, that ends with it", async () => {
    vi.stubGlobal("navigator", { userAgent: "Cloudflare-Workers" })
    onTestFinished(() => void vi.unstubAllGlobals())
    const runtime = ManagedRuntime.make(
      McpServer.layer({ serverInfo: { name: "worker-keep-alive", version: "1.0.0" }, revisions: [V] }).pipe(
        Layer.provideMerge(TestContext.TestContext)
      )
    )
    const scope = await runtime.runPromise(Scope.make())
    onTestFinished(async () => {
      await runtime.runPromise(Scope.close(scope, Exit.void))
      await runtime.dispose()
    })
    const handler = await runtime.runPromise(Scope.extend(HttpTransport.makeWebHandler(), scope))
    const sleeps = () => runtime.runPromise(Effect.map(TestClock.sleeps(), Chunk.size))
    const before = await sleeps()

    const response = await handler(listen())
    expect(response.headers.get("content-type")).toBe("text/event-stream")
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
    let heard = ""
    const count = (text: string) => heard.split(text).length - 1
    /** Reads until `text` was heard `times` times, or the stream ends: whether it was. */
    const until = async (text: string, times: number) => {
      while (count(text) < times) {
        const next = await reader.read()
        if (next.done) return false
        heard += next.value
      }
      return true
    }
    expect(await until("notifications/subscriptions/acknowledged", 1)).toBe(true)
    // Its own sleep, besides the handler's.
    expect(await sleeps()).toBe(before + 1)

    for (const times of [1, 2]) {
      await runtime.runPromise(TestClock.adjust("15 seconds"))
      expect(await until(": keep-alive", times)).toBe(true)
    }
    // Closed by the server: its answer ends the stream; two comments in all (none from the sweep).
    await runtime.runPromise(Effect.flatMap(McpServer.McpServer, (server) => server.closeAllSubscriptions))
    expect(await until("never", 1)).toBe(false)
    expect(heard).toContain(`"id":1`)
    expect(count(": keep-alive")).toBe(2)
    // Its sleep was interrupted (the clock forgets it once its time is past): no new one.
    await runtime.runPromise(TestClock.adjust("15 seconds"))
    expect(await sleeps()).toBe(before)
  })
})
