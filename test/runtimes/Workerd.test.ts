/**
 * The demo server as a Cloudflare Worker on workerd: `apps/everything/src/worker.ts` (the demo as
 * `StatelessServer.toWorkerHandler`, built once per isolate from the Worker's `env`) served by
 * `pnpm run everything:workerd` (`scripts/everything-workerd.mjs`: it installs the pinned workerd
 * from the npm registry into `node_modules/.cache/effect-mcp-workerd`, bundles the entry, writes
 * workerd's config and serves it), on a free port of 127.0.0.1, driven over Streamable HTTP by our
 * client in the 2026-07-28 era: list, call, a multi-round trip whose `requestState` is sealed with
 * the `MCP_REQUEST_STATE_KEY` binding; a task polled to its end by our client and by the SDK
 * client through ext-tasks (the task runs in the isolate across requests: each request is kept
 * alive while a task runs, `ctx.waitUntil`, else its timers end with the request that created it
 * and the task stays `working`); bad input answered as on Node; a handshake-era request refused
 * with a JSON-RPC error naming the revision served (a Worker keeps no session).
 */
import * as esbuild from "esbuild"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  answer,
  badHeadersAndJson,
  bodyOverTheLimit,
  official,
  officialTask,
  ours as driveOurs,
  oursTask,
  post,
  type Running,
  simpleText,
  stop
} from "./drivers.js"

const root = path.resolve(import.meta.dirname, "../..")

const without = (env: NodeJS.ProcessEnv, name: string): NodeJS.ProcessEnv =>
  Object.fromEntries(Object.entries(env).filter(([key]) => key !== name))

const key = "the requestState key of the workerd test, 32+ bytes"

const start = (key: string | undefined, env: Record<string, string> = {}): Promise<Running> =>
  new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [path.join(root, "scripts/everything-workerd.mjs"), "--port", "0", "--host", "127.0.0.1"],
      {
        cwd: root,
        env: {
          ...without(process.env, "MCP_REQUEST_STATE_KEY"),
          ...(key === undefined ? {} : { MCP_REQUEST_STATE_KEY: key }),
          ...env
        },
        stdio: ["ignore", "pipe", "pipe"]
      }
    )
    let err = ""
    child.stderr!.setEncoding("utf8").on("data", (text: string) => {
      err += text
      const listening = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err)
      if (listening !== null) resolve({ url: listening[1], child, stderr: () => err })
    })
    child.once("exit", (code) => reject(new Error(`workerd exited (${code}) before listening: ${err}`)))
    child.once("error", reject)
  })

/**
 * Serves `test/runtimes/worker-client.ts` (a Worker whose requests run our client against `target`)
 * on workerd (the binary the root script installed), on a free port of 127.0.0.1: its URL.
 */
const startClientWorker = async (target: string, work: string): Promise<Running> => {
  await esbuild.build({
    entryPoints: [path.join(root, "test/runtimes/worker-client.ts")],
    outfile: path.join(work, "worker-client.mjs"),
    bundle: true,
    platform: "browser",
    format: "esm",
    conditions: ["workerd", "worker", "@effect-mcp/source"],
    logLevel: "silent"
  })
  // Its fetches may reach 127.0.0.1 (workerd's default outbound is the public internet only).
  fs.writeFileSync(
    path.join(work, "worker-client.capnp"),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .worker), (name = "net", network = (allow = ["public", "private", "local"]))],
  sockets = [(name = "http", address = "127.0.0.1:0", http = (), service = "main")]
);
const worker :Workerd.Worker = (
  modules = [(name = "worker.mjs", esModule = embed "worker-client.mjs")],
  compatibilityDate = "2026-11-01",
  globalOutbound = "net",
  bindings = [(name = "TARGET", fromEnvironment = "TARGET")]
);
`
  )
  const binary = path.join(root, "node_modules/.cache/effect-mcp-workerd/node_modules/.bin/workerd")
  return new Promise((resolve, reject) => {
    const child = spawn(binary, ["serve", path.join(work, "worker-client.capnp"), "config", "--control-fd", "3"], {
      env: { ...process.env, TARGET: target },
      stdio: ["ignore", "pipe", "pipe", "pipe"]
    })
    let err = ""
    child.stderr!.setEncoding("utf8").on("data", (text: string) => err += text)
    let control = ""
    const events = child.stdio[3] as NodeJS.ReadableStream
    events.setEncoding("utf8")
    events.on("data", (text: string) => {
      control += text
      const port = /"port":(\d+)/.exec(control)
      if (port !== null) resolve({ url: `http://127.0.0.1:${port[1]}/`, child, stderr: () => err })
    })
    child.once("exit", (code) => reject(new Error(`workerd exited (${code}) before listening: ${err}`)))
    child.once("error", reject)
  })
}

/**
 * Our client of `url` in the 2026-07-28 era: list, call, a multi-round trip. With `retryAt`, the
 * retry of a round trip (the request carrying `requestState`) goes there instead: another Worker.
 */
