/**
 * `mcp gateway` over stdio in front of our demo (stdio, in `era`), the requests the demo is sent
 * counted by method (`test/hostile/fixtures/count-upstream.mjs`), with one downstream client at the
 * wire (`StdioWire`, handshake done). `upstream()` reads the counts once a request through to the
 * demo is answered, so every request sent before it is counted.
 */
import { expect } from "@effect/vitest"
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { onTestFinished } from "vitest"
import * as Programs from "./Programs.js"
import { stdioWire } from "./StdioWire.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const counter = path.join(root, "test/hostile/fixtures/count-upstream.mjs")

export const countedGateway = async (era: "handshake" | "stateless") => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "counted-gateway-"))
  const counts = path.join(dir, "counts.json")
  const file = path.join(dir, "gateway.json")
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: {
        demo: {
          command: process.execPath,
          args: [counter, process.execPath, Programs.demoMain, "stdio", "--era", era],
          env: { COUNT_FILE: counts }
        }
      }
    })
  )
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    [Programs.mcpMain, "gateway", "--config", file, "--start-timeout", "60"],
    { cwd: root, stdio: ["pipe", "pipe", "pipe"] }
  )
  onTestFinished(() => {
    child.kill()
  })
  const wire = stdioWire(child)
  await wire.until(() => wire.stderr.some((line) => line.includes("demo is up")))
  await wire.open()
  /** The upstream's requests by method, once a request through to it is answered (all before it counted). */
  const upstream = async (): Promise<Record<string, number>> => {
    const read = await wire.request("resources/read", { uri: "demo+test://template/x/data" })
    expect(read.result?.contents?.[0]?.uri).toBe("demo+test://template/x/data")
    return JSON.parse(readFileSync(counts, "utf8"))
  }
  return { ...wire, upstream }
}
