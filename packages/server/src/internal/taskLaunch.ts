/**
 * How a tool call runs as a task (see `tasks.ts`): its handler forked from the server's runtime
 * with the task's `McpRequest`, plain until it detaches; then the record created (counted
 * against the store's bytes with what the task keeps of its request), the handler its runner,
 * and its outcome settled in the record however it ends.
 */
import { McpError, Telemetry } from "@effect-mcp/core"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as EffectRuntime from "effect/Runtime"
import * as Tracer from "effect/Tracer"
import type * as TaskStore from "../TaskStore.js"
import type * as Tool from "../Tool.js"
import * as Holders from "./holders.js"
import type { RequestContext } from "./serving.js"
import { taskContext } from "./taskContext.js"
import { TaskPart } from "./taskRequest.js"
import { isTerminal, noInput, outcomeOf, unavailable } from "./taskShapes.js"
import type { TaskState } from "./taskState.js"
import { ownerOf } from "./taskState.js"

type TaskRecord = TaskStore.TaskRecord

/** The span a task's handler runs in (telemetry on). */
const runSpanName = (tool: string) => `tasks/run ${tool}`

/** A call answered with a task: the record as it was created. */
export class Created {
  readonly _tag = "Created"
  constructor(readonly record: TaskRecord) {}
}

/**
 * What a call run as a task came to first (`TaskPart.became`): its handler detached (the task's
 * record), or its handler ended before it did (its exit: the call's own outcome).
 */
export type First =
  | { readonly _tag: "Detached"; readonly record: TaskRecord }
  | { readonly _tag: "Done"; readonly exit: Exit.Exit<Tool.Result, McpError.McpError> }

/** Is this tools/call outcome a task? */
export const isCreated = (u: unknown): u is Created => u instanceof Created

const base64url = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

/**
 * Random bytes for task ids, drawn 4 KiB at a time (256 ids) and each used once: a call of
 * `crypto.getRandomValues` costs about 20 µs on Node 20 whatever its size (3% of a task's whole
 * round at the time), one of 4 KiB about the same.
 */
const pool = new Uint8Array(4096)
let pooled = pool.length

/** 16 random bytes, fresh: at `pool[from]`. */
const randomAt = (): number => {
  if (pooled + 16 > pool.length) {
    crypto.getRandomValues(pool)
    pooled = 0
  }
  const from = pooled
  pooled += 16
  return from
}

/**
 * A high-entropy task id: 128 random bits, base64url (22 characters), made as one flat string (the
 * slices and replacements of `btoa`'s output leave a sliced string over its parent, 72 bytes a task).
 */
const newId = (): string => {
  const from = randomAt()
  const codes = new Array<number>(22)
  let at = 0
  for (let i = from; i < from + 15; i += 3) {
    const n = (pool[i] << 16) | (pool[i + 1] << 8) | pool[i + 2]
    codes[at++] = base64url.charCodeAt(n >> 18)
    codes[at++] = base64url.charCodeAt((n >> 12) & 63)
    codes[at++] = base64url.charCodeAt((n >> 6) & 63)
    codes[at++] = base64url.charCodeAt(n & 63)
  }
  const last = pool[from + 15]
  codes[at++] = base64url.charCodeAt(last >> 2)
  codes[at] = base64url.charCodeAt((last & 3) << 4)
  return String.fromCharCode(...codes)
}

/**
 * The characters a value would take as JSON, about (strings by their length, every other leaf
 * as 8): what a task holds of its request is counted so. Each object once, without recursion;
 * counting stops at `limit`.
 */
