/**
 * Issue 35, item 1: a running task keeps only what it needs. The demo server (`apps/everything`,
 * HTTP, both eras) runs under a small heap (`--max-old-space-size=64`, a quarter of the 256 MB
 * the attack used) while a 2026-07-28 client starts `slow_compute` (an hour's sleep) as
 * tasks:
 *
 * - with a 2 MB argument its schema drops: each running task used to keep the whole request (the
 *   message in its request's context, and its fiber's parent), about 2 MB each, and the server
 *   died of it after about 15 tasks; now a task keeps its decoded arguments and `_meta`, and 24 of
 *   them run in a few hundred kilobytes;
 * - with a 2 MB `label` the schema keeps (the handler needs it): what a running task holds is
 *   counted against the task store's byte bounds, so one client's eighth such task is refused
 *   (its 16 Mi per owner), with the request's id, where all used to be taken and kept uncounted;
 *   another client (another address: its connection bound to 127.0.0.2) still gets its own.
 *
 * Each case ends by asking the server something: it must still answer.
 */
import { Services } from "@effect-mcp/test-support"
import * as Effect from "effect/Effect"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { afterEach, assert, describe, it } from "vitest"
import * as Programs from "../support/Programs.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const main = Programs.demoMain
const TASKS = "io.modelcontextprotocol/tasks"

const freePort = (): Promise<number> => Effect.runPromise(Services.freePort)

const children: Array<ChildProcess> = []
afterEach(() => {
  for (const child of children.splice(0)) child.kill()
})

/** The demo over HTTP under a 64 MB heap: its URL, and what it said on stderr (kept for a failure's message). */
const start = async () => {
  if (!fs.existsSync(main)) throw new Error(`${main} is missing: run "tsc -b tsconfig.json" first`)
  const port = await freePort()
  const url = `http://127.0.0.1:${port}/mcp`
  const child = spawn(process.execPath, ["--max-old-space-size=64", main, "http", "--port", String(port)], {
    cwd: root,
    stdio: ["ignore", "ignore", "pipe"]
  })
  children.push(child)
  const said = { text: "", exited: undefined as string | undefined }
  child.stderr!.on("data", (chunk: Buffer) => (said.text = (said.text + chunk.toString()).slice(-8_000)))
  child.once("exit", (code, signal) => (said.exited = `exited with ${code ?? signal}`))
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (said.text.includes(url)) {
        clearInterval(timer)
        resolve()
      } else if (said.exited !== undefined) {
        clearInterval(timer)
        reject(new Error(`apps/everything ${said.exited}: ${said.text}`))
      }
    }, 20)
  })
  return { url, said }
}

let ids = 0
/**
 * A 2026-07-28 request that declares the tasks extension, as JSON text, from the address `from`
 * (the client's end of the connection is bound to it: the server owns a task without a token by
 * it); the answer as JSON.
 */
const post = async (url: string, method: string, params: Record<string, unknown>, from = "127.0.0.1") => {
  const id = ++ids
  const name = (params.name ?? params.taskId) as string
  const body = `{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)},"params":${
    JSON.stringify({
      ...params,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS]: {} } },
        "io.modelcontextprotocol/clientInfo": { name: "hostile", version: "1" }
      }
    })
  }}`
  const text = await new Promise<string>((resolve, reject) => {
    const request = http.request(url, {
      method: "POST",
      localAddress: from,
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "content-length": Buffer.byteLength(body),
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": method,
        "mcp-name": name
      }
    }, (response) => {
      let received = ""
      response.setEncoding("utf8")
      response.on("data", (chunk: string) => (received += chunk))
      response.on("end", () => resolve(received))
      response.on("error", reject)
    })
    request.on("error", reject)
    request.end(body)
  })
  return { id, message: JSON.parse(text) }
}

const megabytes = (n: number, tag: number) => `${tag}:`.padEnd(n * 1024 * 1024, "x")

describe("running tasks under a 64 MB heap (issue 35, item 1)", () => {
  it("24 tasks, each called with a 2 MB argument the tool's schema drops: all run, the server lives", async () => {
    const { said, url } = await start()
    const created: Array<string> = []
    for (let i = 0; i < 24; i++) {
      const { message } = await post(url, "tools/call", {
        name: "slow_compute",
        arguments: { seconds: 3600, dropped: megabytes(2, i) }
      }).catch((error) => {
        throw new Error(`task ${i}: ${error} (the server ${said.exited ?? "is up"}) ${said.text}`)
      })
      assert.strictEqual(message.result?.resultType, "task", JSON.stringify(message).slice(0, 500))
      created.push(message.result.taskId)
    }
    const { message } = await post(url, "tasks/get", { taskId: created[0] })
    assert.strictEqual(message.result.status, "working")
    assert.isUndefined(said.exited)
  }, 60_000)

  it("tasks with a 2 MB label the tool keeps: counted, one client's eighth is refused with its id", async () => {
    const { said, url } = await start()
    const answers: Array<{ readonly id: number; readonly message: any }> = []
    for (let i = 0; i < 12; i++) {
      answers.push(
        await post(url, "tools/call", { name: "slow_compute", arguments: { seconds: 3600, label: megabytes(2, i) } })
      )
    }
    const created = answers.filter((a) => a.message.result?.resultType === "task")
    const refused = answers.filter((a) => a.message.error !== undefined)
    // 16 Mi per owner: seven tasks of 2 Mi (and what each runner holds) fit, the eighth does not.
    assert.strictEqual(created.length, 7, JSON.stringify(answers.map((a) => a.message.error ?? "task")))
    assert.strictEqual(refused.length, 5)
    for (const { id, message } of refused) {
      assert.strictEqual(message.id, id)
      assert.strictEqual(message.error.code, -32603)
      assert.include(message.error.message, "hold too much")
    }
    // Another client (another address, so another owner) is not refused for it, even with a task as
    // large; the server answers on. (Before owners were addresses, a self-chosen clientInfo name
    // told clients apart; sent from 127.0.0.1, this one would be the first client and be refused.)
    const other = await post(url, "tools/call", {
      name: "slow_compute",
      arguments: { seconds: 3600, label: megabytes(2, 99) }
    }, "127.0.0.2")
    assert.strictEqual(other.message.result?.resultType, "task", JSON.stringify(other.message).slice(0, 500))
    const task = await post(url, "tasks/get", { taskId: other.message.result.taskId }, "127.0.0.2")
    assert.strictEqual(task.message.result?.status, "working", JSON.stringify(task.message))
    assert.isUndefined(said.exited)
  }, 60_000)
})
