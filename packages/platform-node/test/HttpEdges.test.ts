/**
 * Streamable HTTP sessions (sessions.ts, streamable.ts): POSTs that never end, frames
 * that are never delivered, sessions that expire while active.
 */
import { EventStore } from "@effect-mcp/server"
import { Tool } from "@effect-mcp/server"
import { expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import {
  ACCEPT,
  awaitDeferred,
  control,
  describeServers,
  eventually,
  Extra,
  freshKey,
  type Harness,
  messagesOf,
  readAll,
  release,
  type SseEvent,
  SseReader,
  WireClient
} from "./utils/http.js"

const initializeBody = (protocolVersion: string, id: string | number = 1) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion, capabilities: {}, clientInfo: { name: "wire-test", version: "0.0.1" } }
})

/** A POST that must be answered within `ms`; rejects with a readable message otherwise. */
const answeredWithin = async (c: WireClient, body: unknown, ms = 3000, what = "the POST"): Promise<Array<any>> => {
  const signal = AbortSignal.timeout(ms)
  try {
    const response = await c.post(body, { signal })
    const type = response.headers.get("content-type") ?? ""
    if (type.startsWith("text/event-stream")) return messagesOf(await new SseReader(response).rest(ms))
    const text = await response.text()
    return text === "" ? [] : [JSON.parse(text)]
  } catch (error) {
    throw new Error(`${what} was not answered within ${ms} ms (${String(error)})`)
  }
}

/** Lets `ms` of the server's TestClock pass in `step` ms steps (each sweep gets its tick). */
const elapse = async (h: Harness, ms: number, step = 50) => {
  for (let t = 0; t < ms; t += step) await h.adjust(`${step} millis`)
}

describeServers("2025-03-26 batches over Streamable HTTP", (start) => {
  it("a batch sent before notifications/initialized was processed ([initialized, ping]) is answered", async () => {
    const h = await start()
    const c = new WireClient(h, { version: "2025-03-26" })
    const init = await c.post(initializeBody("2025-03-26"))
    expect(init.status).toBe(200)
    c.sessionId = init.headers.get("mcp-session-id")!
    // 2025-03-26 lets the client batch notifications/initialized with its first requests.
    const messages = await answeredWithin(
      c,
      [
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { jsonrpc: "2.0", id: "p", method: "ping" }
      ],
      3000,
      "the batch [notifications/initialized, ping]"
    )
    expect(messages.flat().some((m) => m.id === "p")).toBe(true)
  })

  it("a batch with the same id twice ends its response", async () => {
    const h = await start()
    const c = new WireClient(h, { version: "2025-03-26" })
    await c.initialize()
    const messages = await answeredWithin(
      c,
      [
        { jsonrpc: "2.0", id: "d", method: "ping" },
        { jsonrpc: "2.0", id: "d", method: "ping" }
      ],
      3000,
      "the batch [ping d, ping d]"
    )
    expect(messages.length).toBeGreaterThan(0)
  })

  it("a batch that cancels its own request ends its response", async () => {
    const h = await start()
    const c = new WireClient(h, { version: "2025-03-26" })
    await c.initialize()
    const key = freshKey()
    const pending = answeredWithin(
      c,
      [
        { jsonrpc: "2.0", id: "c", method: "tools/call", params: { name: "controlled", arguments: { key } } },
        { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "c" } }
      ],
      3000,
      "the batch [tools/call c, notifications/cancelled c]"
    )
    await awaitDeferred(control(key).interrupted, 3000, "the cancelled tool to be interrupted")
    await pending
  })

  it("a batch of invalid requests is answered with their errors on its own response (not an empty 202)", async () => {
    const h = await start()
    const c = new WireClient(h, { version: "2025-03-26" })
    await c.initialize()
    const response = await c.post([{ jsonrpc: "2.0", id: 7, method: 42 }, { foo: 1 }])
    const body = await response.text()
    expect({ status: response.status, body }).not.toEqual({ status: 202, body: "" })
  })

  it("an id-less error of a batch never travels on the GET stream (which must not carry responses)", async () => {
    const h = await start()
    const c = new WireClient(h, { version: "2025-03-26" })
    await c.initialize()
    // The GET stream is open (its headers go out at once) before the batch is sent.
    const get = await c.get()
    expect(get.status).toBe(200)
    const stream = new SseReader(get)
    const response = await c.post([{ foo: 1 }])
    // The error is the batch's answer, on its own response.
    expect(await readAll(response)).toEqual([
      { jsonrpc: "2.0", id: null, error: expect.objectContaining({ code: -32600 }) }
    ])
    // Then a list change, which the GET stream must carry: whatever the batch sent there came before it.
    await h.run(h.server.addTool(Extra))
    expect(await stream.message()).toEqual({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })
  })
})

