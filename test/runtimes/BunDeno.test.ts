/**
 * The demo server on Bun and on Deno: `apps/everything/src/web.ts` (the demo as
 * `HttpTransport.toWebHandler`, served by `Bun.serve` or `Deno.serve`) bundled into one ES module
 * for the browser (so: nothing of Node in it), then run by each runtime, driven over Streamable
 * HTTP by our client and by the official SDK client (2.4.0): list, call, a multi-round trip (an
 * elicitation answered by the client's handler), a listen hearing the list change another request
 * triggers, then cancelled, in the 2026-07-28 era; a task followed to its end by our client, and
 * settled by the SDK client through the official tasks client (ext-tasks: the SDK client has no
 * 2026-07-28 tasks of its own); by our client in the 2025-11-25 era, a session the
 * runtime's process keeps; bad input, and a response cancelled mid-stream, answered as on Node.
 *
 * The runtimes come from the npm registry (see `install.ts`), never installed globally.
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
  cancelledListen,
  official,
  officialListen,
  officialTask,
  ours,
  oursListen,
  oursTask,
  post,
  type Running,
  simpleText,
  stop
} from "./drivers.js"
import { binary, install, runtimeEnv } from "./install.js"

const root = path.resolve(import.meta.dirname, "../..")

/** Where the bundle of the demo's web entry goes. */
const work = fs.mkdtempSync(path.join(os.tmpdir(), "effect-mcp-runtimes-"))
const bundle = path.join(work, "everything-web.mjs")

/** The most listens the demo holds at once, here: a few, so that one more is refused (a cancelled one counts no more). */
const maxListens = 2

/** Starts the demo on a runtime, on a free port: its URL once it listens. */
const start = (command: string, args: ReadonlyArray<string>): Promise<Running> =>
  new Promise((resolve, reject) => {
    const child = spawn(command, [...args, "--port", "0"], {
      cwd: work,
      env: {
        ...process.env,
        MCP_REQUEST_STATE_KEY: "the requestState key of the runtimes test, 32+ bytes",
        MCP_MAX_LISTENS: String(maxListens),
        ...runtimeEnv
      },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let err = ""
    child.stderr!.setEncoding("utf8").on("data", (text: string) => {
      err += text
      const listening = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err)
      if (listening !== null) resolve({ url: listening[1], child, stderr: () => err })
    })
    child.once("exit", (code) => reject(new Error(`${command} exited (${code}) before listening: ${err}`)))
    child.once("error", reject)
  })

beforeAll(async () => {
  install()
  await esbuild.build({
    entryPoints: [path.join(root, "apps/everything/src/web.ts")],
    outfile: bundle,
    bundle: true,
    platform: "browser",
    format: "esm",
    conditions: ["@effect-mcp/source"],
    logLevel: "silent"
  })
}, 360_000)

afterAll(() => fs.rmSync(work, { recursive: true, force: true }))

const runtimes: ReadonlyArray<readonly [string, () => readonly [string, ReadonlyArray<string>]]> = [
  ["Bun", () => [binary("bun"), [bundle]]],
  ["Deno", () => [binary("deno"), ["run", "--allow-net", "--allow-env", bundle]]]
]

for (const [name, command] of runtimes) {
  describe(`The demo on ${name}, through HttpTransport.toWebHandler`, () => {
    let running: Running | undefined
    beforeAll(async () => {
      const [bin, args] = command()
      running = await start(bin, args)
    }, 60_000)
    afterAll(() => stop(running))

    it("our client, 2026-07-28: list, call, a multi-round trip", async () => {
      const seen = await ours(running!.url, { era: "stateless", name: "runtimes-test" })
      expect(seen.era).toBe("stateless")
      expect(seen.tools).toContain("test_simple_text")
      expect(seen.simple).toEqual(simpleText)
      expect(JSON.stringify(seen.asked)).toContain("ada@example.com")
    })

    it("our client, 2025-11-25: a session the process keeps; list, call, an elicitation", async () => {
      const seen = await ours(running!.url, { era: "handshake", name: "runtimes-test" })
      expect(seen.era).toBe("handshake")
      expect(seen.tools).toContain("test_elicitation")
      expect(seen.simple).toEqual(simpleText)
      expect(JSON.stringify(seen.asked)).toContain("ada@example.com")
    })

    it("the official SDK client, 2026-07-28: list, call, a multi-round trip", async () => {
      const seen = await official(running!.url, "official-runtimes-client")
      expect(seen.tools).toContain("test_simple_text")
      expect(seen.simple).toEqual(simpleText)
      expect(JSON.stringify(seen.asked)).toContain("ada@example.com")
    })

    it("our client, 2026-07-28: a listen hears the list_changed another request triggers, then is cancelled", async () => {
      expect(await oursListen(running!.url, { name: "runtimes-test" })).toEqual({
        acknowledged: { toolsListChanged: true },
        method: "notifications/tools/list_changed"
      })
    })

    it("our client, 2026-07-28: a task followed to its end", async () => {
      const seen = await oursTask(running!.url, { name: "runtimes-test", follow: "status" })
      expect(seen).toMatchObject({
        taskId: expect.any(String),
        content: [{ type: "text", text: "Computed runtime in 0.2s" }]
      })
      expect(seen.statuses.at(-1)).toBe("completed")
    })

    it("the official SDK client with the official tasks client (ext-tasks), 2026-07-28: a task settled", async () => {
      const seen = await officialTask(running!.url, "official-runtimes-client")
      expect(seen).toMatchObject({
        kind: "task",
        taskId: expect.any(String),
        result: { content: [{ type: "text", text: "Computed runtime in 0.2s" }] }
      })
    })

    it("the official SDK client, 2026-07-28: a listen hears the list_changed another request triggers, then is closed", async () => {
      const seen = await officialListen(running!.url, "official-runtimes-client")
      expect(seen).toEqual({
        honored: { toolsListChanged: true },
        method: "notifications/tools/list_changed",
        closed: "local"
      })
    })

    it("bad input is answered as on Node: bad JSON, wrong headers, a foreign Origin, a streamed body over the limit (and one within it served)", async () => {
      const url = running!.url
      await badHeadersAndJson(url)
      // A body in pieces, no length said, within the limit: read to its end and served.
      const list = JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/list",
        params: {
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": { name: "runtimes-test", version: "1.0.0" }
          }
        }
      })
      const pieces = [list.slice(0, 20), list.slice(20)].map((text) => new TextEncoder().encode(text))
      const streamed = new ReadableStream<Uint8Array>({
        pull: (controller) => {
          const next = pieces.shift()
          if (next === undefined) controller.close()
          else controller.enqueue(next)
        }
      })
      expect(await answer(await post(url, { "mcp-method": "tools/list" }, streamed))).toMatchObject({
        status: 200,
        body: { id: 7, result: { tools: expect.any(Array) } }
      })
      await bodyOverTheLimit(url)
    })

    it("a response cancelled mid-stream ends its request: a listen's stream cancelled makes room for another", async () => {
      await cancelledListen(running!.url, maxListens)
    })

    it("the log went to stderr, and nothing says the runtime failed", () => {
      expect(running!.stderr()).not.toMatch(/error|uncaught|panic/i)
    })
  })
}
