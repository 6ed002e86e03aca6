/**
 * Over stdio on Bun and on Deno, both eras:
 *
 * - the demo's stdio server (`apps/everything/src/main.ts stdio`: `NodeMcpServer.serveStdio` on
 *   @effect/platform-node, bundled for Node into one ES module) run by `bun` and by `deno run`
 *   (their `node:*` modules; Deno with `--allow-env --allow-read` only), driven from Node by our
 *   client (`NodeMcpClient.layerStdio`) and by the official SDK client (`StdioClientTransport`):
 *   list, call, a multi-round trip (an elicitation answered by the client's handler);
 * - the same through the root script, `pnpm run everything:bun stdio` (`scripts/everything-web.mjs`:
 *   it bundles the entry, then runs it on the runtime), in one era;
 * - our client run by `bun` and by `deno run` (`stdio-client.ts`, bundled for Node): of the demo's
 *   stdio server on Node (it spawns it with the runtime's `node:child_process`), and of the demo's
 *   HTTP server on Node over Streamable HTTP (the runtime's own `fetch`).
 *
 * The runtimes come from the npm registry (see `install.ts`), never installed globally.
 */
import { NodeMcpClient } from "@effect-mcp/platform-node"
import { Services } from "@effect-mcp/test-support"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import * as Effect from "effect/Effect"
import * as esbuild from "esbuild"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest"
import { officialOver, oursOver, simpleText } from "./drivers.js"
import { binary, install, runtimeEnv } from "./install.js"

const root = path.resolve(import.meta.dirname, "../..")
const work = fs.mkdtempSync(path.join(os.tmpdir(), "effect-mcp-stdio-runtimes-"))
const server = path.join(work, "everything.mjs")
const client = path.join(work, "stdio-client.mjs")

/** Bundles an entry for Node, from the sources (a CommonJS dependency gets a `require` of its own). */
const bundle = (entry: string, outfile: string) =>
  esbuild.build({
    entryPoints: [path.join(root, entry)],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    minify: true,
    conditions: ["@effect-mcp/source"],
    banner: {
      js:
        "import { createRequire as __mcpCreateRequire } from 'node:module'; const require = __mcpCreateRequire(import.meta.url);"
    },
    logLevel: "silent"
  })

beforeAll(async () => {
  install()
  await Promise.all([bundle("apps/everything/src/main.ts", server), bundle("test/runtimes/stdio-client.ts", client)])
}, 360_000)

afterAll(() => fs.rmSync(work, { recursive: true, force: true }))

const env = { ...process.env, ...runtimeEnv } as Record<string, string>

/** How each runtime runs a bundle: Deno with the permissions it needs (the client spawns: `--allow-run`). */
const runtimes: ReadonlyArray<readonly [string, (script: string) => readonly [string, ReadonlyArray<string>]]> = [
  ["Bun", (script) => [binary("bun"), [script]]],
  ["Deno", (script) => [binary("deno"), ["run", "--allow-env", "--allow-read", "--allow-run", script]]]
]

const freePort = (): Promise<number> => Effect.runPromise(Services.freePort)

