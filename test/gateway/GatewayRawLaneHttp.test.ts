/**
 * The gateway's raw lane to an HTTP upstream (`McpClientTransport.HttpPoster`: a raw call POSTed
 * with undici's `request`, no fiber), at the wire: JSON text into `mcp gateway` over stdio, JSON
 * text out, in front of a hand-written Streamable HTTP upstream (`fixtures/lane-http.mjs`) that
 * writes a line for each POST it gets. What the lane must keep, against the same call on the
 * server's path (a call with `_meta` takes it) where both can be asked:
 *
 * - a JSON answer as it came, once (one POST); an SSE answer read as the full path reads it, its
 *   log on the call's stream;
 * - the upstream forgetting the session mid-run (404): the session renewed, the call sent again
 *   and answered once;
 * - a 401: not served, so sent again through the `HttpClient` (its `McpAuth`), the same error as
 *   the server's path; the headers the client holds (`authorization` of the config) go with it;
 * - a 500: the same error as the server's path;
 * - a cancel: the upstream is told, with the id it was sent;
 * - the upstream closing a kept-alive connection as the call arrives on it, with no byte of answer:
 *   the call's failure at once (-32603, with its id), never sent again: whether the upstream ran it
 *   cannot be told from the client (a POST is not idempotent: RFC 9110, 9.2.2); but a tool the
 *   upstream annotates `idempotentHint` or `readOnlyHint` is sent again once on another connection
 *   and answered (two POSTs), and failed if that one closes too (never a third).
 */
import { Services } from "@effect-mcp/test-support"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Programs from "../support/Programs.js"
import { Children, Lines, linesOf } from "./support.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const mcpMain = Programs.mcpMain
const fixture = path.join(root, "test/gateway/fixtures/lane-http.mjs")

type Json = Record<string, any>

/** The lane lines of a gateway once `n` of them have come (they reach stderr on their own; an answer on stdout can be read first), without `serving`. */
const laneSaw = async (lane: Lines<string>, n: number): Promise<Array<string>> => {
  const of = () => lane.seen.filter((l) => l !== "serving")
  await lane.until(`${n} lane lines`, () => of().length >= n || undefined)
  return of()
}

const call = (id: number, name: string, args?: Json, extra: Json = {}) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, ...(args !== undefined ? { arguments: args } : {}), ...extra }
})

/** The upstream (one of `children`), on a port of its own (its lines), and a gateway config naming it (with `headers`). */
const upstreamOf = async (children: Children, headers?: Record<string, string>) => {
  const upstream = children.spawn(process.execPath, [fixture], { stdio: ["ignore", "pipe", "inherit"] })
  const posts = new Lines(upstream)
  linesOf(upstream, "stdout", posts, (line) => JSON.parse(line))
  const port = await posts.until("the upstream's port", () => {
    const said = posts.seen[0]
    return typeof said === "string" ? Number(said.slice(5)) : undefined
  })
  posts.seen.shift()
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), "raw-lane-http-")), "gateway.json")
  const url = `http://127.0.0.1:${port}/mcp`
  writeFileSync(file, JSON.stringify({ mcpServers: { up: { url, ...(headers !== undefined ? { headers } : {}) } } }))
  return { posts, file }
}

/**
 * The upstream, and a gateway in front of it over stdio (`headers` of its config given, `flags` its
 * own); both stopped if either never becomes ready.
 */
