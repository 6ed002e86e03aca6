/**
 * Streamable HTTP streams (DIGEST §9.3): the standalone GET stream, one stream per message,
 * event ids, resumption with `Last-Event-ID`, 2025-11-25 polling, disconnects.
 */
import { EventStore } from "@effect-mcp/server"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import {
  awaitDeferred,
  control,
  describeServers,
  eventually,
  Extra,
  freshKey,
  isDone,
  messagesOf,
  release,
  type SseEvent,
  SseReader,
  WireClient
} from "./utils/http.js"

const sameStream = (frames: ReadonlyArray<SseEvent>) =>
  new Set(frames.map((f) => EventStore.parseEventId(f.id!)!.streamId))

describeServers("Streamable HTTP: the GET stream", (start) => {
  it("needs a session (400), Accept text/event-stream (406), a live session (404)", async () => {
    const h = await start()
    const c = new WireClient(h)
    const none = await c.get()
    expect(none.status).toBe(400)
    expect((await none.json()).error).toBeDefined()
    await c.initialize()
    const json = await c.get({ headers: { accept: "application/json" } })
    expect(json.status).toBe(406)
    const id = c.sessionId!
    c.sessionId = "no-such-session"
    expect((await c.get()).status).toBe(404)
    c.sessionId = id
    const ok = await c.get()
    expect(ok.status).toBe(200)
    expect(ok.headers.get("content-type")).toMatch(/^text\/event-stream/)
  })

  it("carries notifications not tied to a request: tools/list_changed, resources/updated", async () => {
    const h = await start()
    const c = new WireClient(h)
    await c.initialize()
    const stream = new SseReader(await c.get())
    const priming = await stream.next()
    expect(priming?.id).toBeDefined()
    expect(priming?.data).toBe("")
    await h.run(h.server.addTool(Extra))
    expect(await stream.message()).toEqual({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })
    expect(await c.result("resources/subscribe", { uri: "test://doc" })).toEqual({})
    await h.run(h.server.resourceUpdated("test://doc"))
    expect(await stream.message()).toEqual({
      jsonrpc: "2.0",
      method: "notifications/resources/updated",
      params: { uri: "test://doc" }
    })
    // Not subscribed: nothing. Changes are sent in the order they happen: the next update the
    // stream carries is a later one of the subscribed resource.
    await h.run(h.server.resourceUpdated("test://other"))
    await h.run(h.server.resourceUpdated("test://doc"))
    expect(await stream.message()).toEqual({
      jsonrpc: "2.0",
      method: "notifications/resources/updated",
      params: { uri: "test://doc" }
    })
  })

  it("what comes while no GET is open is kept for it, bounded in characters (the oldest go first)", async () => {
    const h = await start({}, { testClock: true })
    const c = new WireClient(h)
    await c.initialize()
    expect(await c.result("resources/subscribe", { uri: "test://big/" })).toEqual({})
    // Three of about 100 KB each: the first does not fit beside the other two in 256 KiB.
    for (const n of [1, 2, 3]) await h.run(h.server.resourceUpdated(`test://big/${n}${"x".repeat(100_000)}`))
    // One longer than the whole bound is not kept at all.
    await h.run(h.server.resourceUpdated(`test://big/4${"x".repeat(300_000)}`))
    await h.run(h.server.resourceUpdated("test://big/5"))
    // Past the coalescing window, on the server's clock: the updates have been sent, to nobody yet (the
    // window's fiber hands them out in memory before the GET below can reach the server).
    await h.adjust("1 second")
    const stream = new SseReader(await c.get())
    await stream.next()
    const uris: Array<string> = []
    for (let i = 0; i < 3; i++) uris.push(((await stream.message()) as { params: { uri: string } }).params.uri)
    expect(uris.map((uri) => uri.slice(0, 12))).toEqual(["test://big/2", "test://big/3", "test://big/5"])
  })

  it("one standalone stream per session: a second GET → 409, a new one once the first is gone", async () => {
    const h = await start()
    const c = new WireClient(h)
    await c.initialize()
    const first = h.controller()
    const a = await c.get({ signal: first.signal })
    expect(a.status).toBe(200)
    const b = await c.get()
    expect(b.status).toBe(409)
    expect((await b.json()).error).toBeDefined()
    first.abort()
    await h.dropped()
    let again: Response | undefined
    await eventually(async () => (again = await c.get()).status === 200, undefined, 20)
    expect(again?.status).toBe(200)
  })

  it("standaloneStream: false → 405", async () => {
    const h = await start({ standaloneStream: false })
    const c = new WireClient(h)
    await c.initialize()
    const response = await c.get()
    expect(response.status).toBe(405)
    expect(response.headers.get("allow")).toMatch(/POST/)
  })

  it("each message goes to exactly one stream", async () => {
    const h = await start()
    const c = new WireClient(h)
    await c.initialize()
    const standalone = new SseReader(await c.get())
    await standalone.next() // priming
    // A request's progress and result stay on its own stream...
    const key = freshKey()
    const call = new SseReader(await c.callTool("controlled", { key }, "tok", "c1"))
    await call.next() // priming
    expect((await call.message()).params.progress).toBe(1)
    // ...a change not tied to it goes to the standalone stream only...
    await h.run(h.server.addTool(Extra))
    expect((await standalone.message()).method).toBe("notifications/tools/list_changed")
    release(key)
    const rest = messagesOf(await call.rest())
    expect(rest.map((m) => m.method ?? m.id)).toEqual(["notifications/progress", "notifications/progress", "c1"])
    // ...and the standalone stream saw nothing of the request: the next thing on it is a later change.
    const progress = await c.callTool("progress", {}, "p")
    expect(messagesOf(await new SseReader(progress).rest()).length).toBe(4)
    await h.run(h.server.removeTool("extra"))
    expect(await standalone.message()).toEqual({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })
  })

  it("event ids are unique in the session and name their stream", async () => {
    const h = await start()
    const c = new WireClient(h)
    await c.initialize()
    const standalone = new SseReader(await c.get())
    const framesA = await new SseReader(await c.callTool("progress", {}, "a")).rest()
    const framesB = await new SseReader(await c.callTool("progress", {}, "b")).rest()
    await h.run(h.server.addTool(Extra))
    const framesS = [await standalone.next(), await standalone.next()] as Array<SseEvent>
    const all = [...framesA, ...framesB, ...framesS]
    expect(all.every((f) => f.id !== undefined && EventStore.parseEventId(f.id) !== undefined)).toBe(true)
    expect(new Set(all.map((f) => f.id)).size).toBe(all.length)
    const streams = [framesA, framesB, framesS].map(sameStream)
    for (const s of streams) expect(s.size).toBe(1)
    expect(new Set(streams.flatMap((s) => [...s])).size).toBe(3)
    // Positions grow within a stream.
    const seqs = framesA.map((f) => EventStore.parseEventId(f.id!)!.seq)
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y))
  })
})