describeServers("the standalone GET stream", (start) => {
  it("a GET resumed with Last-Event-ID gets what was sent while no GET was open", async () => {
    const h = await start()
    const c = new WireClient(h) // 2025-11-25: the GET stream is primed
    await c.initialize()
    // A session begun later, its GET stream open: it hears of a change once the server told `c` too
    // (the change goes to the sessions in the order they began).
    const witness = new WireClient(h)
    await witness.initialize()
    const witnessed = new SseReader(await witness.get())
    expect((await witnessed.next())?.id).toBeDefined()
    const aborter = h.controller()
    const first = new SseReader(await c.get({ signal: aborter.signal }))
    const priming = await first.next()
    expect(priming?.id).toBeDefined()
    aborter.abort()
    await h.dropped()
    // While the client reconnects, the tool list changes.
    await h.run(h.server.addTool(Extra))
    expect((await witnessed.message()).method).toBe("notifications/tools/list_changed")
    const resumed = await c.get({ headers: { "last-event-id": priming!.id! } })
    expect(resumed.status).toBe(200)
    expect((await new SseReader(resumed).message()).method).toBe("notifications/tools/list_changed")
  })
})

describeServers("maxRequestDuration and resumption", (start) => {
  it("2025-11-25 polling: a request over its maximum duration is answered on resumption, not lost", async () => {
    const h = await start({ maxRequestDuration: "1 second", sessionIdleTimeout: "1 minute" }, { testClock: true })
    const c = new WireClient(h)
    await c.initialize()
    const key = freshKey()
    // The tool closes its stream at once (polling) and runs on.
    const frames = await new SseReader(
      await c.send("tools/call", {
        name: "controlled",
        arguments: { key, before: 0, close: true }
      }, "long")
    ).rest()
    const lastId = [...frames].reverse().find((f) => f.id !== undefined)!.id!
    await elapse(h, 2500, 250)
    await awaitDeferred(control(key).interrupted, 5000, "the request to be interrupted after maxRequestDuration")
    const resumed = messagesOf(await new SseReader(await c.get({ headers: { "last-event-id": lastId } })).rest(2000))
    // The client polls for its answer: it must learn that the request failed.
    expect(resumed.some((m) => m.id === "long" && m.error !== undefined)).toBe(true)
  })
})

describeServers("idle expiry", (start) => {
  it("a session whose long request just finished is not expired at the next sweep", async () => {
    const h = await start({ sessionIdleTimeout: "500 millis" }, { testClock: true })
    const c = new WireClient(h)
    await c.initialize()
    const key = freshKey()
    const call = c.callTool("controlled", { key, before: 0, after: 0 }, undefined, "long")
    await awaitDeferred(control(key).started)
    // The request runs for 2 seconds: the session is active all along.
    await elapse(h, 2000, 100)
    release(key)
    const response = await call
    expect(response.status).toBe(200)
    await response.text()
    // 300 ms after its last answer (a sweep runs every 250 ms) the session is not idle for 500 ms.
    await elapse(h, 300, 50)
    expect((await c.send("ping")).status).toBe(200)
  })
})