const open = (headers?: Record<string, string>, flags: ReadonlyArray<string> = []) => {
  const children = new Children()
  return children.starting(async () => {
    const { file, posts } = await upstreamOf(children, headers)
    const gateway = children.spawn(process.execPath, [mcpMain, "gateway", "--config", file, ...flags], {
      cwd: root,
      env: { ...process.env, EFFECT_MCP_DEBUG_RELAY_LANE: "1" },
      stdio: ["pipe", "pipe", "pipe"]
    })
    const seen = new Lines<Json>(gateway)
    const lane = new Lines<string>(gateway)
    linesOf(gateway, "stdout", seen, (line) => JSON.parse(line))
    linesOf(gateway, "stderr", lane, (line) => /relay lane: tools\/call (\S+)/.exec(line)?.[1])
    const send = (message: Json) => void gateway.stdin!.write(JSON.stringify(message) + "\n")
    const answer = (id: number): Promise<Json> =>
      seen.until(`the answer to ${id}`, () => seen.seen.find((m) => m.id === id && !("method" in m)))
    send({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "lane-http", version: "1" } }
    })
    await answer(0)
    send({ jsonrpc: "2.0", method: "notifications/initialized" })
    // The upstream's tools are mirrored once listed.
    for (let id = 1_000;; id++) {
      send({ jsonrpc: "2.0", id, method: "tools/list" })
      if ((await answer(id)).result.tools.length > 0) break
      await posts.until(
        "the upstream's tools/list",
        () => posts.seen.some((p) => p.method === "tools/list") || undefined
      )
    }
    /** The upstream's lines for `tools/call` of `name`, from `from` on. */
    const callsOf = (name: string, from = 0) =>
      posts.seen.slice(from).filter((p) => p.method === "tools/call" && p.name === name)
    return { send, answer, posts, lane, seen, callsOf, stop: () => children.stop() }
  })
}

