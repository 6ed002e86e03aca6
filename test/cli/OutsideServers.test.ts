/**
 * The `mcp` command (apps/cli, built) against servers nobody here wrote: the official SDK v1
 * (2025-only, tools only, as @modelcontextprotocol/server-filesystem declares), over stdio and over
 * Streamable HTTP as the SDK's stateless example serves it (no session, GET 405); and the demo
 * pinned to the handshake era. What it says must name what happened:
 *
 * - `resources` / `prompts` of a server that declared neither: one line on stderr, exit 0, an
 *   empty list under `--json` (nothing is asked: only negotiated capabilities are used);
 * - logs (a junk frame's warning) on stderr, never before the `--json` answer;
 * - `--era stateless` against a handshake-only server names the pin, not every revision we speak;
 * - a bare `Method not found` from a server names the method;
 * - `listen` in the handshake era to a server whose GET is 405 says it cannot, exit 1.
 */
import { Services } from "@effect-mcp/test-support"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Programs from "../support/Programs.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const mcpMain = Programs.mcpMain
const everything = Programs.demoMain
const sdkV1 = path.join(root, "test/cli/fixtures/sdk-v1-server.mjs")
const sdkStdio = `stdio:${process.execPath} ${sdkV1} stdio`

/** `mcp ...args`, no input: its exit code and what it wrote. */
const mcp = (...args: ReadonlyArray<string>) =>
  new Promise<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [mcpMain, ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    // A command that hangs (a listen that never ends) is ended, for the assertions to say so.
    const deadline = setTimeout(() => child.kill(), 45_000)
    child.on("close", (code) => {
      clearTimeout(deadline)
      resolve({ code, stdout, stderr })
    })
  })

/** `node args…` until `kill`, once its stderr shows a URL: that URL. */
const serving = async (args: ReadonlyArray<string>) => {
  const server = spawn(process.execPath, args, { cwd: root, stdio: ["ignore", "ignore", "pipe"] })
  const url = await new Promise<string>((resolve) => {
    let seen = ""
    server.stderr.on("data", (chunk) => {
      seen += chunk
      const found = /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(seen)
      if (found !== null) resolve(found[0])
    })
  })
  return { url, kill: () => server.kill() }
}

const freePort = (): Promise<number> => Effect.runPromise(Services.freePort)

describe("mcp against a server that declares tools only (the official SDK v1)", () => {
  for (
    const [command, feature, empty] of [["resources", "resources", { resources: [], resourceTemplates: [] }], [
      "prompts",
      "prompts",
      []
    ]] as const
  ) {
    it(`${command}: one line saying it has none, exit 0; --json: an empty list`, async () => {
      const line = `mcp: the server has no ${feature} (it declares no ${feature} capability)\n`
      const readable = await mcp(command, sdkStdio)
      assert.strictEqual(readable.code, 0, readable.stderr)
      assert.strictEqual(readable.stdout, "")
      assert.strictEqual(readable.stderr, line)
      const json = await mcp(command, sdkStdio, "--json")
      assert.strictEqual(json.code, 0, json.stderr)
      assert.deepStrictEqual(JSON.parse(json.stdout), empty)
      assert.strictEqual(json.stderr, line)
    }, 60_000)
  }

  it("read and get are refused without asking, in one line, exit 1; call works", async () => {
    const read = await mcp("read", sdkStdio, "file:///etc/hostname")
    assert.strictEqual(read.code, 1)
    assert.strictEqual(read.stderr, "mcp: the server has no resources (it declares no resources capability)\n")
    const get = await mcp("get", sdkStdio, "greeting")
    assert.strictEqual(get.code, 1)
    assert.strictEqual(get.stderr, "mcp: the server has no prompts (it declares no prompts capability)\n")
    const call = await mcp("call", sdkStdio, "echo", "--args", "{\"text\":\"hi\"}")
    assert.strictEqual(call.code, 0, call.stderr)
    assert.strictEqual(call.stdout, "hi\n")
  }, 90_000)

  it("--json: a junk frame's warning goes to stderr, the answer alone to stdout", async () => {
    const result = await mcp("tools", `${sdkStdio} --junk`, "--json")
    assert.strictEqual(result.code, 0, result.stderr)
    assert.deepStrictEqual(JSON.parse(result.stdout).map((t: { readonly name: string }) => t.name), ["echo"])
    assert.match(result.stderr, /level=WARN .*the server sent an invalid frame/)
  })

  it("--era stateless: the server's bare 'Method not found' names the method", async () => {
    const result = await mcp("tools", sdkStdio, "--era", "stateless")
    assert.strictEqual(result.code, 1)
    assert.strictEqual(result.stdout, "")
    assert.strictEqual(result.stderr, "mcp: Method not found: server/discover\n")
  })

  it("listen over HTTP, whose GET is 405: says it cannot, exit 1, never 'listening'", async () => {
    const server = await serving([sdkV1, "http"])
    try {
      for (const era of ["auto", "handshake"]) {
        const result = await mcp("listen", server.url, "--tools", "--era", era)
        assert.strictEqual(result.code, 1, era)
        assert.strictEqual(result.stdout, "", era)
        assert.strictEqual(
          result.stderr,
          "mcp: cannot listen: The server has no stream for notifications outside a request " +
            "(its GET answered HTTP 405): nothing it raises could arrive\n",
          era
        )
      }
      // What it serves still works.
      const tools = await mcp("tools", server.url)
      assert.strictEqual(tools.code, 0, tools.stderr)
      assert.match(tools.stdout, /^echo\s+Echoes its text$/m)
    } finally {
      server.kill()
    }
  }, 90_000)
})

describe("mcp proxy in front of a server whose GET is 405", () => {
  it("says once that the upstream's changes are not followed, and serves its tools", async () => {
    const upstream = await serving([sdkV1, "http"])
    const port = await freePort()
    const proxy = spawn(process.execPath, [mcpMain, "proxy", upstream.url, "--port", String(port)], {
      cwd: root,
      stdio: ["ignore", "ignore", "pipe"]
    })
    try {
      let said = ""
      const line = "mcp proxy: the upstream's changes are not followed: The server has no stream for notifications " +
        "outside a request (its GET answered HTTP 405): nothing it raises could arrive"
      await new Promise<void>((resolve) =>
        proxy.stderr.on("data", (chunk) => {
          said += chunk
          if (said.includes(line)) resolve()
        })
      )
      const tools = await mcp("tools", `http://127.0.0.1:${port}/mcp`)
      assert.strictEqual(tools.code, 0, tools.stderr)
      assert.match(tools.stdout, /^echo\s+Echoes its text$/m)
      assert.strictEqual(said.split(line).length - 1, 1)
    } finally {
      proxy.kill()
      upstream.kill()
    }
  }, 90_000)
})

describe("mcp pinned to an era the server does not speak", () => {
  it("--era stateless against a handshake-only server names the pin, not every revision we speak", async () => {
    const port = await freePort()
    const server = await serving([everything, "http", "--port", String(port), "--era", "handshake"])
    try {
      const result = await mcp("tools", server.url, "--era", "stateless")
      assert.strictEqual(result.code, 1)
      assert.strictEqual(result.stdout, "")
      assert.strictEqual(
        result.stderr,
        "mcp: The server speaks 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25; " +
          "this client is pinned to the stateless era (2026-07-28)\n"
      )
    } finally {
      server.kill()
    }
  })
})
