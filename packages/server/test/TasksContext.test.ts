/**
 * Each task's handler keeps its own AsyncLocalStorage context while it runs beside others: a
 * handler that enters a context (as OpenTelemetry's context manager, a logger's correlation id or
 * a user's request context do) reads its own after its steps interleave with another handler's.
 * Effect (3.20+) gives each fiber a runner of its own for this; a scheduler shared by every
 * task's handler (tried for its 0.3 KB a task) ran one handler's steps in another's context, and
 * this test failed with it ("b" read "a"). Over the in-memory wire, 2026-07-28.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import { AsyncLocalStorage } from "node:async_hooks"
import * as McpServer from "../src/McpServer.js"
import * as TaskStore from "../src/TaskStore.js"
import * as Tool from "../src/Tool.js"
import { attach, clientInfo, meta } from "./utils/TestClient.js"

const TASKS = "io.modelcontextprotocol/tasks"
const p = (params: Record<string, unknown>) => ({
  ...params,
  _meta: meta({ "io.modelcontextprotocol/clientInfo": clientInfo }, { extensions: { [TASKS]: {} } })
})

describe("tasks: each handler's AsyncLocalStorage context is its own", () => {
  it.scoped("two handlers interleaving each read the context they entered", () =>
    Effect.gen(function*() {
      const als = new AsyncLocalStorage<string>()
      const seen = yield* Queue.unbounded<readonly [string, string | undefined]>()
      const Enter = Tool.make("enter", {
        parameters: Schema.Struct({ label: Schema.String }),
        task: "required"
      }, ({ label }) =>
        Effect.gen(function*() {
          yield* Effect.sync(() => als.enterWith(label))
          for (let i = 0; i < 20; i++) yield* Effect.yieldNow()
          yield* Queue.offer(seen, [label, als.getStore()] as const)
          return label
        }))
      const store = yield* TaskStore.makeMemory({})
      const server = yield* McpServer.make({
        serverInfo: { name: "tasks-context", version: "1.0.0" },
        revisions: ["2026-07-28"] as const,
        tools: [Enter]
      }).pipe(Effect.provideService(TaskStore.TaskStore, store))
      const client = yield* attach(server)
      const labels = ["a", "b", "c", "d"]
      yield* Effect.forEach(
        labels,
        (label) => client.result("tools/call", p({ name: "enter", arguments: { label } })),
        { concurrency: "unbounded" }
      )
      const read = yield* Effect.forEach(labels, () => Queue.take(seen))
      assert.deepStrictEqual(read.map(([label, store]) => `${label}:${store}`).sort(), labels.map((l) => `${l}:${l}`))
    }))
})