describe("the raw lane to an HTTP upstream", () => {
  it("relays a JSON answer with one POST, and reads an SSE answer as the full path does", async () => {
    const g = await open()
    try {
      g.send(call(1, "up_add", { a: 2, b: 3 }))
      expect((await g.answer(1)).result).toEqual({
        content: [{ type: "text", text: "5" }],
        structuredContent: { sum: 5 }
      })
      g.send(call(2, "up_sse", { a: 1, b: 1 }))
      expect((await g.answer(2)).result.structuredContent).toEqual({ sum: 2 })
      // Its log came on the call's own stream, before the answer.
      const log = g.seen.seen.findIndex((m) => m.method === "notifications/message" && m.params.data === "on its way")
      expect(log).toBeGreaterThanOrEqual(0)
      expect(log).toBeLessThan(g.seen.seen.findIndex((m) => m.id === 2))
      expect(await laneSaw(g.lane, 2)).toEqual(["up_add", "up_sse"])
      expect(g.callsOf("add").map((p) => p.status)).toEqual([200])
      expect(g.callsOf("sse").map((p) => p.status)).toEqual([200])
    } finally {
      g.stop()
    }
  }, 60_000)

  it("renews a session the upstream forgot mid-run, and sends the call again once", async () => {
    const g = await open()
    try {
      g.send(call(1, "up_forget"))
      await g.answer(1)
      const from = g.posts.seen.length
      g.send(call(2, "up_add", { a: 20, b: 22 }))
      expect((await g.answer(2)).result.structuredContent).toEqual({ sum: 42 })
      // Its first POST met the 404, a new session was opened, and it went again: answered once.
      expect(g.callsOf("add", from).map((p) => p.status)).toEqual([404, 200])
      expect(g.posts.seen.slice(from).some((p) => p.method === "initialize")).toBe(true)
      g.send(call(3, "up_add", { a: 1, b: 2 }))
      expect((await g.answer(3)).result.structuredContent).toEqual({ sum: 3 })
      expect(await laneSaw(g.lane, 3)).toEqual(["up_forget", "up_add", "up_add"])
    } finally {
      g.stop()
    }
  }, 60_000)

  it("answers a 401 and a 500 as the server's path does, and runs nothing twice", async () => {
    const g = await open()
    try {
      // The server's path (a call with `_meta`), then the lane: the same errors.
      g.send(call(1, "up_guarded", {}, { _meta: {} }))
      const full401 = (await g.answer(1)).error
      g.send(call(2, "up_broken", {}, { _meta: {} }))
      const full500 = (await g.answer(2)).error
      g.send(call(3, "up_broken", {}))
      const lane500 = (await g.answer(3)).error
      g.send(call(4, "up_guarded", {}))
      const lane401 = (await g.answer(4)).error
      expect(full401.code).toBeTypeOf("number")
      expect(lane401).toEqual(full401)
      expect(lane500).toEqual(full500)
      expect(await laneSaw(g.lane, 2)).toEqual(["up_broken", "up_guarded"])
      // The 500 was sent once by each path; the lane's 401 was not served, so sent again.
      expect(g.callsOf("broken").map((p) => p.status)).toEqual([500, 500])
      expect(g.callsOf("add")).toEqual([])
      g.send(call(5, "up_add", { a: 1, b: 1 }))
      expect((await g.answer(5)).result.structuredContent).toEqual({ sum: 2 })
      expect(g.callsOf("add").map((p) => p.status)).toEqual([200])
    } finally {
      g.stop()
    }
  }, 60_000)

  // A resend here once ran a tool twice upstream (the review's repro: an upstream that runs the call,
  // then drops the connection): a closed connection says nothing of whether the call ran.
  it(
    "fails a call at once, never sending it again, when the upstream closed its kept-alive connection under it",
    async () => {
      const g = await open()
      try {
        g.send(call(1, "up_drop"))
        await g.answer(1)
        g.send(call(2, "up_add", { a: 2, b: 2 }))
        const failed = (await g.answer(2)).error
        expect(failed.code).toBe(-32603)
        expect(failed.message).toContain("connection closed")
        expect(g.posts.seen.filter((p) => p.dropped !== undefined)).toEqual([{ dropped: "add" }])
        expect(g.callsOf("add")).toEqual([])
        // The lane goes on: the next call, on another connection, is answered.
        g.send(call(3, "up_add", { a: 1, b: 1 }))
        expect((await g.answer(3)).result.structuredContent).toEqual({ sum: 2 })
        expect(g.posts.seen.filter((p) => p.dropped !== undefined)).toEqual([{ dropped: "add" }])
        expect(await laneSaw(g.lane, 3)).toEqual(["up_drop", "up_add", "up_add"])
      } finally {
        g.stop()
      }
    },
    60_000
  )

  it(
    "sends a call of an idempotent or read-only tool again once when its kept-alive connection closed under it",
    async () => {
      const g = await open()
      try {
        const dropped = () => g.posts.seen.filter((p) => p.dropped !== undefined)
        g.send(call(1, "up_drop"))
        await g.answer(1)
        g.send(call(2, "up_idem", { a: 2, b: 2 }))
        expect((await g.answer(2)).result.structuredContent).toEqual({ sum: 4 })
        // Two POSTs: the one closed under it, unanswered, then one answered, with another id.
        expect(dropped()).toEqual([{ dropped: "idem" }])
        expect(g.callsOf("idem")).toEqual([
          { method: "tools/call", name: "idem", id: expect.any(Number), status: 200, auth: null }
        ])
        g.send(call(3, "up_drop"))
        await g.answer(3)
        g.send(call(4, "up_peek", { a: 1, b: 2 }))
        expect((await g.answer(4)).result.structuredContent).toEqual({ sum: 3 })
        expect(dropped()).toEqual([{ dropped: "idem" }, { dropped: "peek" }])
        expect(g.callsOf("peek").map((p) => p.status)).toEqual([200])
        // Closed again on the new connection: failed at once, never a third POST.
        g.send(call(5, "up_drop", { times: 2 }))
        await g.answer(5)
        g.send(call(6, "up_idem", { a: 1, b: 1 }))
        const failed = (await g.answer(6)).error
        expect(failed.code).toBe(-32603)
        expect(failed.message).toContain("connection closed")
        expect(dropped()).toEqual([{ dropped: "idem" }, { dropped: "peek" }, { dropped: "idem" }, { dropped: "idem" }])
        expect(g.callsOf("idem")).toHaveLength(1)
        expect(await laneSaw(g.lane, 6)).toEqual(["up_drop", "up_idem", "up_drop", "up_peek", "up_drop", "up_idem"])
      } finally {
        g.stop()
      }
    },
    60_000
  )

  it("sends the headers the client holds on a raw call", async () => {
    const g = await open({ authorization: "Bearer good" })
    try {
      g.send(call(1, "up_guarded", {}))
      expect((await g.answer(1)).result.content).toEqual([{ type: "text", text: "in" }])
      expect(g.callsOf("guarded")).toEqual([{
        method: "tools/call",
        name: "guarded",
        id: expect.any(Number),
        status: 200,
        auth: "Bearer good"
      }])
      expect(await laneSaw(g.lane, 1)).toEqual(["up_guarded"])
    } finally {
      g.stop()
    }
  }, 60_000)

  it("tells the upstream of a cancelled call, with the id it was sent", async () => {
    const g = await open()
    try {
      g.send(call(1, "up_hang"))
      await g.posts.until("the hang's POST", () => g.callsOf("hang").length > 0 || undefined)
      g.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1, reason: "stop" } })
      const told = await g.posts.until("the cancel upstream", () => g.posts.seen.find((p) => p.cancelled)?.cancelled)
      expect(told.reason).toBe("cancelled by the caller")
      g.send(call(2, "up_cancelled"))
      expect((await g.answer(2)).result.structuredContent).toEqual(told)
      expect(typeof told.requestId).toBe("number")
      expect(await laneSaw(g.lane, 2)).toEqual(["up_hang", "up_cancelled"])
      // Nothing answered the cancelled call.
      expect(g.seen.seen.some((m) => m.id === 1)).toBe(false)
    } finally {
      g.stop()
    }
  }, 60_000)

  it("tells the upstream of no cancel for a call whose POST never left (it waited for a connection)", async () => {
    // One connection for calls: the hang holds it, the calls after it wait in the pool.
    const g = await open(undefined, ["--max-connections", "1"])
    try {
      g.send(call(1, "up_hang"))
      const sent = await g.posts.until("the hang's POST", () => g.callsOf("hang")[0])
      const waiting = [2, 3, 4, 5, 6]
      for (const id of waiting) g.send(call(id, "up_hang"))
      expect(await laneSaw(g.lane, 6)).toEqual(Array(6).fill("up_hang"))
      // The calls that never left are cancelled first, then the one sent.
      for (const id of [...waiting, 1]) {
        g.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "stop" } })
      }
      await g.posts.until(
        "the sent call's cancel",
        () => g.posts.seen.some((p) => p.cancelled?.requestId === sent.id) || undefined
      )
      // A call after them all, answered by the upstream: the cancels posted before it have come.
      g.send(call(7, "up_add", { a: 1, b: 1 }))
      expect((await g.answer(7)).result.structuredContent).toEqual({ sum: 2 })
      // Before: a cancel for each of the six, five of them for requests the upstream never got.
      expect(g.posts.seen.filter((p) => p.cancelled).map((p) => p.cancelled.requestId)).toEqual([sent.id])
      expect(g.callsOf("hang").map((p) => p.id)).toEqual([sent.id])
      expect(g.seen.seen.some((m) => typeof m.id === "number" && m.id >= 1 && m.id <= 6)).toBe(false)
    } finally {
      g.stop()
    }
  }, 60_000)

  it("lets go of a cancelled call's POST once its answer came as an SSE stream", async () => {
    const g = await open()
    try {
      g.send(call(1, "up_ssehang"))
      // The stream is open and read: its log reached the client.
      await g.seen.until(
        "the stream's log",
        () =>
          g.seen.seen.some((m) => m.method === "notifications/message" && m.params.data === "streaming") || undefined
      )
      g.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1, reason: "stop" } })
      const told = await g.posts.until("the cancel upstream", () => g.posts.seen.find((p) => p.cancelled)?.cancelled)
      // The upstream ignores the cancel: the POST ends only because the gateway lets it go (before:
      // its stream was read on until the upstream ended it, holding a connection of the pool).
      await g.posts.until("the POST let go", () => g.posts.seen.some((p) => p.closed === told.requestId) || undefined)
      expect(await laneSaw(g.lane, 1)).toEqual(["up_ssehang"])
      expect(g.seen.seen.some((m) => m.id === 1 && !("method" in m))).toBe(false)
    } finally {
      g.stop()
    }
  }, 60_000)
})

