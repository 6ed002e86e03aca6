/**
 * The demo server on Bun and on Deno: `apps/everything/src/web.ts` (the demo as
 * `HttpTransport.toWebHandler`, served by `Bun.serve` or `Deno.serve`) bundled into one ES module
 * for the browser (so: nothing of Node in it), then run by each runtime, driven over Streamable
 * HTTP by our client and by the official SDK client (2.4.0): list, call, a multi-round trip (an
 * elicitation answered by the client's handler), in the 2026-07-28 era; and by our client in the
 * 2025-11-25 era, a session the runtime's process keeps.
 *
 * The runtimes come from the npm registry (`bun`, `deno`, pinned in scripts/runtimes.json), installed on first use
 * into `node_modules/.cache/effect-mcp-runtimes` (about 200 MB on disk, a few seconds from a warm
 * npm cache; CI caches `node_modules`), never globally.
 */
import * as esbuild from "esbuild"
import { spawn, spawnSync } from "node:child_process"
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
  ours,
  oursListen,
  oursTask,
  post,
  type Running,
  simpleText,
  stop
} from "./drivers.js"

const root = path.resolve(import.meta.dirname, "../..")

/** The runtimes, pinned (as `pnpm run everything:bun` and `everything:deno` install them). */
const versions: { readonly bun: string; readonly deno: string } = JSON.parse(
  fs.readFileSync(path.join(root, "scripts/runtimes.json"), "utf8")
)

const cache = path.join(root, "node_modules/.cache/effect-mcp-runtimes")
const binary = (name: keyof typeof versions) => path.join(cache, "node_modules/.bin", name)

/** Installs the pinned runtimes into the cache, unless they are there at their versions. */
const install = () => {
  const installed = (name: keyof typeof versions) => {
    if (!fs.existsSync(binary(name))) return false
    const version = spawnSync(binary(name), ["--version"], { encoding: "utf8" }).stdout ?? ""
    return version.includes(versions[name])
  }
  if (installed("bun") && installed("deno")) return
  fs.mkdirSync(cache, { recursive: true })
  fs.writeFileSync(path.join(cache, "package.json"), JSON.stringify({ private: true }))
  const npm = spawnSync(
    "npm",
    [
      "install",
      "--prefix",
      cache,
      "--no-audit",
      "--no-fund",
      "--no-package-lock",
      `bun@${versions.bun}`,
      `deno@${versions.deno}`
    ],
    { encoding: "utf8", timeout: 300_000 }
  )
  if (npm.status !== 0) throw new Error(`npm install of bun and deno failed: ${npm.stderr}`)
}

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
        DENO_DIR: path.join(cache, "deno-dir"),
        DENO_NO_UPDATE_CHECK: "1",
        NO_COLOR: "1"
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