describeServers("Streamable HTTP: resumption", (start) => {
  describe("Streamable HTTP: request ids", () => {
    it("an id still in flight is refused with -32600 and the first request keeps its stream", async () => {
      const h = await start()
      const c = new WireClient(h)
      await c.initialize()
      const key = freshKey()
      const reader = new SseReader(
        await c.send(
          "tools/call",
          { name: "controlled", arguments: { key, before: 1 }, _meta: { progressToken: 1 } },
          "dup"
        )
      )
      expect((await reader.message()).params.progress).toBe(1)
      const second = await c.send("ping", {}, "dup")
      expect(second.status).toBe(400)
      const body = await second.json()
      expect(body.id).toBe("dup")
      expect(body.error.code).toBe(-32600)
      const cancelled = await c.notify("notifications/cancelled", { requestId: "dup" })
      expect(cancelled.status).toBe(202)
      await awaitDeferred(control(key).interrupted, 5000, "the tool to be interrupted")
    })
  })

  const resume = (c: WireClient, lastEventId: string) => c.get({ headers: { "last-event-id": lastEventId } })

  for (const when of ["after the tool finished", "while the tool still runs"] as const) {
    it(`a dropped SSE response resumes with Last-Event-ID ${when}: the rest, once, and nothing else`, async () => {
      const h = await start({}, { testClock: true })
      const c = new WireClient(h)
      await c.initialize()
      const key = freshKey()
      const aborter = h.controller()
      const response = await c.send(
        "tools/call",
        {
          name: "controlled",
          arguments: { key, before: 2, after: 3 },
          _meta: { progressToken: "tok" }
        },
        "call",
        aborter.signal
      )
      const reader = new SseReader(response)
      const seen = [await reader.next(), await reader.next()] as Array<SseEvent> // priming, progress 1
      expect(JSON.parse(seen[1].data!).params.progress).toBe(1)
      aborter.abort()
      await h.dropped() // the server saw the drop
      // Other streams go on meanwhile: another request, a standalone notification.
      expect(messagesOf(await new SseReader(await c.callTool("progress", {}, "other")).rest()).length).toBe(4)
      await h.run(h.server.addTool(Extra))
      // However long the client stays away (a minute of the server's clock), the tool runs on.
      await h.adjust("1 minute")
      expect((await c.send("ping")).status).toBe(200)
      expect(isDone(control(key).interrupted)).toBe(false)
      let frames: Array<SseEvent>
      if (when === "after the tool finished") {
        release(key)
        await awaitDeferred(control(key).done)
        const resumed = await resume(c, seen[1].id!)
        expect(resumed.status).toBe(200)
        expect(resumed.headers.get("content-type")).toMatch(/^text\/event-stream/)
        frames = await new SseReader(resumed).rest()
      } else {
        const resumed = await resume(c, seen[1].id!)
        expect(resumed.status).toBe(200)
        const reader2 = new SseReader(resumed)
        const firstReplayed = await reader2.next() // progress 2 was sent before the drop was noticed
        release(key)
        frames = [firstReplayed!, ...await reader2.rest()]
      }
      const messages = messagesOf(frames)
      expect(messages.map((m) => m.params?.progress ?? m.id)).toEqual([2, 3, 4, 5, "call"])
      expect(messages[4].result.content[0].text).toBe(`done ${key}`)
      expect(sameStream(frames)).toEqual(sameStream([seen[1]]))
      expect(new Set(frames.map((f) => f.id)).size).toBe(frames.length)
    })
  }

  it("resuming from the priming event replays the whole stream; an unknown stream is an error, not silence", async () => {
    const h = await start()
    const c = new WireClient(h)
    await c.initialize()
    const frames = await new SseReader(await c.callTool("progress", {}, "t", "p")).rest()
    const replayed = await new SseReader(await resume(c, frames[0].id!)).rest()
    expect(replayed).toEqual(frames.slice(1))
    const unknown = await resume(c, EventStore.eventId("s999", 0))
    expect(unknown.status).toBe(400)
    expect(unknown.headers.get("content-type")).toMatch(/^application\/json/)
    const body = await unknown.json()
    expect(body.error.message).toMatch(/s999_0/)
    const invalid = await resume(c, "not-an-event-id")
    expect(invalid.status).toBe(400)
  })

  it("closeSseStream (2025-11-25 polling): retry, the stream ends, GET + Last-Event-ID delivers the result", async () => {
    const h = await start({ retry: "250 millis" })
    const c = new WireClient(h)
    await c.initialize()
    const key = freshKey()
    const response = await c.send("tools/call", {
      name: "controlled",
      arguments: { key, before: 1, after: 1, close: true },
      _meta: { progressToken: 9 }
    }, "poll")
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/)
    const frames = await new SseReader(response).rest()
    // priming, progress 1, then `retry` and the end (no result).
    expect(frames[0].data).toBe("")
    expect(JSON.parse(frames[1].data!).params.progress).toBe(1)
    const last = frames[frames.length - 1]
    expect(last.retry).toBe(250)
    expect(messagesOf(frames).some((m) => m.id === "poll")).toBe(false)
    expect(isDone(control(key).interrupted)).toBe(false)
    release(key)
    const lastId = [...frames].reverse().find((f) => f.id !== undefined)!.id!
    const resumed = messagesOf(await new SseReader(await resume(c, lastId)).rest())
    expect(resumed.map((m) => m.params?.progress ?? m.id)).toEqual([2, "poll"])
    expect(resumed[1].result.content[0].text).toBe(`done ${key}`)
  })

  it("closeSseStream before 2025-11-25 does nothing: the stream carries the result", async () => {
    const h = await start()
    const c = new WireClient(h, { version: "2025-06-18" })
    await c.initialize()
    const key = freshKey()
    const response = await c.send("tools/call", {
      name: "controlled",
      arguments: { key, before: 1, after: 0, close: true },
      _meta: { progressToken: 9 }
    }, "poll")
    const reader = new SseReader(response)
    expect((await reader.message()).params.progress).toBe(1)
    release(key)
    const frames = await reader.rest()
    expect(frames.some((f) => f.retry !== undefined)).toBe(false)
    expect(messagesOf(frames).map((m) => m.id)).toEqual(["poll"])
  })
})

