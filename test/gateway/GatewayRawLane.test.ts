/**
 * The gateway's raw lane (`RelayTable`, `apps/cli/src/internal/rawLane.ts`), at the wire: JSON text
 * into `mcp gateway` (over stdio, and over HTTP), JSON text out, in front of a hand-written upstream
 * (`fixtures/lane-server.mjs`). `EFFECT_MCP_DEBUG_RELAY_LANE=1` makes the gateway write a line to
 * stderr for each call the lane takes. A plain call takes it (this failed before: there was no
 * lane) and keeps what the server's path promised:
 *
 * - the result as the upstream gave it (`isError`, `structuredContent`), its links under the
 *   upstream's name, a policy's renamed tool with its fixed and default arguments, no `_meta`
 *   added upstream;
 * - a `notifications/cancelled` reaches the upstream, and nothing answers the call;
 * - the upstream killed (SIGKILL) mid-call: that call fails at once with a JSON-RPC error;
 * - a call with a progress token, or of a 2026-07-28 request, takes the server's path (no lane
 *   line) and gets its progress.
 */
import { Services } from "@effect-mcp/test-support"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { ChildProcess } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as readline from "node:readline"
import { fileURLToPath } from "node:url"
import * as Programs from "../support/Programs.js"
import { Children, Lines } from "./support.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const mcpMain = Programs.mcpMain
const fixture = path.join(root, "test/gateway/fixtures/lane-server.mjs")

const config = () => {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), "raw-lane-")), "gateway.json")
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: {
        lane: {
          command: process.execPath,
          args: [fixture],
          tools: { rename: { args: "echo" }, fixed: { args: { fixed: 1 } }, defaults: { args: { given: 2 } } }
        }
      }
    })
  )
  return file
}

type Json = Record<string, any>

/** What a gateway wrote: its messages (stdio) and its stderr's lane lines, each awaited as it comes (`Lines`). */
class Watched extends Lines<Json> {
  readonly lane: Array<string> = []
  constructor(readonly child: ChildProcess) {
    super(child)
    readline.createInterface({ input: child.stderr! }).on("line", (line) => {
      const m = /relay lane: tools\/call (\S+)/.exec(line)
      if (m !== null) this.lane.push(m[1]!)
      this.wake()
    })
  }
  answer(id: number) {
    return this.until(`the answer to ${id}`, () => this.seen.find((m) => m.id === id && !("method" in m)))
  }
  laneLines(n: number) {
    return this.until(
      `${n} lane lines (lane ${this.lane})`,
      () => this.lane.length >= n ? this.lane.slice() : undefined
    )
  }
}

const call = (id: number, name: string, args?: Json, extra: Json = {}) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, ...(args !== undefined ? { arguments: args } : {}), ...extra }
})
const initialize = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw-lane", version: "1.0.0" } }
}
const initialized = { jsonrpc: "2.0", method: "notifications/initialized" }
const cancelled = (requestId: number) => ({
  jsonrpc: "2.0",
  method: "notifications/cancelled",
  params: { requestId, reason: "the user stopped it" }
})

const freePort = () => Effect.runPromise(Services.freePort)

const env = { ...process.env, EFFECT_MCP_DEBUG_RELAY_LANE: "1" }

/** A downstream client of the gateway, at the wire: over stdio, or over HTTP (one session). */
interface Wire {
  readonly watched: Watched
  readonly send: (message: Json) => void
  readonly stop: () => void
}

/** The gateway over stdio, initialized (with `children`: stopped with them; else its own), stopped if it never answers. */
const overStdio = (args = ["gateway", "--config", config()], children = new Children()): Promise<Wire> =>
  children.starting(async () => {
    const child = children.spawn(process.execPath, [mcpMain, ...args], {
      cwd: root,
      env,
      stdio: ["pipe", "pipe", "pipe"]
    })
    const watched = new Watched(child)
    readline.createInterface({ input: child.stdout! }).on("line", (line) => watched.push(JSON.parse(line)))
    const send = (message: Json) => void child.stdin!.write(JSON.stringify(message) + "\n")
    send(initialize)
    await watched.answer(0)
    send(initialized)
    return { watched, send, stop: () => children.stop() }
  })