/** The gateway over HTTP in front of the upstream: POSTs at the wire, the answers' texts; both stopped if either never becomes ready. */
const openHttp = () => {
  const children = new Children()
  return children.starting(async () => {
    const { file, posts } = await upstreamOf(children)
    const port = await Effect.runPromise(Services.freePort)
    const served = children.spawn(process.execPath, [mcpMain, "gateway", "--config", file, "--port", String(port)], {
      cwd: root,
      env: { ...process.env, EFFECT_MCP_DEBUG_RELAY_LANE: "1" },
      stdio: ["ignore", "ignore", "pipe"]
    })
    const lane = new Lines<string>(served)
    linesOf(
      served,
      "stderr",
      lane,
      (line) => line.includes("serving at") ? "serving" : /relay lane: tools\/call (\S+)/.exec(line)?.[1]
    )
    await lane.until("the gateway serving", () => lane.seen.includes("serving") || undefined)
    const url = `http://127.0.0.1:${port}/mcp`
    const post = async (body: string, headers: Record<string, string> = {}) => {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
        body
      })
      return { status: response.status, headers: response.headers, text: await response.text() }
    }
    const init = await post(JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "lane-http", version: "1" } }
    }))
    const session = { "mcp-session-id": init.headers.get("mcp-session-id")!, "mcp-protocol-version": "2025-11-25" }
    await post(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), session)
    for (let id = 1_000;; id++) {
      const listed = await post(JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list" }), session)
      if (JSON.parse(listed.text).result.tools.length > 0) break
      await posts.until(
        "the upstream's tools/list",
        () => posts.seen.some((p) => p.method === "tools/list") || undefined
      )
    }
    return { url, post, session, posts, lane, stop: () => children.stop() }
  })
}

