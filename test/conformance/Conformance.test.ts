/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance 0.2.0-alpha.12, patched
 * for Node 20) against apps/everything over Streamable HTTP on a free loopback port, serving both
 * eras on one endpoint (its default): the 2025-11-25 requirement set and the 2026-07-28 one.
 *
 * The run fails when any scored scenario of the requirement set fails or any check warns; the
 * unscored scenarios this server implements (session lifecycle, SSE polling, JSON Schema 2020-12,
 * the tasks extension) are held to the same standard (`serverSuite.ts`, shared with the runs on Bun,
 * Deno and workerd).
 */
import { Services } from "@effect-mcp/test-support"
import { afterAll, beforeAll, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { type ChildProcess, spawn } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Programs from "../support/Programs.js"
import { passes2025, passes2026, run } from "./serverSuite.js"

const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, "../..")

const freePort = (): Promise<number> => Effect.runPromise(Services.freePort)

let server: ChildProcess | undefined
let url = ""

beforeAll(async () => {
  const port = await freePort()
  url = `http://127.0.0.1:${port}/mcp`
  server = spawn(process.execPath, [Programs.demoMain, "http", "--port", String(port)], {
    cwd: root,
    stdio: ["ignore", "ignore", "pipe"]
  })
  // Ready when it says where it listens (on stderr).
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("apps/everything did not start")), 20_000)
    server!.stderr!.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes(url)) {
        clearTimeout(timer)
        resolve()
      }
    })
    server!.once("exit", (code) => reject(new Error(`apps/everything exited with ${code}`)))
  })
}, 30_000)

afterAll(() => {
  server?.kill()
})

describe("official conformance suite, server, 2025-11-25", () => {
  it("passes every scored scenario (and the unscored ones it runs)", async () => {
    passes2025(await run(url, "2025-11-25"))
  }, 120_000)
})

describe("official conformance suite, server, 2026-07-28", () => {
  it("passes every scored scenario and the pending header and JSON Schema ones", async () => {
    passes2026(await run(url, "2026-07-28"))
  }, 120_000)
})