/** The gateway over HTTP, one session initialized; stopped if it never serves. */
const overHttp = (): Promise<Wire> => {
  const children = new Children()
  return children.starting(async () => {
    const port = await freePort()
    const child = children.spawn(process.execPath, [mcpMain, "gateway", "--config", config(), "--port", String(port)], {
      cwd: root,
      env,
      stdio: ["ignore", "ignore", "pipe"]
    })
    const watched = new Watched(child)
    let serving = false
    readline.createInterface({ input: child.stderr! }).on("line", (line) => {
      if (line.includes("mcp gateway: serving at")) serving = true
      watched.wake()
    })
    await watched.until("the gateway serving", () => serving || undefined)
    const url = `http://127.0.0.1:${port}/mcp`
    let session: string | undefined
    const post = async (message: Json) => {
      // A 2026-07-28 request: no session, and the headers that repeat its body.
      const modern = message.params?._meta?.["io.modelcontextprotocol/protocolVersion"] === "2026-07-28"
      const response = await fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(modern
            ? { "mcp-protocol-version": "2026-07-28", "mcp-method": message.method, "mcp-name": message.params.name }
            : session !== undefined
            ? { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" }
            : {})
        },
        body: JSON.stringify(message)
      })
      session ??= response.headers.get("mcp-session-id") ?? undefined
      const body = await response.text()
      if (body === "") return
      // A JSON body, or a stream's events (the first, priming one, empty).
      const messages = response.headers.get("content-type")?.includes("text/event-stream")
        ? body.split("\n").filter((l) => l.startsWith("data:") && l.length > 6).map((l) => JSON.parse(l.slice(5)))
        : [JSON.parse(body)]
      for (const m of messages) watched.push(m)
    }
    await post(initialize)
    await post(initialized)
    return {
      watched,
      // Each POST waits on its answer without holding up the next one (a cancel comes while a call waits).
      send: (message) => void post(message).catch(() => {}),
      stop: () => children.stop()
    }
  })
}

