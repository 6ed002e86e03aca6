/**
 * `mcp call` (a tool, or a task with `--task`) and `mcp tasks list|get|cancel|result`.
 *
 * @since 0.1.0
 */
import type { McpClient } from "@effect-mcp/client"
import { Args, Command, Options } from "@effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import {
  auth,
  authOf,
  columns,
  contentText,
  declared,
  era,
  json,
  lastTarget,
  oneLine,
  parseArgs,
  print,
  progressMeter,
  target,
  timeout,
  withClient
} from "./internal/cli.js"

/** A task's fields, as `mcp tasks get` shows them. */
const taskRows = (task: McpClient.TaskInfo): ReadonlyArray<readonly [string, string]> => [
  ["task", task.taskId],
  ["status", task.status],
  ...(task.statusMessage !== undefined ? [["message", oneLine(task.statusMessage)] as const] : []),
  ["created", task.createdAt],
  ["updated", task.lastUpdatedAt],
  ["ttl", task.ttlMs === null ? "unlimited" : `${task.ttlMs} ms`],
  ...(task.pollIntervalMs !== undefined ? [["poll interval", `${task.pollIntervalMs} ms`] as const] : []),
  ...(task.inputRequests !== undefined ? [["waiting for", Object.keys(task.inputRequests).join(", ")] as const] : []),
  ...(task.error !== undefined ? [["error", `${task.error.code} ${oneLine(task.error.message)}`] as const] : [])
]

/** One line of a task's status, on stderr. */
const statusLine = (task: McpClient.TaskInfo) =>
  Effect.sync(() =>
    process.stderr.write(
      `task ${task.taskId}: ${task.status}${
        task.statusMessage !== undefined ? ` ${oneLine(task.statusMessage, 60)}` : ""
      }\n`
    )
  )

/** A tool's result on stdout (a tool error exits 1). */
const printResult = (json: boolean, result: McpClient.RequestResult<"tools/call">) =>
  Effect.zipRight(
    print(json, result, () => contentText(result.content)),
    result.isError === true ? Effect.sync(() => process.exitCode = 1) : Effect.void
  )

/** A task followed to its end: its status on stderr as it changes, then its result. */
const followTask = (json: boolean, task: McpClient.Task) =>
  Effect.gen(function*() {
    yield* Stream.runForEach(task.status, statusLine)
    yield* printResult(json, yield* task.result)
  })

/**
 * @since 0.1.0
 * @category commands
 */
export const call = Command.make(
  "call",
  {
    target,
    json,
    era,
    timeout,
    ...auth,
    tool: Args.text({ name: "tool" }),
    args: Options.text("args").pipe(Options.optional),
    task: Options.boolean("task").pipe(
      Options.withDescription("call it as a task, where the server can run it as one: its status, then its result")
    ),
    detach: Options.boolean("detach").pipe(
      Options.withDescription("with --task: print the task and leave it running (mcp tasks get|result|cancel)")
    )
  },
  ({ args, detach, era, json, target, task, tool, timeout, ...o }) =>
    withClient(target, { era, timeout, auth: authOf(o) }, (client) =>
      Effect.gen(function*() {
        yield* declared(client, "tools")
        const given = yield* parseArgs(args)
        if (detach && !task) return yield* Effect.fail(new Error("--detach goes with --task"))
        const meter = progressMeter(tool)
        if (task) {
          const handle = yield* client.callTool(tool, given, { task: true, onProgress: meter.update }).pipe(
            Effect.ensuring(meter.done)
          )
          if (Option.isNone(handle.created)) return yield* printResult(json, yield* handle.result)
          const created = handle.created.value
          if (detach) return yield* print(json, created, () => columns(taskRows(created)))
          yield* Effect.sync(() => process.stderr.write(`mcp: task ${created.taskId} (${created.status})\n`))
          return yield* followTask(json, handle)
        }
        const result = yield* client.callTool(tool, given, { onProgress: meter.update }).pipe(
          Effect.ensuring(meter.done)
        )
        yield* printResult(json, result)
      }))
).pipe(Command.withDescription("Calls a tool (arguments as a JSON object), or runs it as a task (--task)"))

const taskId = Args.text({ name: "task id" })

const tasksList = Command.make(
  "list",
  { target: lastTarget, json, era, timeout, ...auth },
  ({ era, json, target, timeout, ...o }) =>
    withClient(
      target,
      { era, timeout, auth: authOf(o) },
      (client) =>
        Effect.flatMap(client.tasks.list, (listed) =>
          print(
            json,
            listed,
            () =>
              columns(
                listed.map((t) => [t.taskId, `${t.status}${t.statusMessage ? ` ${oneLine(t.statusMessage)}` : ""}`])
              ) ||
              "(no tasks)"
          ))
    )
).pipe(Command.withDescription("This client's tasks on the server (2025-11-25; a session's own)"))

const tasksGet = Command.make(
  "get",
  { target, json, era, timeout, ...auth, taskId },
  ({ era, json, target, taskId, timeout, ...o }) =>
    withClient(
      target,
      { era, timeout, auth: authOf(o) },
      (client) => Effect.flatMap(client.tasks.get(taskId), (task) => print(json, task, () => columns(taskRows(task))))
    )
).pipe(Command.withDescription("One task as it stands"))

const tasksCancel = Command.make(
  "cancel",
  { target, era, timeout, ...auth, taskId },
  ({ era, target, taskId, timeout, ...o }) =>
    withClient(
      target,
      { era, timeout, auth: authOf(o) },
      (client) => Effect.zipRight(client.tasks.cancel(taskId), Console.error(`mcp: asked to cancel task ${taskId}`))
    )
).pipe(Command.withDescription("Asks the server to cancel a task"))

const tasksResult = Command.make(
  "result",
  { target, json, era, timeout, ...auth, taskId },
  ({ era, json, target, taskId, timeout, ...o }) =>
    withClient(
      target,
      { era, timeout, auth: authOf(o) },
      (client) => Effect.flatMap(client.tasks.handle(taskId), (task) => followTask(json, task))
    )
).pipe(Command.withDescription("A task's result, waited for (its status on stderr meanwhile)"))

/**
 * @since 0.1.0
 * @category commands
 */
export const tasks = Command.make("tasks").pipe(
  Command.withDescription("The server's tasks of this client: list, get, cancel, result"),
  Command.withSubcommands([tasksList, tasksGet, tasksCancel, tasksResult])
)
