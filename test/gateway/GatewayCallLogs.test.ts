/**
 * `mcp gateway --config FILE --port N` (apps/cli, built) passes on the log messages an upstream
 * sends on a call's own stream to the downstream request that caused the call, on that request's
 * own stream, once. Upstreams: two of our servers over Streamable HTTP in this process, one of
 * 2026-07-28 (`new`), one of the handshake era (`old`), whose tool `chatty` logs "step one" (info)
 * and "detail" (debug) while it runs; and the stdio fixture level-server.mjs (`lvl`), whose `emit`
 * logs outside any request (a marker). On the raw wire:
 *
 * - a 2026-07-28 request that asks for logs at `info` hears, before its result, the `info` message
 *   of the call it caused, in either upstream's era (the 2026-07-28 upstream asked at that level);
 *   one that asks for none hears none;
 * - a handshake session at `info` hears the messages of its own call on its POST's stream, once,
 *   and none of them on its GET stream (where the broadcast of the marker comes).
 *
 * - a log an upstream sends on the stream of a request that took none (a completion's, whose
 *   completer logs, the upstream `old`'s prompt `file`) is not broadcast: session B, at `debug`,
 *   hears only the marker session A's later `lvl_emit` logs (failed before: B heard A's log, "alice's
 *   file /home/alice/secret.txt", as a broadcast on its GET stream, before the marker).
 *
 * - an upstream log whose `data` is over 64 KiB of JSON reaches a session as a short note (failed
 *   before: the whole of it, each of up to 256 such waiting in the gateway's buffer); so does one
 *   on a call's own stream, in either era (failed before: the whole of it, up to 256 waiting per
 *   call, each as large as an upstream message may be, 16 MiB).
 *
 * Failed before: a 2026-07-28 request heard no log at all, and a handshake session heard its
 * call's messages as a broadcast on its GET stream, not on its request's stream. And a handshake
 * session read the 2026-07-28 upstream's `serverInfo` in the `_meta` of the gateway's result.
 */
import { Revision } from "@effect-mcp/core"
import { NodeMcpServer } from "@effect-mcp/platform-node"
import { McpRequest, McpServer, Prompt, Tool } from "@effect-mcp/server"
import { Services } from "@effect-mcp/test-support"
import { events, handshakeHeaders, statelessHeaders } from "@effect-mcp/test-support/HttpWire"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Schema from "effect/Schema"
import { mkdtempSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { overHttp, root } from "./support.js"

const Chatty = Tool.make("chatty", { description: "Logs while it runs" }, () =>
  Effect.gen(function*() {
    yield* McpRequest.log("info", "step one", "work")
    yield* McpRequest.log("debug", "detail", "work")
    return "done"
  }))

/** Logs 70,000 characters (over the gateway's 64 KiB of a log's `data`) while it runs. */
const Loud = Tool.make(
  "loud",
  { description: "Logs a lot while it runs" },
  () => Effect.as(McpRequest.log("info", "x".repeat(70_000), "work"), "done")
)

/** A prompt whose completer logs, on the completion's own stream, what it looked at. */
const File = Prompt.make<McpRequest.McpRequest, never, { path: typeof Schema.String }>("file", {
  description: "Reads a file",
  arguments: Schema.Struct({ path: Schema.String }),
  complete: {
    path: (typed) =>
      Effect.as(McpRequest.log("error", `alice's file /home/alice/secret.txt (${typed})`, "files"), [
        "/home/alice/secret.txt"
      ])
  }
}, ({ path }) => Effect.succeed(`the file ${path}`))

/** One of our servers over HTTP speaking `revisions`, with `chatty`; its URL. */
const upstream = async (revisions: ReadonlyArray<Revision.Revision>) => {
  const port = await Effect.runPromise(Services.freePort)
  const runtime = ManagedRuntime.make(
    NodeMcpServer.layerHttp({ port }).pipe(
      Layer.provideMerge(
        McpServer.layer({
          serverInfo: { name: "chatty", version: "1.0.0" },
          revisions,
          tools: [Chatty, Loud],
          prompts: [File]
        })
      )
    )
  )
  await runtime.runPromise(McpServer.McpServer)
  return { url: `http://127.0.0.1:${port}/mcp`, runtime }
}

const runtimes: Array<ManagedRuntime.ManagedRuntime<McpServer.McpServer, unknown>> = []
let gateway: { readonly url: string; readonly stop: () => Promise<void> } | undefined

beforeAll(async () => {
  const fresh = await upstream(["2026-07-28"])
  const old = await upstream(Revision.handshake)
  runtimes.push(fresh.runtime, old.runtime)
  const dir = mkdtempSync(path.join(os.tmpdir(), "mcp-gateway-call-logs-"))
  const file = path.join(dir, "gateway.json")
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: {
        new: { url: fresh.url },
        old: { url: old.url },
        lvl: { command: process.execPath, args: [path.join(root, "test/gateway/fixtures/level-server.mjs")] }
      }
    })
  )
  gateway = await overHttp(file)
}, 60_000)