describe.each([["stdio", () => overStdio()], ["HTTP", overHttp]] as const)("the raw lane over %s", (_, open) => {
  it("relays a plain call as the upstream answered it, and a renamed tool with its policy's arguments", async () => {
    const { send, stop, watched } = await open()
    try {
      send(call(1, "lane_add", { a: 2, b: 3 }))
      expect((await watched.answer(1)).result).toEqual({
        content: [{ type: "text", text: "{\"sum\":5}" }],
        structuredContent: { sum: 5 }
      })
      send(call(2, "lane_fail", {}))
      expect((await watched.answer(2)).result).toEqual({
        content: [{ type: "text", text: "it failed" }],
        structuredContent: { reason: "nope", extra: [1, 2] },
        isError: true
      })
      send(call(3, "lane_echo", { mine: "x", fixed: 9 }))
      // The upstream's own name; the default under the caller's, the fixed one over it; no `_meta`.
      expect((await watched.answer(3)).result.structuredContent).toEqual({
        params: { name: "args", arguments: { given: 2, mine: "x", fixed: 1 } }
      })
      send(call(4, "lane_link"))
      expect((await watched.answer(4)).result.content).toEqual([
        { type: "resource_link", uri: "lane+lane://item/1", name: "item" },
        { type: "resource", resource: { uri: "lane+lane://item/2", text: "two" } }
      ])
      // An unknown tool is the server's to refuse, as before.
      send(call(5, "lane_nothing"))
      expect((await watched.answer(5)).error.code).toBe(-32602)
      expect(await watched.laneLines(4)).toEqual(["lane_add", "lane_fail", "lane_echo", "lane_link"])
    } finally {
      stop()
    }
  }, 60_000)

  it("passes a cancel on to the upstream and answers nothing; a progress token takes the server's path", async () => {
    const { send, stop, watched } = await open()
    try {
      send(call(1, "lane_hang"))
      await watched.laneLines(1)
      send(cancelled(1))
      send(call(2, "lane_cancelled"))
      const told = (await watched.answer(2)).result.structuredContent
      expect(told.reason).toBe("cancelled by the caller")
      expect(typeof told.requestId).toBe("number")
      // With a progress token: the server's path (no lane line), its progress told under the client's token.
      send(call(3, "lane_progress", {}, { _meta: { progressToken: "p-3" } }))
      expect((await watched.answer(3)).result.structuredContent).toEqual({ token: true })
      expect(watched.seen.some((m) => m.method === "notifications/progress" && m.params.progressToken === "p-3"))
        .toBe(true)
      send(call(4, "lane_add", { a: 1, b: 1 }))
      await watched.answer(4)
      expect(await watched.laneLines(3)).toEqual(["lane_hang", "lane_cancelled", "lane_add"])
      // The cancelled call was never answered.
      expect(watched.seen.some((m) => m.id === 1)).toBe(false)
    } finally {
      stop()
    }
  }, 60_000)

  it("fails a call at once when its upstream is killed mid-call", async () => {
    const { send, stop, watched } = await open()
    try {
      send(call(1, "lane_pid"))
      const pid = (await watched.answer(1)).result.structuredContent.pid as number
      send(call(2, "lane_hang"))
      await watched.laneLines(2)
      process.kill(pid, "SIGKILL")
      const failed = await watched.answer(2)
      expect(failed.error.code).toBe(-32603)
      expect(failed.error.message).toContain("the upstream server closed before tools/call was answered")
    } finally {
      stop()
    }
  }, 60_000)

  it("leaves a 2026-07-28 request to the server's path", async () => {
    const { send, stop, watched } = await open()
    try {
      send(call(7, "lane_add", { a: 4, b: 4 }, {
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {}
        }
      }))
      const answer = await watched.answer(7)
      expect(answer.result.structuredContent).toEqual({ sum: 8 })
      expect(answer.result.resultType).toBe("complete")
      send(call(8, "lane_add", { a: 1, b: 1 }))
      await watched.answer(8)
      expect(await watched.laneLines(1)).toEqual(["lane_add"])
    } finally {
      stop()
    }
  }, 60_000)
})

describe("the raw lane's request ids (stdio)", () => {
  // Before: a call reusing a raw call's id was served by the engine, and a raw call reusing the id
  // of a call the engine serves was taken by the lane: answered twice, where -32600 was due.
  it("refuses an id in flight, on either path, as the engine does", async () => {
    const { send, stop, watched } = await overStdio()
    const refused = (id: number) => ({ code: -32600, message: `Invalid Request: id ${id} is already in flight` })
    try {
      send(call(5, "lane_hang"))
      await watched.laneLines(1)
      send(call(5, "lane_add", { a: 1, b: 1 }, { _meta: { progressToken: "p" } }))
      expect((await watched.answer(5)).error).toEqual(refused(5))
      // The engine serves 6 (a progress token); a raw-eligible call with its id is the engine's to refuse.
      send(call(6, "lane_hang", {}, { _meta: { progressToken: "q" } }))
      send({ jsonrpc: "2.0", id: 7, method: "ping" })
      await watched.answer(7)
      send(call(6, "lane_add", { a: 1, b: 1 }))
      expect((await watched.answer(6)).error).toEqual(refused(6))
      send(call(8, "lane_add", { a: 1, b: 1 }))
      await watched.answer(8)
      expect(await watched.laneLines(2)).toEqual(["lane_hang", "lane_add"])
      expect(watched.seen.filter((m) => m.id === 5 || m.id === 6)).toHaveLength(2)
    } finally {
      stop()
    }
  }, 60_000)
})