describeServers("Streamable HTTP: a disconnect is not a cancellation", (start) => {
  it("an aborted POST's tool completes; its result comes by resumption", async () => {
    const h = await start({}, { testClock: true })
    const c = new WireClient(h)
    await c.initialize()
    const key = freshKey()
    const aborter = h.controller()
    const reader = new SseReader(
      await c.send(
        "tools/call",
        {
          name: "controlled",
          arguments: { key, before: 1, after: 0 },
          _meta: { progressToken: 1 }
        },
        "slow",
        aborter.signal
      )
    )
    const priming = await reader.next()
    expect(priming?.data).toBe("")
    aborter.abort()
    await h.dropped() // the server saw the drop
    // However long the client stays away (a minute of the server's clock), the tool runs on.
    await h.adjust("1 minute")
    expect((await c.send("ping")).status).toBe(200)
    expect(isDone(control(key).interrupted)).toBe(false)
    release(key)
    await awaitDeferred(control(key).done, 5000, "the tool to complete")
    expect(isDone(control(key).interrupted)).toBe(false)
    const resumed = messagesOf(await new SseReader(await resume(c, priming!.id!)).rest())
    // From the priming event: progress 1 (whether or not it reached the client before the abort), the result.
    expect(resumed.map((m) => m.method ?? m.id)).toEqual(["notifications/progress", "slow"])
    expect(resumed[1].result.content[0].text).toBe(`done ${key}`)
  })

  it("a POST aborted before any response byte: the tool still completes", async () => {
    const h = await start({}, { testClock: true })
    const c = new WireClient(h)
    await c.initialize()
    const key = freshKey()
    const aborter = h.controller()
    const pending = c.send(
      "tools/call",
      { name: "controlled", arguments: { key, before: 0, after: 0 } },
      "slow",
      aborter.signal
    )
      .catch((error) => error)
    await awaitDeferred(control(key).started)
    aborter.abort()
    expect(await pending).toBeInstanceOf(Error)
    await h.dropped() // the server saw the drop
    // However long the client stays away (a minute of the server's clock), the tool runs on.
    await h.adjust("1 minute")
    expect((await c.send("ping")).status).toBe(200)
    expect(isDone(control(key).interrupted)).toBe(false)
    release(key)
    await awaitDeferred(control(key).done)
    expect(isDone(control(key).interrupted)).toBe(false)
  })

  it("notifications/cancelled does interrupt it", async () => {
    const h = await start()
    const c = new WireClient(h)
    await c.initialize()
    const key = freshKey()
    const reader = new SseReader(
      await c.send("tools/call", {
        name: "controlled",
        arguments: { key, before: 1 },
        _meta: { progressToken: 1 }
      }, "to-cancel")
    )
    expect((await reader.message()).params.progress).toBe(1)
    const cancelled = await c.notify("notifications/cancelled", { requestId: "to-cancel", reason: "changed my mind" })
    expect(cancelled.status).toBe(202)
    await awaitDeferred(control(key).interrupted, 5000, "the tool to be interrupted")
    expect(isDone(control(key).done)).toBe(false)
    // No response follows for it: its stream ends with nothing more on it.
    expect(await reader.next()).toBeUndefined()
  })
})