export const sizeOf = (value: unknown, limit = Number.MAX_SAFE_INTEGER): number => {
  let total = 0
  const seen = new Set<object>()
  const stack: Array<unknown> = [value]
  while (stack.length > 0 && total < limit) {
    const u = stack.pop()
    if (typeof u === "string") total += u.length + 2
    else if (typeof u !== "object" || u === null) total += 8
    else if (seen.has(u)) continue
    else {
      seen.add(u)
      if (ArrayBuffer.isView(u)) total += u.byteLength
      else if (u instanceof Map || u instanceof Set) {
        total += 2
        for (const entry of u) stack.push(entry)
      } else if (Array.isArray(u)) {
        total += 2 + u.length
        for (const item of u) stack.push(item)
      } else {
        total += 2
        for (const key of Object.keys(u)) {
          total += key.length + 4
          stack.push((u as Record<string, unknown>)[key])
        }
      }
    }
  }
  return Math.min(total, limit)
}

/**
 * What a running task costs in memory beyond what it keeps of its request and its arguments:
 * its fiber (and the scheduler's entry for it), its `McpRequest` and part, its record here and in
 * the store, its entries (measured: about 7.5 KB on Node 20, a handler asleep, spans off, of which
 * the handler's own fiber is 4.7; 12 KB before issue 42). Counted, with the rest, against the
 * task store's byte bounds while the task runs.
 */
const runnerBytes = 8 * 1024

/**
 * Settles a task's outcome as its handler ended (a defect logged; an outcome too large to keep, a
 * failure): the record after (none: it is gone), read again from the store when it could not be kept.
 */
const finish = (
  tasks: TaskState,
  taskId: string,
  exit: Exit.Exit<Tool.Result, McpError.McpError>
): Effect.Effect<Option.Option<TaskRecord>> => {
  const done = Effect.catchTag(
    tasks.modify(taskId, (record) => {
      if (isTerminal(record.status)) return undefined
      const change = outcomeOf(record, exit)
      return change === undefined
        ? undefined
        : { ...change, inputRequests: noInput, inputResponses: noInput, lease: undefined }
    }),
    "TaskStoreFull",
    () =>
      // The outcome is too large to keep: the task fails, saying so.
      tasks.modify(taskId, (record) =>
        isTerminal(record.status) ? undefined : {
          status: "failed",
          inputRequests: noInput,
          inputResponses: noInput,
          lease: undefined,
          outcome: { _tag: "Error", error: { code: -32603, message: "The task's result is too large to keep" } }
        })
  ).pipe(Effect.catchAll((error) =>
    Effect.zipRight(
      Effect.logWarning("effect-mcp: a task's outcome was not kept", error),
      Effect.orElseSucceed(tasks.store.get(taskId), () => Option.none())
    )
  ))
  return Exit.isFailure(exit) && !Cause.isInterruptedOnly(exit.cause) &&
      Option.isNone(Cause.failureOption(exit.cause))
    ? Effect.zipRight(Effect.logError("effect-mcp: a task's handler died", exit.cause), done)
    : done
}

/** Creates the record: from here on `tasks/get` finds it. */
const create = (
  tasks: TaskState,
  tool: Tool.Tool,
  owner: string,
  revision: string,
  held: number,
  requestedTtlMs: number | undefined
) =>
  Effect.suspend(() => {
    const at = tasks.now()
    const policy = tool.task!
    const ttlMs = Math.min(
      tasks.options.maxTtlMs,
      Math.max(1_000, requestedTtlMs ?? policy.ttlMs ?? tasks.options.ttlMs)
    )
    const taskId = newId()
    const record: TaskRecord = {
      taskId,
      owner: Holders.keptOwner(tasks.sharedOwner(owner), taskId),
      revision,
      method: "tools/call",
      name: tool.name,
      status: "working",
      statusMessage: undefined,
      createdAt: at,
      lastUpdatedAt: at,
      ttlMs,
      pollIntervalMs: policy.pollIntervalMs ?? tasks.options.pollIntervalMs,
      inputRequests: noInput,
      inputResponses: noInput,
      outcome: undefined,
      cancelRequested: false,
      lease: { holder: tasks.options.instance, expiresAt: at + tasks.options.leaseMs },
      version: 0,
      held
    }
    return Effect.as(
      Effect.mapError(tasks.store.create(record), (error) =>
        error._tag === "TaskStoreFull"
          ? new McpError.InternalError({ message: error.message })
          : unavailable(error)),
      record
    )
  })