describe("the raw lane over HTTP at both ends: the gateway's HTTP front holds for it", () => {
  it(
    "answers a call, and refuses a wrong Origin, an unknown session, a body over the limit and an id in flight",
    async () => {
      const g = await openHttp()
      const body = (id: number, name: string, args?: Json) => JSON.stringify(call(id, name, args))
      try {
        const ok = await g.post(body(1, "up_add", { a: 1, b: 2 }), g.session)
        expect(ok.status).toBe(200)
        expect(JSON.parse(ok.text).result.structuredContent).toEqual({ sum: 3 })
        // The front's refusals, before anything reaches the lane or the upstream.
        const origin = await g.post(body(2, "up_add", { a: 1, b: 1 }), { ...g.session, origin: "http://evil.example" })
        expect(origin.status).toBe(403)
        const unknown = await g.post(body(3, "up_add", { a: 1, b: 1 }), { ...g.session, "mcp-session-id": "nobody" })
        expect(unknown.status).toBe(404)
        const large = await g.post(body(4, "up_add", { a: 1, b: 1, pad: "x".repeat(5 * 1024 * 1024) }), g.session)
        expect(large.status).toBe(413)
        // An id in flight on the lane: refused as the engine refuses it, with its id.
        const hanging = g.post(body(5, "up_hang"), g.session)
        await g.posts.until("the hang upstream", () => g.posts.seen.some((p) => p.name === "hang") || undefined)
        const again = await g.post(body(5, "up_add", { a: 1, b: 1 }), g.session)
        expect(JSON.parse(again.text)).toEqual({
          jsonrpc: "2.0",
          id: 5,
          error: { code: -32600, message: "Invalid Request: id 5 is already in flight" }
        })
        await g.post(
          JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 5 } }),
          g.session
        )
        await hanging
        expect(g.posts.seen.filter((p) => p.name === "add").map((p) => p.status)).toEqual([200])
        expect(await laneSaw(g.lane, 2)).toEqual(["up_add", "up_hang"])
      } finally {
        g.stop()
      }
    },
    60_000
  )

  it("tells the upstream of a call whose client ended its session mid-call", async () => {
    const g = await openHttp()
    try {
      const hanging = g.post(JSON.stringify(call(1, "up_hang")), g.session).catch(() => undefined)
      await g.posts.until("the hang upstream", () => g.posts.seen.some((p) => p.name === "hang") || undefined)
      const ended = await fetch(g.url, { method: "DELETE", headers: g.session })
      expect(ended.status).toBe(200)
      const told = await g.posts.until("the cancel upstream", () => g.posts.seen.find((p) => p.cancelled)?.cancelled)
      expect(told.reason).toBe("cancelled by the caller")
      expect(typeof told.requestId).toBe("number")
      await hanging
      expect(await laneSaw(g.lane, 1)).toEqual(["up_hang"])
    } finally {
      g.stop()
    }
  }, 60_000)
})
