/**
 * What a server over stdio loads as it starts (issue 42, startup of compiled output): the
 * packages' entry points load what a transport, the client, authorization or telemetry needs
 * when it is first needed, not when `@effect-mcp/platform-node` or `@effect-mcp/server` is
 * imported. The server (`fixtures/stdio-server.ts --handshake-only`, the tools `add`, `boom`,
 * `sleep`, the handshake revisions alone) answers `initialize` and a `tools/call` over stdio, its
 * input ends, and the modules it resolved are read: none of the client's transports, undici,
 * oauth4webapi, @effect/platform's HTTP client, the HTTP handler, or `node:http` (on Node 22 and
 * later, importing it loads undici); nor the 2026-07-28 era's code (a server that does not speak
 * it), the skills extension's (a server given no skills), the token verifiers' (a server that
 * verifies no tokens), the OAuth loopback's and the client's authorization flow (`NodeOAuth`),
 * telemetry's export (`NodeTelemetry`, telemetry off), or `effect/Stream` and `effect/Mailbox` (the
 * server reads its lines, follows its tasks and its lists' changes without them).
 */
import { assert, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, "../../..")

/** What a stdio server must not have loaded by the time its input ends. */
const notLoaded: ReadonlyArray<readonly [string, RegExp]> = [
  ["the client's transports", /\/packages\/client\/(src|dist)\/(McpClientTransport|McpClient|index)\.(ts|js)$/],
  ["the client's internals", /\/packages\/client\/(src|dist)\/internal\//],
  ["undici", /\/node_modules\/undici\//],
  ["oauth4webapi", /\/oauth4webapi\//],
  ["@effect/platform's HTTP client", /@effect\/platform\/dist\/esm\/(HttpClient|FetchHttpClient)\.js$/],
  ["the HTTP handler", /\/packages\/server\/(src|dist)\/internal\/http\/handler\.(ts|js)$/],
  ["node:http", /^node:http$/],
  ["the 2026-07-28 era", /\/packages\/server\/(src|dist)\/internal\/stateless(Request|Listen)?\.(ts|js)$/],
  ["the skills extension", /\/packages\/server\/(src|dist)\/internal\/skills\.(ts|js)$/],
  ["the token verifiers", /\/packages\/server\/(src|dist)\/internal\/(tokenVerifier|issuer|verified)\.(ts|js)$/],
  ["effect/Cache", /\/effect\/dist\/esm\/Cache\.js$/],
  // 69 modules of Effect between them: only a memory transport, a stream's NDJSON framing, a task store given
  // as a service (or `TaskStore.makeMemory`) or `AppView.file` loads them.
  ["effect/Stream", /\/effect\/dist\/esm\/Stream\.js$/],
  ["effect/Mailbox", /\/effect\/dist\/esm\/Mailbox\.js$/],
  ["the OAuth loopback", /\/packages\/platform-node\/(src|dist)\/internal\/loopback\.(ts|js)$/],
  ["the client's authorization code flow", /\/packages\/client\/(src|dist)\/AuthorizationCode\.(ts|js)$/],
  ["the telemetry export", /\/packages\/platform-node\/(src|dist)\/internal\/(exportAgent|metricUnits)\.(ts|js)$/]
]

/** Runs the fixture: initialize, a tools/call answered, end of input; the modules it resolved. */
const loadedBy = (): Promise<{ readonly modules: ReadonlyArray<string>; readonly lines: ReadonlyArray<string> }> =>
  new Promise((resolve, reject) => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "startup-modules-")), "loaded.txt")
    const child = spawn(process.execPath, [
      "--conditions=@effect-mcp/source",
      "--import",
      "tsx",
      "--import",
      path.join(here, "fixtures", "loaded-modules.mjs"),
      path.join(here, "fixtures", "stdio-server.ts"),
      "--handshake-only"
    ], { cwd: root, stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, LOADED_MODULES_FILE: file } })
    const lines: Array<string> = []
    let pending = ""
    let stderr = ""
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => stderr += chunk)
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      pending += chunk
      for (let newline = pending.indexOf("\n"); newline >= 0; newline = pending.indexOf("\n")) {
        const line = pending.slice(0, newline)
        pending = pending.slice(newline + 1)
        lines.push(line)
        const id = (JSON.parse(line) as { readonly id?: unknown }).id
        if (id === 0) {
          child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n")
          child.stdin.write(
            JSON.stringify({
              jsonrpc: "2.0",
              id: 1,
              method: "tools/call",
              params: { name: "add", arguments: { a: 1, b: 2 } }
            }) + "\n"
          )
        }
        // Answered: the input ends, and the server with it.
        if (id === 1) child.stdin.end()
      }
    })
    child.on("error", reject)
    child.on("exit", (code) => {
      if (code !== 0 || !fs.existsSync(file)) return reject(new Error(`the server exited with ${code}: ${stderr}`))
      resolve({ modules: fs.readFileSync(file, "utf8").split("\n"), lines })
    })
    child.stdin.write(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "test", version: "1.0.0" } }
      }) + "\n"
    )
  })

describe("startup of a server over stdio", () => {
  it(
    "answers over stdio having loaded no client, undici, oauth4webapi, HTTP client or handler, node:http, unspoken era, skills, token verifiers, OAuth loopback, telemetry export, effect/Stream or effect/Mailbox",
    async () => {
      const { lines, modules } = await loadedBy()
      assert.deepStrictEqual(JSON.parse(lines.find((line) => line.includes("\"id\":1"))!).result.content, [
        { type: "text", text: "3" }
      ])
      // The fixture's own packages were seen (the list is the real one).
      assert.isTrue(modules.some((url) => /\/packages\/server\/src\/McpServer\.ts$/.test(url)), modules.join("\n"))
      const found = notLoaded.flatMap(([what, pattern]) =>
        modules.filter((url) => pattern.test(url)).map((url) => `${what}: ${url}`)
      )
      assert.deepStrictEqual(found, [])
    },
    60_000
  )
})
