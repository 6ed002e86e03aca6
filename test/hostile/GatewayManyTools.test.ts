/**
 * `mcp gateway` in front of an upstream listing 100,000 tools (100 pages of 1,000), at the wire over
 * stdio under a 64 MiB heap. Before: each tool mirrored was a copy of the server's registry (n² in
 * all): 10,000 tools were not served after two minutes, 100,000 ran the gateway out of its heap
 * (SIGABRT). Now a listing past the mirror's `maxEntries` (1,000 a kind) is not served, with a
 * warning, and the gateway goes on; 1,000 are served.
 */
import { describe, expect, it } from "@effect/vitest"
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Programs from "../support/Programs.js"
import { stdioWire } from "../support/StdioWire.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const mcpMain = Programs.mcpMain
const many = path.join(root, "test/hostile/fixtures/many-tools.mjs")

/** The gateway in front of `many-tools.mjs count`, once it says the upstream is up; its stderr, a request. */
const gateway = async (count: number) => {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), "many-tools-")), "gateway.json")
  writeFileSync(
    file,
    JSON.stringify({ mcpServers: { up: { command: process.execPath, args: [many, String(count)] } } })
  )
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    ["--max-old-space-size=64", mcpMain, "gateway", "--config", file],
    { cwd: root, stdio: ["pipe", "pipe", "pipe"] }
  )
  let exited: string | undefined
  child.on("exit", (code, signal) => exited = `${code} ${signal}`)
  const { open, request, stderr, until } = stdioWire(child)
  await until(() => stderr.some((line) => line.includes("up is up")))
  await open()
  /** Every tool the gateway lists downstream. */
  const tools = async () => {
    const all: Array<string> = []
    let cursor: string | undefined
    do {
      const { result } = await request("tools/list", cursor === undefined ? {} : { cursor })
      all.push(...result.tools.map((tool: { name: string }) => tool.name))
      cursor = result.nextCursor
    } while (cursor !== undefined)
    return all
  }
  return { child, stderr, tools, request, exited: () => exited }
}

describe("mcp gateway in front of an upstream with many tools", () => {
  it("100,000 tools: not served, with a warning, the gateway alive and answering", async () => {
    const g = await gateway(100_000)
    try {
      expect(await g.tools()).toEqual([])
      expect(
        g.stderr.some((line) =>
          line.includes("up: the upstream lists 100000 tools, more than the 1000 mirrored (maxEntries)")
        )
      ).toBe(true)
      // The gateway goes on: a ping answered, the process alive.
      expect((await g.request("ping")).result).toEqual({})
      expect(g.exited()).toBeUndefined()
    } finally {
      g.child.kill()
    }
  }, 60_000)

  it("1,000 tools: all served", async () => {
    const g = await gateway(1_000)
    try {
      const names = await g.tools()
      expect(names.length).toBe(1000)
      expect(names).toContain("up_t999")
    } finally {
      g.child.kill()
    }
  }, 60_000)
})