/**
 * Forks a task's handler with its `McpRequest` and `McpTask` in the context it starts with (not
 * provided around it: every layer of a fiber's stack stays as long as the fiber waits), the
 * server's services read through (`TaskServices`). Once a task, its outcome is settled when the
 * handler ends, however it ends, by an observer of its fiber, not a frame on its stack: such a
 * frame (`onExit`, three of them with its mask) would keep the handler's whole effect for as long
 * as it runs.
 */
const fork = (
  tasks: TaskState,
  run: Effect.Effect<Tool.Result, McpError.McpError>,
  task: TaskPart
) => {
  const runtime = EffectRuntime.make({
    context: taskContext(tasks.services, task),
    // On the tasks' scheduler: its first step without a scheduler runner of its own (`StartScheduler`).
    fiberRefs: tasks.handlerRefs,
    runtimeFlags: tasks.built.runtimeFlags
  })
  tasks.scheduler.starting = true
  let fiber: Fiber.RuntimeFiber<Tool.Result, McpError.McpError>
  try {
    fiber = EffectRuntime.runFork(runtime, run, { immediate: false })
  } finally {
    tasks.scheduler.starting = false
  }
  fiber.addObserver(settleOf(tasks, task))
  return fiber
}

/**
 * Once a task, its outcome settled in the record as its handler ended, in a fiber of the
 * runtime's own (the handler's is done); then it is forgotten here (`idle` waits for that).
 * Made apart: the closure lives as long as the handler, and sees the task and the runtime only.
 */
const settleOf = (tasks: TaskState, task: TaskPart) => (exit: Exit.Exit<Tool.Result, McpError.McpError>) => {
  const taskId = task.taskId
  if (taskId === undefined) {
    // Ended before it detached: the call's own outcome, for the request waiting on it (`launch`).
    const became = task.became
    if (became !== undefined) Deferred.unsafeDone(became, Exit.succeed({ _tag: "Done", exit }))
    return
  }
  const settle = Effect.map(finish(tasks, taskId, exit), (after) => {
    tasks.forget(taskId)
    // A task that ended is forgotten by the watcher once it told of its end; one gone, here.
    if (Option.isNone(after) || !isTerminal(after.value.status)) {
      tasks.told.delete(taskId)
      tasks.sessions.delete(taskId)
    }
  })
  EffectRuntime.runFork(tasks.built, settle, { immediate: false })
}

/**
 * `McpTask.detach`: the task is created, known here, and its run watched, in one step that
 * nothing interrupts: a task can never be left without a runner (the handler detaching runs it,
 * so the request's own end does not matter from here on). A task that cannot be created stops
 * the handler. From then on the task keeps of its request only what it needs (`forTask`),
 * counted with its arguments and its runner against the store's bounds, and this effect (and
 * what it sees) is let go of.
 */
const detachOf = (
  tasks: TaskState,
  tool: Tool.Tool,
  args: unknown,
  task: TaskPart,
  requestedTtlMs: number | undefined
): Effect.Effect<void> =>
  Effect.uninterruptible(Effect.suspend(() => {
    const became = task.became
    // A task already.
    if (became === undefined) return Effect.void
    return Effect.flatMap(Deferred.poll(became), (polled) => {
      if (Option.isSome(polled)) return Effect.void
      const base = task.base!
      // Its client's capabilities as the task's client has them, when read from its shared `_meta`.
      const client = task.request.client
      const kept = base.forTask(client !== base.client ? client.clientCapabilities : undefined)
      const held = runnerBytes + kept.bytes + sizeOf(args)
      const created = create(tasks, tool, ownerOf(base), base.revision, held, requestedTtlMs)
      return Effect.flatMap(Effect.exit(created), (exit) => {
        if (Exit.isFailure(exit)) {
          return Effect.zipRight(Deferred.failCause(became, exit.cause), Effect.interrupt)
        }
        const record = exit.value
        // Runs in the handler's own fiber: that fiber is the task's runner from here on.
        return Effect.withFiberRuntime<void>((fiber) => {
          // Its span (telemetry on) names the task it became.
          const span = fiber.currentSpan
          if (span?._tag === "Span" && span.name === runSpanName(tool.name)) {
            span.attribute("mcp.task.id", record.taskId)
          }
          task.becameTask(record, kept, fiber)
          tasks.running(record.taskId, task)
          if (kept.sink.notifySession !== undefined) tasks.sessions.set(record.taskId, kept.sink)
          return Deferred.succeed(became, { _tag: "Detached", record })
        })
      })
    })
  }))