afterAll(async () => {
  await gateway?.stop()
  await Promise.all(runtimes.map((runtime) => runtime.dispose()))
})

const isAnswer = (id: number) => (message: any) => message.id === id && !("method" in message)

/** A 2026-07-28 `tools/call` of `name`, asking for logs at `level` (if given): what its response carries. */
const statelessCall = async (id: number, name: string, level?: string) => {
  const response = await fetch(gateway!.url, {
    method: "POST",
    headers: statelessHeaders("tools/call", name),
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: {
        name,
        arguments: {},
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
          ...(level === undefined ? {} : { "io.modelcontextprotocol/logLevel": level })
        }
      }
    })
  })
  return (await events(response, isAnswer(id))).map((e) => e.message)
}

/** A raw handshake session on the gateway at `level`: its POST, and its GET stream. */
const handshakeSession = async (level: string, first: number) => {
  let session: string | undefined
  let next = first
  const post = async (method: string, params: object, notification = false) => {
    const id = next++
    const response = await fetch(gateway!.url, {
      method: "POST",
      headers: handshakeHeaders(session),
      body: JSON.stringify({ jsonrpc: "2.0", ...(notification ? {} : { id }), method, params })
    })
    session ??= response.headers.get("mcp-session-id") ?? undefined
    if (notification) return void (await response.text())
    return (await events(response, isAnswer(id))).map((e) => e.message)
  }
  await post("initialize", {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "raw", version: "1.0.0" }
  })
  await post("notifications/initialized", {}, true)
  await post("logging/setLevel", { level })
  const stream = await fetch(gateway!.url, {
    headers: { accept: "text/event-stream", "mcp-protocol-version": "2025-11-25", "mcp-session-id": session! }
  })
  assert.strictEqual(stream.status, 200)
  return { post, stream }
}