describe("the raw lane of `mcp proxy` and the upstream's asks (stdio)", () => {
  // Before: with only raw calls in flight, an upstream's `roots/list` was told the roots a client
  // gave last (over HTTP, another session's), as if nobody's request were in flight; here (one
  // session, no roots given) it was told `{ roots: [] }`. Raw calls' clients cannot be asked: refused
  // (the gateway tells its configured roots, none by default, and is not changed).
  it("refuses a roots/list asked while only raw calls are in flight", async () => {
    const { send, stop, watched } = await overStdio(["proxy", `stdio:${process.execPath} ${fixture}`])
    try {
      send(call(1, "roots"))
      const told = (await watched.answer(1)).result.structuredContent
      expect(told.result).toBeUndefined()
      expect(told.error.message).toContain("relayed whole")
      expect(watched.lane).toEqual(["roots"])
    } finally {
      stop()
    }
  }, 60_000)
})

describe("the raw lane's logs of one call (stdio)", () => {
  // Before: each log the client's output could not take at once was held by a fiber of its own,
  // without a bound (a slow client and a loud upstream: out of memory), and the answer could
  // overtake them. Now at most 256 wait, the rest dropped, and the answer comes after them.
  it("keeps at most 256 of a call's logs waiting for a slow client, and answers after them", async () => {
    const port = await freePort()
    const children = new Children()
    const upstream = children.spawn(
      process.execPath,
      [path.join(root, "test/gateway/fixtures/loud-http.mjs"), String(port)],
      { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, COUNT: "4000", SIZE: "16384" } }
    )
    // Its line once it wrote all of the call's stream (an event, not a guess).
    const flooded = new Promise((resolve) =>
      readline.createInterface({ input: upstream.stdout! }).once("line", resolve)
    )
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), "raw-lane-")), "gateway.json")
    writeFileSync(file, JSON.stringify({ mcpServers: { up: { url: `http://127.0.0.1:${port}/mcp` } } }))
    // The upstream is stopped with the gateway, also when the gateway never answers.
    const { send, stop, watched } = await overStdio(["gateway", "--config", file], children)
    try {
      for (let id = 1;; id++) {
        send({ jsonrpc: "2.0", id, method: "tools/list" })
        if ((await watched.answer(id)).result.tools.length > 0) break
        await watched.until(
          "the tools changed",
          () => watched.seen.some((m) => m.method === "notifications/tools/list_changed") || undefined
        )
      }
      watched.child.stdout!.pause()
      send(call(99, "up_loud", {}))
      await flooded
      watched.child.stdout!.resume()
      const answer = await watched.answer(99)
      expect(answer.result.content).toEqual([{ type: "text", text: "done" }])
      const logs = watched.seen.filter((m) => m.method === "notifications/message")
      // 64 MB of logs: what the output holds (32 MiB, about 2,000 of them) and 256 more, the rest dropped.
      expect(logs.length).toBeLessThan(3000)
      expect(watched.seen.indexOf(answer)).toBeGreaterThan(watched.seen.indexOf(logs.at(-1)!))
    } finally {
      stop()
    }
  }, 60_000)
})

describe("the raw lane and a malformed result (stdio)", () => {
  // Before: only `content` being an array was checked; the malformed result reached the client as
  // it came, where the server's path answered -32603.
  it("answers a malformed upstream result with the server's path's error", async () => {
    const { send, stop, watched } = await overStdio()
    try {
      send(call(1, "lane_bad"))
      const raw = await watched.answer(1)
      send(call(2, "lane_bad", {}, { _meta: { progressToken: "p" } }))
      const served = await watched.answer(2)
      expect(served.error.code).toBe(-32603)
      expect(served.error.message).toContain("Invalid tools/call result")
      expect(raw.error).toEqual(served.error)
      expect(watched.lane).toEqual(["lane_bad"])
    } finally {
      stop()
    }
  }, 60_000)
})
