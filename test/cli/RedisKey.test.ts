/**
 * `mcp gateway` and `mcp proxy` (apps/cli, built) with a Redis: instances behind one balancer share
 * it, and so must share `MCP_REQUEST_STATE_KEY`; without one each would seal 2026-07-28
 * `requestState` with a random key of its own, which no other opens. So `--redis` (or
 * `MCP_REDIS_URL`) without the key is one line on stderr and exit 1, and a Redis URL refused is
 * shown without its password. Before, both served without the key, and the bad URL was echoed whole
 * (this test failed).
 */
import { assert, describe, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Programs from "../support/Programs.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const mcpMain = Programs.mcpMain
const demoMain = Programs.demoMain

/** A gateway's configuration file, of the demo over stdio. */
const config = () => {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), "mcp-redis-key-")), "gateway.json")
  writeFileSync(
    file,
    JSON.stringify({ mcpServers: { demo: { command: process.execPath, args: [demoMain, "stdio"] } } })
  )
  return file
}

/** `mcp ...args` run to its end (it ends at once when it refuses), with `env` and without a key or a Redis of ours. */
const refused = (args: ReadonlyArray<string>, env: Record<string, string> = {}) => {
  const { MCP_REDIS_URL: _url, MCP_REQUEST_STATE_KEY: _key, ...inherited } = process.env
  const run = spawnSync(process.execPath, [mcpMain, ...args], {
    cwd: root,
    env: { ...inherited, ...env },
    input: "",
    encoding: "utf8",
    timeout: 30_000
  })
  return { status: run.status, stderr: run.stderr }
}

const noKey = (where: string) =>
  `mcp: ${where} needs MCP_REQUEST_STATE_KEY, the same on every instance (else a requestState sealed by one ` +
  "cannot be opened by another): make one with openssl rand -base64 32\n"

const target = `stdio:${process.execPath} ${demoMain} stdio`
const key = { MCP_REQUEST_STATE_KEY: "k".repeat(48) }

describe("mcp gateway / mcp proxy with a Redis", () => {
  it("--redis or MCP_REDIS_URL without MCP_REQUEST_STATE_KEY: one line on stderr, exit 1", () => {
    assert.deepStrictEqual(refused(["gateway", "--config", config(), "--redis", "redis://127.0.0.1:1"]), {
      status: 1,
      stderr: noKey("--redis")
    })
    assert.deepStrictEqual(refused(["proxy", target, "--port", "0"], { MCP_REDIS_URL: "redis://127.0.0.1:1" }), {
      status: 1,
      stderr: noKey("MCP_REDIS_URL")
    })
  }, 60_000)

  it("a Redis URL refused is shown without its password", () => {
    assert.deepStrictEqual(
      refused(["gateway", "--config", config(), "--redis", "http://admin:s3cret@cache:6379/0"], key),
      { status: 1, stderr: `mcp: --redis must be a redis:// or rediss:// URL, not "http://***@cache:6379/0"\n` }
    )
    assert.deepStrictEqual(refused(["proxy", target], { ...key, MCP_REDIS_URL: "redis//:s3/cret@cache:6379" }), {
      status: 1,
      stderr: `mcp: MCP_REDIS_URL must be a redis:// or rediss:// URL, not "***@cache:6379"\n`
    })
  }, 60_000)
})