describe("mcp gateway: an upstream call's logs, on the downstream request's own stream", () => {
  it("handshake: a log on the stream of another session's request that took none is not broadcast", async () => {
    const alice = await handshakeSession("debug", 100)
    const bob = await handshakeSession("debug", 200)
    const heardByBob = events(bob.stream, (m) => m.params?.data === "bob's marker", 20_000)
    const completed = (await alice.post("completion/complete", {
      ref: { type: "ref/prompt", name: "old_file" },
      argument: { name: "path", value: "/home/alice/" }
    }))!
    assert.deepStrictEqual(completed.at(-1).result.completion.values, ["/home/alice/secret.txt"])
    // Logged outside any request, after the completion: by then bob would have heard alice's log.
    await alice.post("tools/call", { name: "lvl_emit", arguments: { level: "error", text: "bob's marker" } })
    assert.deepStrictEqual((await heardByBob).map((e) => e.message.params), [
      { level: "error", logger: "lvl/inner", data: "bob's marker" }
    ])
  }, 30_000)

  it("handshake: an upstream log whose data is over 64 KiB of JSON reaches the sessions as a short note", async () => {
    const carol = await handshakeSession("debug", 300)
    const heard = events(carol.stream, (m) => m.params?.data === "carol's marker", 20_000)
    await carol.post("tools/call", { name: "lvl_emit", arguments: { level: "error", text: "x".repeat(70_000) } })
    await carol.post("tools/call", { name: "lvl_emit", arguments: { level: "error", text: "carol's marker" } })
    assert.deepStrictEqual((await heard).map((e) => e.message.params), [
      {
        level: "error",
        logger: "lvl/inner",
        data: "[log data dropped by the gateway: 70002 bytes of JSON, over 65536]"
      },
      { level: "error", logger: "lvl/inner", data: "carol's marker" }
    ])
  }, 30_000)

  it("a call's upstream log whose data is over 64 KiB of JSON reaches its request as a short note", async () => {
    const note = "[log data dropped by the gateway: 70002 bytes of JSON, over 65536]"
    for (const [id, name, logger] of [[4, "new_loud", "new/work"], [5, "old_loud", "old/work"]] as const) {
      const heard = await statelessCall(id, name, "info")
      assert.deepStrictEqual(heard.map((m) => m.method === undefined ? "answer" : m.params), [
        { level: "info", logger, data: note },
        "answer"
      ], name)
    }
    const dave = await handshakeSession("info", 400)
    const heard = (await dave.post("tools/call", { name: "old_loud", arguments: {} }))!
    assert.deepStrictEqual(heard.map((m) => m.method === undefined ? "answer" : m.params), [
      { level: "info", logger: "old/work", data: note },
      "answer"
    ])
    dave.stream.body?.cancel()
  }, 30_000)

  it("2026-07-28: a request that asks for logs hears those of its call at its level, from either era", async () => {
    for (const [id, name, logger] of [[1, "new_chatty", "new/work"], [2, "old_chatty", "old/work"]] as const) {
      const heard = await statelessCall(id, name, "info")
      assert.deepStrictEqual(heard.map((m) => m.method === undefined ? "answer" : m.params), [
        { level: "info", logger, data: "step one" },
        "answer"
      ], name)
      assert.deepStrictEqual(heard[1].result.content, [{ type: "text", text: "done" }])
      // The gateway names itself on its results, not the upstream (`chatty`).
      assert.strictEqual(heard[1].result._meta["io.modelcontextprotocol/serverInfo"].name, "mcp-gateway", name)
    }
    // Asking for none: none.
    const quiet = await statelessCall(3, "new_chatty")
    assert.deepStrictEqual(quiet.map((m) => m.method), [undefined])
  }, 30_000)

  it("handshake: a session hears its call's logs on the call's stream, once; none on its GET stream", async () => {
    let session: string | undefined
    let next = 10
    const post = async (method: string, params: object, notification = false) => {
      const id = next++
      const response = await fetch(gateway!.url, {
        method: "POST",
        headers: handshakeHeaders(session),
        body: JSON.stringify({ jsonrpc: "2.0", ...(notification ? {} : { id }), method, params })
      })
      session ??= response.headers.get("mcp-session-id") ?? undefined
      if (notification) return void (await response.text())
      return (await events(response, isAnswer(id))).map((e) => e.message)
    }
    await post("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "raw", version: "1.0.0" }
    })
    await post("notifications/initialized", {}, true)
    await post("logging/setLevel", { level: "info" })
    const stream = await fetch(gateway!.url, {
      headers: { accept: "text/event-stream", "mcp-protocol-version": "2025-11-25", "mcp-session-id": session! }
    })
    assert.strictEqual(stream.status, 200)
    const broadcast = events(stream, (m) => m.params?.data === "marker", 20_000)

    for (const [name, logger] of [["old_chatty", "old/work"], ["new_chatty", "new/work"]] as const) {
      const heard = (await post("tools/call", { name, arguments: {} }))!
      assert.deepStrictEqual(heard.map((m) => m.method === undefined ? "answer" : m.params), [
        { level: "info", logger, data: "step one" },
        "answer"
      ], name)
      // No upstream's name on a handshake result (the 2026-07-28 upstream put its own there).
      assert.isUndefined(heard[1].result._meta?.["io.modelcontextprotocol/serverInfo"], name)
    }
    // A log outside any call reaches the session on its GET stream: the only message there.
    await post("tools/call", { name: "lvl_emit", arguments: { level: "error", text: "marker" } })
    assert.deepStrictEqual((await broadcast).map((e) => e.message.params), [
      { level: "error", logger: "lvl/inner", data: "marker" }
    ])
  }, 30_000)
})