/**
 * Runs a call as a task. Nothing here holds the request but the task's part until it detaches
 * (the closures the handler keeps are made apart, `settleOf` and `detachOf`: they must not see
 * the request).
 */
const launch = (
  tasks: TaskState,
  tool: Tool.Tool,
  args: unknown,
  task: TaskPart,
  requestedTtlMs: number | undefined
): Effect.Effect<Tool.Result | Created, McpError.McpError> =>
  Effect.gen(function*() {
    const detached = task.became!
    const detach = detachOf(tasks, tool, args, task, requestedTtlMs)
    task.detachEffect = detach
    const handler = tool.task!.start === "immediately" ? Effect.zipRight(detach, tool.run(args)) : tool.run(args)
    // Until it detaches, a plain request: interrupted with it, its outcome the request's. With
    // spans on, it runs in a span of its own, a child of the request's, that lasts as long as it.
    const { spans } = yield* Telemetry.enabled
    const parent = spans ? yield* Effect.serviceOption(Tracer.ParentSpan) : Option.none()
    const run = spans
      ? Effect.withSpan(handler, runSpanName(tool.name), {
        kind: "internal",
        attributes: { [Telemetry.attributes.toolName]: tool.name },
        ...(Option.isSome(parent) ? { parent: parent.value } : { root: true })
      })
      : handler
    // The handler is forked and tied to the request in one step nothing interrupts: an
    // interruption between the two (a cancel, the request's maximum duration, the server
    // stopping) would leave it running with nobody to stop it, not even the server (it is not
    // a task yet). Only the wait is interruptible: on `detached`, done by whichever comes first,
    // the detach or the handler's end (its observer, `settleOf`), rather than a race of two
    // fibers of their own, one then interrupted (a third of a task's create in Effect's runtime).
    const first = yield* Effect.uninterruptibleMask((restore) =>
      Effect.suspend(() => {
        const fiber = fork(tasks, run, task)
        return restore(Deferred.await(detached)).pipe(
          Effect.onExit((exit) =>
            // Interrupted before it detached, or it could not: the handler goes with the request (a
            // detach under way finishes first, and its task then ends cancelled).
            Exit.isFailure(exit) ?
              Effect.flatMap(
                Deferred.isDone(detached),
                (done) => Exit.isInterrupted(exit) && done ? Effect.void : Fiber.interrupt(fiber)
              ) :
              Effect.void
          )
        )
      })
    )
    // (A handler that detached and ended at once is a task all the same: its detach came first.)
    return first._tag === "Detached" ? new Created(first.record) : yield* first.exit
  })

/** Runs a call as a task: the task (`Created`), or, for a tool that never detached, its result. */
export const start = (
  tasks: TaskState,
  tool: Tool.Tool,
  args: unknown,
  request: RequestContext,
  requestedTtlMs: number | undefined
): Effect.Effect<Tool.Result | Created, McpError.McpError> =>
  Effect.flatMap(
    Deferred.make<First, McpError.McpError>(),
    (detached) => launch(tasks, tool, args, new TaskPart(request, tasks, detached), requestedTtlMs)
  )