/** Runs our client under a runtime (it spawns the demo on Node): the one JSON line it writes. */
const runClient = (command: string, args: ReadonlyArray<string>) =>
  new Promise<any>((resolve, reject) => {
    const child = spawn(command, [...args], { env, stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    let err = ""
    child.stdout!.setEncoding("utf8").on("data", (text: string) => out += text)
    child.stderr!.setEncoding("utf8").on("data", (text: string) => err += text)
    child.once("error", reject)
    child.once("exit", (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`${command} exited (${code}): ${err}${out}`)))
  })

/** Both eras, each in a process of its own (at once), and the revision each speaks. */
const eras = ["handshake", "stateless"] as const
const revisionOf = { handshake: "2025-11-25", stateless: "2026-07-28" } as const

const expectServed = (
  seen: { readonly tools: ReadonlyArray<string>; readonly simple: unknown; readonly asked: unknown }
) => {
  expect(seen.tools).toContain("test_elicitation")
  expect(seen.simple).toEqual(simpleText)
  expect(JSON.stringify(seen.asked)).toContain("ada@example.com")
}

for (const [name, run] of runtimes) {
  describe(`over stdio on ${name}`, () => {
    it("the demo's stdio server: our client, 2025-11-25 and 2026-07-28: list, call, a multi-round trip", async () => {
      const [command, args] = run(server)
      await Promise.all(eras.map(async (era) => {
        const transport = NodeMcpClient.layerStdio({ command, args: [...args, "stdio"], env, stderr: "ignore" })
        const seen = await oursOver(transport, { era, name: "stdio-runtimes-test" })
        expect(seen.era).toBe(era)
        expect(seen.revision).toBe(revisionOf[era])
        expectServed(seen)
      }))
    })

    it("the demo's stdio server: the official SDK client, 2025-11-25 and 2026-07-28: list, call, a multi-round trip", async () => {
      const [command, args] = run(server)
      await Promise.all(eras.map(async (era) => {
        const transport = new StdioClientTransport({ command, args: [...args, "stdio"], env, stderr: "ignore" })
        const seen = await officialOver(transport, { name: "official-stdio-runtimes-client", era })
        expect(seen.revision).toBe(revisionOf[era])
        expectServed(seen)
      }))
    })

    it("our client on it, of the demo's stdio server on Node, 2025-11-25 and 2026-07-28: list, call, a multi-round trip", async () => {
      const [command, args] = run(client)
      await Promise.all(eras.map(async (era) => {
        const seen = await runClient(command, [...args, "--era", era, "--", process.execPath, server, "stdio"])
        expect(seen.era).toBe(era)
        expect(seen.revision).toBe(revisionOf[era])
        expectServed(seen)
      }))
    })

    it("our client on it over Streamable HTTP, of the demo's HTTP server on Node, 2025-11-25 and 2026-07-28: list, call, a multi-round trip", async () => {
      const port = await freePort()
      const demo = spawn(process.execPath, [server, "http", "--port", String(port)], {
        env,
        stdio: ["ignore", "ignore", "pipe"]
      })
      onTestFinished(() =>
        new Promise<void>((resolve) => {
          if (demo.exitCode !== null || demo.signalCode !== null) return resolve()
          demo.once("exit", () => resolve())
          demo.kill("SIGTERM")
        })
      )
      const url = `http://127.0.0.1:${port}/mcp`
      let said = ""
      await new Promise<void>((resolve, reject) => {
        demo.stderr!.setEncoding("utf8").on("data", (text: string) => {
          said += text
          if (said.includes(url)) resolve()
        })
        demo.once("exit", (code) => reject(new Error(`the demo exited (${code}) before listening: ${said}`)))
      })
      const [command, given] = run(client)
      // Deno's client connects: `--allow-net` too.
      const args = name === "Deno" ? ["run", "--allow-net", ...given.slice(1)] : given
      await Promise.all(eras.map(async (era) => {
        const seen = await runClient(command, [...args, "--era", era, "--url", url])
        expect(seen.era).toBe(era)
        expect(seen.revision).toBe(revisionOf[era])
        expectServed(seen)
      }))
    })
  })
}

// The root script once (it bundles the entry, a few seconds): on Bun; `everything:deno stdio` differs
// only by Deno's permissions, those of the Deno tests above.
it("the root script, `pnpm run everything:bun stdio --era stateless`: our client: list, call, a multi-round trip", async () => {
  const transport = NodeMcpClient.layerStdio({
    command: process.execPath,
    args: [path.join(root, "scripts/everything-web.mjs"), "bun", "stdio", "--era", "stateless"],
    cwd: root,
    env,
    stderr: "ignore"
  })
  const seen = await oursOver(transport, { era: "stateless", name: "stdio-runtimes-test" })
  expect(seen.revision).toBe("2026-07-28")
  expectServed(seen)
})
