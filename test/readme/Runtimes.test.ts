/**
 * The guide's "Serverless and other runtimes" (docs/runtimes.md): its samples, bundled as a user
 * would (esbuild, for the browser platform: nothing of Node in them), served by the runtimes as the
 * guide says: `web.ts` by `bun run` and by `deno serve` (each serves a module's default `fetch`),
 * `worker.ts` by workerd; each answers a 2026-07-28 `tools/call`, and the Worker refuses a
 * handshake-era `initialize` naming the revision it serves. The runtimes come from the npm registry
 * as the other runtime tests get them (scripts/runtime-install.mjs).
 */
import { Services } from "@effect-mcp/test-support"
import { statelessHeaders } from "@effect-mcp/test-support/HttpWire"
import * as Effect from "effect/Effect"
import * as esbuild from "esbuild"
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const root = path.resolve(import.meta.dirname, "../..")
const runtimes = path.join(root, "node_modules/.cache/effect-mcp-runtimes")
const bin = (name: string) =>
  path.join(
    name === "workerd" ? path.join(root, "node_modules/.cache/effect-mcp-workerd") : runtimes,
    "node_modules/.bin",
    name
  )
const work = fs.mkdtempSync(path.join(os.tmpdir(), "effect-mcp-readme-runtimes-"))
const key = "the requestState key of the guide's samples, 32+ bytes"
const children: Array<ChildProcess> = []

const freePort = (): Promise<number> => Effect.runPromise(Services.freePort)

/** Starts a runtime and resolves once its output says it listens (matched by `ready`): that match. */
const start = (command: string, args: ReadonlyArray<string>, env: Record<string, string>, ready: RegExp) =>
  new Promise<RegExpExecArray>((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: work,
      env: {
        ...process.env,
        ...env,
        DENO_DIR: path.join(runtimes, "deno-dir"),
        DENO_NO_UPDATE_CHECK: "1",
        NO_COLOR: "1"
      },
      stdio: ["ignore", "pipe", "pipe", "pipe"]
    })
    children.push(child)
    let out = ""
    const seen = (text: string) => {
      out += text
      const said = ready.exec(out)
      if (said !== null) resolve(said)
    }
    child.stdout!.setEncoding("utf8").on("data", seen)
    child.stderr!.setEncoding("utf8").on("data", seen)
    ;(child.stdio[3] as NodeJS.ReadableStream).setEncoding("utf8")
    ;(child.stdio[3] as NodeJS.ReadableStream).on("data", seen)
    child.once("exit", (code) => reject(new Error(`${command} exited (${code}) before listening: ${out}`)))
    child.once("error", reject)
  })

const meta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "readme-runtimes", version: "1.0.0" }
}

/** `add` called on `port`: its JSON answer. */
const add = async (port: number) => {
  const response = await fetch(`http://127.0.0.1:${port}/mcp`, {
    method: "POST",
    headers: statelessHeaders("tools/call", "add"),
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "add", arguments: { a: 1, b: 2 }, _meta: meta }
    })
  })
  return { status: response.status, body: await response.json() }
}

const added = { status: 200, body: { jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "3" }] } } }

beforeAll(async () => {
  const installed = spawnSync(process.execPath, [
    path.join(root, "scripts/runtime-install.mjs"),
    "bun",
    "deno",
    "workerd"
  ], {
    encoding: "utf8",
    timeout: 300_000
  })
  if (installed.status !== 0) throw new Error(`the runtimes could not be installed: ${installed.stderr}`)
  for (const [sample, conditions] of [["web", []], ["worker", ["workerd", "worker"]]] as const) {
    await esbuild.build({
      entryPoints: [path.join(root, `test/readme/${sample}.ts`)],
      outfile: path.join(work, `${sample}.mjs`),
      bundle: true,
      platform: "browser",
      format: "esm",
      conditions: [...conditions, "@effect-mcp/source"],
      logLevel: "silent"
    })
  }
}, 360_000)

afterAll(async () => {
  await Promise.all(children.map((child) =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve()
      child.once("exit", () => resolve())
      // (`deno serve` shuts down gracefully on SIGTERM: it waits for the client's kept-alive connection.)
      child.kill("SIGKILL")
    })
  ))
  fs.rmSync(work, { recursive: true, force: true })
})

describe("docs/runtimes.md: the samples on Bun, Deno and workerd", () => {
  it("web.ts: `bun run web.ts` serves it", async () => {
    const port = await freePort()
    await start(bin("bun"), ["run", "web.mjs"], { PORT: String(port), MCP_REQUEST_STATE_KEY: key }, /server: http/)
    expect(await add(port)).toMatchObject(added)
  })

  it("web.ts: `deno serve --allow-env web.ts` serves it", async () => {
    const port = await freePort()
    await start(
      bin("deno"),
      ["serve", "--allow-env", "--port", String(port), "web.mjs"],
      { MCP_REQUEST_STATE_KEY: key },
      /Listening on/
    )
    expect(await add(port)).toMatchObject(added)
  })

  it("worker.ts: a Worker on workerd serves 2026-07-28 and refuses a handshake-era initialize, naming the revision", async () => {
    fs.writeFileSync(
      path.join(work, "worker.capnp"),
      `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .worker)],
  sockets = [(name = "http", address = "127.0.0.1:0", http = (), service = "main")]
);
const worker :Workerd.Worker = (
  modules = [(name = "worker.mjs", esModule = embed "worker.mjs")],
  compatibilityDate = "2026-11-01",
  bindings = [(name = "MCP_REQUEST_STATE_KEY", fromEnvironment = "MCP_REQUEST_STATE_KEY")]
);
`
    )
    // workerd says the port it listens on on its control descriptor.
    const said = await start(
      bin("workerd"),
      ["serve", path.join(work, "worker.capnp"), "config", "--control-fd", "3"],
      { MCP_REQUEST_STATE_KEY: key },
      /"port":(\d+)/
    )
    const port = Number(said[1])
    expect(await add(port)).toMatchObject(added)
    const initialize = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: "POST",
      headers: { accept: "application/json, text/event-stream", "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "readme", version: "1.0.0" } }
      })
    })
    expect(await initialize.json()).toMatchObject({
      id: 2,
      error: { code: -32022, data: { supported: ["2026-07-28"], requested: "2025-11-25" } }
    })
  })
})