describeServers("standaloneStream: false", (start) => {
  it("2025-11-25 polling still needs GET + Last-Event-ID to deliver a closed stream's result", async () => {
    const h = await start({ standaloneStream: false, retry: "100 millis" })
    const c = new WireClient(h)
    await c.initialize()
    const key = freshKey()
    const frames = await new SseReader(
      await c.send("tools/call", { name: "controlled", arguments: { key, before: 0, after: 0, close: true } }, "p")
    ).rest()
    release(key)
    await awaitDeferred(control(key).done)
    const lastId = [...frames].reverse().find((f) => f.id !== undefined)!.id!
    const resumed = await c.get({ headers: { "last-event-id": lastId, accept: ACCEPT } })
    expect(resumed.status).toBe(200)
    expect(messagesOf(await new SseReader(resumed).rest()).some((m) => m.id === "p")).toBe(true)
  })
})

describeServers("an SSE response's headers go out when it opens", (start) => {
  for (const version of ["2025-03-26", "2025-06-18"]) {
    it(`${version}: a GET stream with nothing to send yet still answers 200 + text/event-stream at once`, async () => {
      // On a TestClock: no keep-alive ever flushes withheld headers, so "at once" needs no clock of
      // ours; 20 s only bound headers that never come.
      const h = await start({}, { testClock: true })
      const c = new WireClient(h, { version })
      await c.initialize()
      const response = await Promise.race([
        c.get(),
        new Promise<"no headers">((resolve) => setTimeout(() => resolve("no headers"), 20_000))
      ])
      expect(response).not.toBe("no headers")
      expect((response as Response).headers.get("content-type")).toMatch(/^text\/event-stream/)
    })
  }
})

describeServers("a resumption whose client left while the store answered", (start) => {
  it("the standalone channel is not left holding a dead stream (no 409 forever, the session can idle)", async () => {
    // A shared store (Redis, say) that answers `after` only once the test lets it.
    const asked = Effect.runSync(Deferred.make<void>())
    const gate = Effect.runSync(Deferred.make<void>())
    const answered = Effect.runSync(Deferred.make<void>())
    const slow = Effect.map(EventStore.makeMemory(), (memory): EventStore.Service => ({
      ...memory,
      after: (sessionId, lastEventId) =>
        Effect.zipRight(Deferred.succeed(asked, undefined), Deferred.await(gate)).pipe(
          Effect.zipRight(memory.after(sessionId, lastEventId)),
          Effect.ensuring(Deferred.succeed(answered, undefined))
        )
    }))
    const h = await start({}, { eventStore: slow })
    const c = new WireClient(h)
    await c.initialize()
    const first = h.controller()
    const priming = await new SseReader(await c.get({ signal: first.signal })).next()
    first.abort()
    await h.dropped(1)
    // The client resumes, then gives up before the store answered.
    const second = h.controller()
    const resumed = c.get({ headers: { "last-event-id": priming!.id! }, signal: second.signal }).catch(() => undefined)
    await awaitDeferred(asked, 5000, "the store to be asked for the replay")
    second.abort()
    await resumed
    await h.dropped(2)
    // The server saw the client leave; now the store answers.
    Effect.runSync(Deferred.succeed(gate, undefined))
    await awaitDeferred(answered, 5000, "the store's answer")
    // Nobody listens on the standalone stream: a new GET may open it (once the server is past the
    // store's answer, which nothing announces).
    let again: Response | undefined
    await eventually(
      async () => {
        again = await c.get()
        if (again.status !== 200) await again.body?.cancel()
        return again.status === 200
      },
      5000,
      10
    )
    expect(again?.status).toBe(200)
  })
})

describeServers("maxRequestDuration in a 2025-03-26 batch", (start) => {
  it("every request of the batch that ran too long gets its error, in one array", async () => {
    const h = await start({ maxRequestDuration: "1 second", sessionIdleTimeout: "1 minute" }, { testClock: true })
    const c = new WireClient(h, { version: "2025-03-26" })
    await c.initialize()
    const [k1, k2] = [freshKey(), freshKey()]
    const pending = c.post([
      {
        jsonrpc: "2.0",
        id: "a",
        method: "tools/call",
        params: { name: "controlled", arguments: { key: k1, before: 0 } }
      },
      {
        jsonrpc: "2.0",
        id: "b",
        method: "tools/call",
        params: { name: "controlled", arguments: { key: k2, before: 0 } }
      }
    ])
    await awaitDeferred(control(k1).started)
    await awaitDeferred(control(k2).started)
    await elapse(h, 2500, 250)
    const response = await pending
    const body = await response.json()
    expect(Array.isArray(body) ? body.map((m: any) => m.id).sort() : body).toEqual(["a", "b"])
  })
})