const resume = (c: WireClient, lastEventId: string) => c.get({ headers: { "last-event-id": lastEventId } })

describeServers("Streamable HTTP: the event store across sessions", (start) => {
  const maxBytes = 256 * 1024
  /** The probe's request: a 2,000-character progress token on every one of its progress events. */
  const token = "t".repeat(2000)

  /** A call of `controlled` with `steps` progress events (each about 2.1 KB), run to its end: its frames. */
  const flood = async (c: WireClient, steps: number) => {
    const key = freshKey()
    release(key)
    const response = await c.send("tools/call", {
      name: "controlled",
      arguments: { key, before: steps, after: 0 },
      _meta: { progressToken: token }
    })
    return new SseReader(response).rest()
  }

  it("many sessions filling the store stay under maxBytes; kept events resume, evicted ones are refused", async () => {
    const memory = await Effect.runPromise(EventStore.makeMemory({ maxBytes }))
    const h = await start({}, { eventStore: Effect.succeed(memory) })
    // A client that streams little: priming, three progress events, its answer.
    const small = new WireClient(h)
    await small.initialize()
    const kept = await new SseReader(await small.callTool("progress", {}, "p", "small")).rest()
    expect(messagesOf(kept).length).toBe(4)
    // Twelve hostile sessions, each streaming about 105 KB: 1.3 MB wanted, a quarter of it allowed.
    const hostile: Array<{ readonly client: WireClient; readonly frames: Array<SseEvent> }> = []
    for (let i = 0; i < 12; i++) {
      const client = new WireClient(h)
      await client.initialize()
      const frames = await flood(client, 50)
      expect(messagesOf(frames).length).toBe(51)
      hostile.push({ client, frames })
      let data = 0
      for (const c of [small, ...hostile.map((s) => s.client)]) {
        for (const e of await h.store.held(c.sessionId!)) data += Buffer.byteLength(e.data)
      }
      expect(data).toBeLessThanOrEqual(maxBytes)
    }
    // The store's own count (data and the records holding it) is under the budget too.
    expect(await Effect.runPromise(memory.bytes())).toBeLessThanOrEqual(maxBytes)
    // The small session held less than its share: its whole stream resumes, from the priming event.
    const replayed = await new SseReader(await resume(small, kept[0].id!)).rest()
    expect(replayed).toEqual(kept.slice(1))
    // The first hostile session lost its oldest events: resuming from them is an error, not a gap.
    const first = hostile[0]
    const refused = await resume(first.client, first.frames[0].id!)
    expect(refused.status).toBe(400)
    expect((await refused.json()).error.message).toMatch(/no longer kept/)
    // Its newest events were kept: a resumption after the one before its answer gets the answer.
    const tail = await new SseReader(await resume(first.client, first.frames[first.frames.length - 2].id!)).rest()
    expect(tail).toEqual(first.frames.slice(-1))
    expect(messagesOf(tail)[0].result).toBeDefined()
  })
})