const ours = (url: string, retryAt?: string, retried: Array<string> = []) => {
  const routed: typeof globalThis.fetch = (input, init) => {
    const body = init?.body instanceof Uint8Array ? new TextDecoder().decode(init.body) : init?.body
    if (retryAt === undefined || typeof body !== "string" || !body.includes("\"requestState\"")) {
      return globalThis.fetch(input, init)
    }
    retried.push(retryAt)
    return globalThis.fetch(retryAt, init)
  }
  return driveOurs(url, { era: "stateless", name: "workerd-test", fetch: routed })
}

describe("The demo on workerd, a Worker through StatelessServer.toWorkerHandler", () => {
  let running: Running | undefined
  let other: Running | undefined
  let keyless: Running | undefined
  // At most 10 listens, so one a holder: every request to it but the last names its client.
  let edge: Running | undefined
  let clientWorker: Running | undefined
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "effect-mcp-workerd-"))
  // The first run installs workerd (about 50 MB from the registry).
  beforeAll(async () => {
    running = await start(key)
    other = await start(key)
    keyless = await start(undefined)
    edge = await start(key, { MCP_MAX_LISTENS: "10" })
  }, 300_000)
  afterAll(async () => {
    await Promise.all([stop(running), stop(other), stop(keyless), stop(edge), stop(clientWorker)])
    fs.rmSync(work, { recursive: true, force: true })
  })

  it("our client, 2026-07-28: list, call, a multi-round trip", async () => {
    const seen = await ours(running!.url)
    expect(seen.era).toBe("stateless")
    expect(seen.tools).toContain("test_simple_text")
    expect(seen.simple).toEqual(simpleText)
    expect(JSON.stringify(seen.asked)).toContain("ada@example.com")
  })

  it("the official SDK client, 2026-07-28: list, call, a multi-round trip", async () => {
    const seen = await official(running!.url, "official-workerd-client")
    expect(seen.tools).toContain("test_simple_text")
    expect(seen.simple).toEqual(simpleText)
    expect(JSON.stringify(seen.asked)).toContain("ada@example.com")
  })

  it("our client, 2026-07-28: a task followed to its end, across requests of one isolate", async () => {
    const seen = await oursTask(running!.url, { name: "workerd-test", follow: "poll" })
    expect(seen).toMatchObject({
      taskId: expect.any(String),
      content: [{ type: "text", text: "Computed runtime in 0.2s" }]
    })
    expect(seen.statuses.at(-1)).toBe("completed")
  })

  it("the official SDK client with the official tasks client (ext-tasks), 2026-07-28: a task settled, across requests of one isolate", async () => {
    const seen = await officialTask(running!.url, "official-workerd-client")
    expect(seen).toMatchObject({
      kind: "task",
      taskId: expect.any(String),
      result: { content: [{ type: "text", text: "Computed runtime in 0.2s" }] }
    })
  })

  it("our client in a Worker, of the demo in another: list, call, a multi-round trip", async () => {
    clientWorker = await startClientWorker(running!.url, work)
    const response = await fetch(clientWorker.url)
    const seen = await response.json()
    expect(response.status).toBe(200)
    expect(seen.era).toBe("stateless")
    expect(seen.tools).toContain("test_simple_text")
    expect(seen.simple).toEqual(simpleText)
    expect(JSON.stringify(seen.asked)).toContain("ada@example.com")
  })

  // A listen on a Worker, the server built by an earlier request: before, workerd cancelled it as
  // hung right after its acknowledgement ("your Worker's code had hung and would never generate a
  // response": the only timer that could wake it was the keep-alive sweep's, which belongs to the
  // request that built the server), and a change another request made never reached it (the
  // registry's coalescing window slept on the timer of that request, cancelled with it).
  it("a listen on workerd: acknowledged, held open, told of the changes other requests make, then cancelled by the client", async () => {
    const meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
      "io.modelcontextprotocol/clientInfo": { name: "workerd-test", version: "1.0.0" }
    }
    // What workerd says from here on is this test's (the tasks' tests before it have their own).
    const said = running!.stderr().length
    // Another request first (the isolate's server is built by it, when this test runs alone).
    const list = JSON.stringify({ jsonrpc: "2.0", id: 8, method: "tools/list", params: { _meta: meta } })
    expect((await post(running!.url, { "mcp-method": "tools/list" }, list)).status).toBe(200)
    const listen = await post(
      running!.url,
      { "mcp-method": "subscriptions/listen" },
      JSON.stringify({
        jsonrpc: "2.0",
        id: 9,
        method: "subscriptions/listen",
        params: { notifications: { toolsListChanged: true }, _meta: meta }
      })
    )
    expect(listen.status).toBe(200)
    const reader = listen.body!.pipeThrough(new TextDecoderStream()).getReader()
    let heard = ""
    const count = (text: string) => heard.split(text).length - 1
    const until = async (text: string, times: number) => {
      while (count(text) < times) {
        const next = await reader.read()
        if (next.done) throw new Error(`the listen ended before ${text}: ${heard}`)
        heard += next.value
      }
    }
    const trigger = async (id: number) => {
      const response = await post(
        running!.url,
        { "mcp-method": "tools/call", "mcp-name": "test_trigger_tool_change" },
        JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "test_trigger_tool_change", arguments: {}, _meta: meta }
        })
      )
      expect(await answer(response)).toMatchObject({ status: 200, body: { id, result: { resultType: "complete" } } })
    }
    await until("notifications/subscriptions/acknowledged", 1)
    await trigger(10)
    await until("notifications/tools/list_changed", 1)
    await trigger(11)
    await until("notifications/tools/list_changed", 2)
    expect(heard).toContain(`"io.modelcontextprotocol/subscriptionId":9`)
    await reader.cancel()
    // What comes after the cancel is sent to nobody, and nothing is left waiting on it.
    await trigger(12)
    expect(running!.stderr().slice(said)).not.toMatch(/hung|different request context/)
  })

  // Cloudflare's edge sets CF-Connecting-IP on every request it passes to a Worker (a client cannot
  // write it there): on a Worker it names a client without a token when nothing else does. Before,
  // the Worker had no holder for any client (per-holder quotas off: a client's second listen was
  // served) and said so in its log on the first request.
  it("CF-Connecting-IP is a client's holder on a Worker: a listen a holder (10 listens at most), the other client's served, nothing said of a missing address until a request comes without it", async () => {
    const meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
      "io.modelcontextprotocol/clientInfo": { name: "workerd-test", version: "1.0.0" }
    }
    const held: Array<ReadableStreamDefaultReader<string>> = []
    const listen = async (id: number, headers: Record<string, string>) => {
      const response = await post(
        edge!.url,
        { "mcp-method": "subscriptions/listen", ...headers },
        JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "subscriptions/listen",
          params: { notifications: { toolsListChanged: true }, _meta: meta }
        })
      )
      if (response.status !== 200) return { status: response.status, body: await response.json() }
      // Held open until the test ends: its acknowledgement read.
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
      held.push(reader)
      let text = ""
      while (!text.includes("\n\n")) {
        const next = await reader.read()
        if (next.done) break
        text += next.value
      }
      return { status: response.status, body: text }
    }
    const a = { "cf-connecting-ip": "203.0.113.1" }
    const b = { "cf-connecting-ip": "2001:db8::2" }
    try {
      const first = await listen(1, a)
      expect(first).toMatchObject({ status: 200, body: expect.stringContaining("subscriptions/acknowledged") })
      expect(await listen(2, a)).toMatchObject({
        status: 503,
        body: { id: 2, error: { message: expect.stringContaining("maxSubscriptionsPerHolder") } }
      })
      expect(await listen(3, b)).toMatchObject({
        status: 200,
        body: expect.stringContaining("subscriptions/acknowledged")
      })
      expect(edge!.stderr()).not.toContain("no client address")
      // A request without the header (not through Cloudflare's edge): no holder, said once.
      const list = JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tools/list", params: { _meta: meta } })
      expect((await post(edge!.url, { "mcp-method": "tools/list" }, list)).status).toBe(200)
      await expect.poll(() => edge!.stderr(), { timeout: 10_000 }).toContain("no client address")
    } finally {
      await Promise.all(held.map((reader) => reader.cancel()))
    }
  })

  it("the state key is the Worker's binding: a round trip's retry is served by another Worker with the same key, and not by one without it", async () => {
    const retried: Array<string> = []
    const seen = await ours(running!.url, other!.url, retried)
    expect(JSON.stringify(seen.asked)).toContain("ada@example.com")
    expect(retried).toEqual([other!.url])
    const refused = await ours(running!.url, keyless!.url).then(() => "served", (error) => String(error))
    expect(refused).toContain("Invalid requestState: its signature does not verify")
    expect(running!.stderr()).not.toContain("random key")
    expect(keyless!.stderr()).toContain("requestState is sealed with a random key")
  })

  it("a handshake-era initialize is refused with a JSON-RPC error naming the revision served", async () => {
    const initialize = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "old", version: "1.0.0" } }
    })
    const response = await fetch(running!.url, {
      method: "POST",
      headers: { accept: "application/json, text/event-stream", "content-type": "application/json" },
      body: initialize
    })
    expect(await answer(response)).toMatchObject({
      status: 400,
      body: {
        jsonrpc: "2.0",
        id: 1,
        error: { code: -32022, data: { supported: ["2026-07-28"], requested: "2025-11-25" } }
      }
    })
  })

  it("bad input is answered as on Node: bad JSON, wrong headers, a foreign Origin, a streamed body over the limit", async () => {
    await badHeadersAndJson(running!.url)
    await bodyOverTheLimit(running!.url)
    // (Not a cancelled response: workerd tells a Worker its client went away only when it next
    // writes to the response, a listen's keep-alive every 15 s; on Bun and Deno it is at once.)
  })

  it("nothing says the runtime failed", () => {
    expect(running!.stderr()).not.toMatch(/error|uncaught|panic/i)
  })
})
