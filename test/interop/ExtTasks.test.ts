/**
 * Interop with a tasks client nobody here wrote: `@modelcontextprotocol/ext-tasks` 0.2.2 (its
 * `createTaskSessionFromClient` on the official SDK client, `@modelcontextprotocol/client` 2.4.0),
 * speaking 2025-11-25 to the demo server (`apps/everything`) over stdio and over Streamable HTTP.
 *
 * ext-tasks polls `tasks/get` and never calls `tasks/result` (issue 35, item 13): a task that asks
 * (`confirm_delete` elicits a confirmation) used to wait for a `tasks/result` that never came, so
 * the call hung. The server now sends the ask at once when no `tasks/result` waits (stdio: on its
 * output; HTTP: on the session's GET stream), tagged with the task; ext-tasks correlates it by the
 * related-task `_meta`, answers it, and settles the task with its result.
 */
import { Services } from "@effect-mcp/test-support"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { createTaskSessionFromClient, resultFromTaskOutcome } from "@modelcontextprotocol/ext-tasks/client"
import * as Effect from "effect/Effect"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { afterEach, assert, describe, it } from "vitest"
import * as Programs from "../support/Programs.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const main = Programs.demoMain

const closing: Array<() => Promise<unknown> | unknown> = []
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await Promise.resolve(close()).catch(() => undefined)
})

const freePort = (): Promise<number> => Effect.runPromise(Services.freePort)

/** The demo over HTTP: its URL once it listens. */
const http = async (): Promise<URL> => {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}/mcp`
  const child: ChildProcess = spawn(process.execPath, [main, "http", "--port", String(port)], {
    cwd: root,
    stdio: ["ignore", "ignore", "pipe"]
  })
  closing.push(() => child.kill())
  let said = ""
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on("data", (chunk: Buffer) => {
      said += chunk.toString()
      if (said.includes(url)) resolve()
    })
    child.once("exit", (code) => reject(new Error(`apps/everything exited with ${code}: ${said}`)))
  })
  return new URL(url)
}

const transports = {
  stdio: async () => new StdioClientTransport({ command: process.execPath, args: [main, "stdio"], cwd: root }),
  http: async () => new StreamableHTTPClientTransport(await http())
} as const

describe("ext-tasks 0.2.2 (2025-11-25) against the demo server", () => {
  for (const [name, transport] of Object.entries(transports)) {
    it(
      `over ${name}: a task that asks is answered through ext-tasks' input handler, and settles with its result`,
      async () => {
        if (!fs.existsSync(main)) throw new Error(`${main} is missing: run "tsc -b tsconfig.json" first`)
        const client = new Client(
          { name: "ext-tasks-interop", version: "1.0.0" },
          { capabilities: { elicitation: {}, tasks: { list: {}, cancel: {} } } }
        )
        await client.connect(await transport())
        closing.push(() => client.close())
        assert.strictEqual(client.getNegotiatedProtocolVersion(), "2025-11-25")
        const asked: Array<any> = []
        const session = createTaskSessionFromClient(client, {
          endpointId: `everything-${name}`,
          onInputRequest: async (request: any, context: any) => {
            asked.push({ request, context })
            return { action: "accept", content: { confirm: true } } as any
          }
        })
        closing.push(() => session.close())
        const execution = await session.callTool("confirm_delete", { filename: "notes.txt" }, {
          task: { preference: "require" }
        })
        assert.strictEqual(execution.kind, "task")
        const { outcome } = await execution.settle()
        const result = resultFromTaskOutcome(outcome) as any
        assert.deepStrictEqual(result.content, [{ type: "text", text: "Deleted notes.txt" }])
        // Asked once, correlated to the task by its related-task _meta.
        assert.strictEqual(asked.length, 1)
        assert.strictEqual(asked[0].request.kind, "elicitation")
        assert.strictEqual(asked[0].request.params.message, "Delete notes.txt?")
        assert.strictEqual(asked[0].context.scope, "task")
        assert.strictEqual(asked[0].context.taskId, execution.handle?.taskId)
      },
      30_000
    )
  }
})