describeServers("Streamable HTTP: only streams a client can resume are stored", (start) => {
  it("2024-11-05 over Streamable HTTP: no event ids, nothing stored; 2025-03-26 resumes", async () => {
    const h = await start()
    const c = new WireClient(h, { version: "2024-11-05" })
    await c.initialize()
    expect(c.initializeResult.protocolVersion).toBe("2024-11-05")
    const frames = await new SseReader(await c.callTool("progress", {}, "p", "old")).rest()
    expect(messagesOf(frames).map((m) => m.params?.progress ?? m.id)).toEqual([1, 2, 3, "old"])
    expect(frames.filter((f) => f.id !== undefined)).toEqual([])
    expect(h.store.streams.get(c.sessionId!)).toBeUndefined()
    // Nothing to resume: a Last-Event-ID is refused, not answered with an empty stream.
    expect((await resume(c, EventStore.eventId("s1", 0))).status).toBe(400)
    // The first revision with resumption, on the same server: ids, stored, resumed.
    const resumable = new WireClient(h, { version: "2025-03-26" })
    await resumable.initialize()
    const kept = await new SseReader(await resumable.callTool("progress", {}, "p", "new")).rest()
    expect(kept.every((f) => f.id !== undefined)).toBe(true)
    expect(await new SseReader(await resume(resumable, kept[0].id!)).rest()).toEqual(kept.slice(1))
  })
})