describeServers("event ids of the standalone stream", (start) => {
  it("each GET's priming event has an id of its own: resuming from the second one replays nothing of the first", async () => {
    const h = await start()
    const c = new WireClient(h)
    await c.initialize()
    const firstAborter = h.controller()
    const first = new SseReader(await c.get({ signal: firstAborter.signal }))
    const firstPriming = await first.next()
    await h.run(h.server.addTool(Extra))
    const notified = await first.next()
    expect(JSON.parse(notified!.data!).method).toBe("notifications/tools/list_changed")
    firstAborter.abort()
    await h.dropped(1)
    const secondAborter = h.controller()
    const second = new SseReader(await c.get({ signal: secondAborter.signal }))
    const secondPriming = await second.next()
    secondAborter.abort()
    await h.dropped(2)
    // The client saw everything up to the second priming event: resuming from it replays nothing it had.
    const resumed = await c.get({ headers: { "last-event-id": secondPriming!.id! } })
    expect(resumed.status).toBe(200)
    const reader = new SseReader(resumed)
    // Then a change the client has not seen: what the resumed stream carries up to it was not sent before.
    await h.run(h.server.addTool(Tool.make("later", {}, () => Effect.succeed("later"))))
    const frames: Array<SseEvent> = []
    while (frames.at(-1)?.data === undefined || frames.at(-1)?.data === "") {
      const frame = await reader.next()
      if (frame === undefined) throw new Error("the resumed stream ended")
      frames.push(frame)
    }
    expect(JSON.parse(frames.at(-1)!.data!).method).toBe("notifications/tools/list_changed")
    expect(frames.map((f) => f.id)).not.toContain(firstPriming!.id)
    expect(frames.map((f) => f.id)).not.toContain(notified!.id)
    // Event ids are unique in the session (DIGEST §9.3).
    expect(secondPriming!.id).not.toBe(firstPriming!.id)
  })
})

/** Joins a worker fiber that was interrupted: the handler's cause is an interruption nobody asked for. */
const Joined = Tool.make("joined", {}, () =>
  Effect.gen(function*() {
    const worker = yield* Effect.fork(Effect.never)
    yield* Fiber.interrupt(worker)
    return yield* Fiber.join(worker)
  }))

describeServers("a handler that ends interrupted by itself", (start) => {
  it("its POST is answered", async () => {
    const h = await start()
    await h.run(h.server.addTool(Joined))
    const c = new WireClient(h)
    await c.initialize()
    const messages = await answeredWithin(
      c,
      {
        jsonrpc: "2.0",
        id: "j",
        method: "tools/call",
        params: { name: "joined", arguments: {} }
      },
      3000,
      "tools/call joined"
    )
    expect(messages.some((m) => m.id === "j")).toBe(true)
  })
})

describeServers("maxRequestDuration on legacy HTTP+SSE", (start) => {
  it("a legacy request running longer than maxRequestDuration is interrupted too", async () => {
    const h = await start({ maxRequestDuration: "1 second", sessionIdleTimeout: "1 minute" }, { testClock: true })
    const response = await fetch(`${h.origin}/sse`, {
      headers: { accept: "text/event-stream" },
      signal: h.controller().signal
    })
    const reader = new SseReader(response)
    const endpoint = await reader.next()
    const url = new URL(endpoint!.data!, h.origin)
    const post = (body: unknown) =>
      fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
    await post({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2024-11-05", capabilities: {}, clientInfo: { name: "legacy", version: "1" } }
    })
    await reader.message()
    await post({ jsonrpc: "2.0", method: "notifications/initialized" })
    const key = freshKey()
    expect(
      (await post({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "controlled", arguments: { key, before: 0 } }
      })).status
    ).toBe(202)
    await awaitDeferred(control(key).started)
    await elapse(h, 3000, 250)
    await awaitDeferred(control(key).interrupted, 2000, "the legacy request to be interrupted after maxRequestDuration")
  })
})
