/**
 * The tasks runtime: one per server, over every engine. A tool call that runs as a task is a
 * record in the `TaskStore` (created before the client hears of it) and a fiber of this
 * instance, forked from the server's runtime (not from its request: it keeps of the request only
 * what it needs, counted with its arguments against the store's bytes), so it outlives its
 * request. The two revisions differ on the wire only (the shapes at the bottom); this runs both.
 *
 * - The handler is the tool's own Effect, run with a task's `McpRequest` (a `Request` on a `TaskPart`): its
 *   progress becomes the task's status message; its asks become the task's input requests
 *   (2026-07-28: kept in the store and answered by `tasks/update`; 2025-11-25: requests to the
 *   client tagged with the related task, on the stream of a waiting `tasks/result` when there is
 *   one, else on the session's own if the client listens there now (stdio: at once; HTTP: its GET
 *   stream open), else on the next `tasks/result`), with the task `input_required` while any is open.
 * - A tool with `start: "onDetach"` runs as a plain request until its handler detaches: the
 *   request then gets the task, and the rest runs as it. Until then its asks are the request's
 *   (2026-07-28 multi-round trips: the answers come with a retry, before any task exists).
 * - Every change is a compare-and-set on the record; the runner watches its record and stops the
 *   handler when a cancel is asked for (from any instance) or the record is gone (its TTL ran
 *   out). Its lease is renewed while it runs.
 * - The outcome: the tool's result (2025-11-25: `failed` when `isError`; 2026-07-28: `completed`
 *   either way), a wire error (`failed` with it), a defect (`failed`, -32603, logged), or a
 *   cancel (`cancelled`, set by the cancel itself).
 *
 * The runtime's parts: its state and compare-and-set (`taskState.ts`), a call run as a task
 * (`taskLaunch.ts`), what a requestor asks of its tasks (`taskCalls.ts`), what it does on its own
 * (`taskWatch.ts`: the store's changes, the leases), the task's `McpRequest` (`taskRequest.ts`)
 * and the wire shapes (`taskShapes.ts`).
 */
import type { McpError } from "@effect-mcp/core"
import { tasksExtensionId } from "@effect-mcp/core/FeatureSchemas"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type * as Scope from "effect/Scope"
import * as Tracer from "effect/Tracer"
import type * as TaskStore from "../TaskStore.js"
import type * as Tool from "../Tool.js"
import type { RequestContext } from "./serving.js"
import * as TaskCalls from "./taskCalls.js"
import type { Created } from "./taskLaunch.js"
import * as TaskLaunch from "./taskLaunch.js"
import type * as TaskMemory from "./taskMemory.js"
import type { Options } from "./taskState.js"
import { TaskState } from "./taskState.js"
import * as TaskWatch from "./taskWatch.js"

export { isCreated, sizeOf } from "./taskLaunch.js"
export { detailed, task20251125, taskExtension } from "./taskShapes.js"
export { ownerOf } from "./taskState.js"

type TaskRecord = TaskStore.TaskRecord

/** The tasks extension's id (2026-07-28). */
export const extensionId = tasksExtensionId

/** The defaults of `Options`. */
export const defaults: Omit<Options, "instance"> = {
  ttlMs: 60 * 60 * 1000,
  maxTtlMs: 24 * 60 * 60 * 1000,
  pollIntervalMs: 500,
  leaseMs: 30_000
}

// ---------------------------------------------------------------------------- the runtime

/** What a server keeps of its tasks. */
export interface Runtime {
  /** Runs a call as a task: the task (`Created`), or, for a tool that never detached, its result. */
  readonly start: (
    tool: Tool.Tool,
    args: unknown,
    request: RequestContext,
    requestedTtlMs: number | undefined
  ) => Effect.Effect<Tool.Result | Created, McpError.McpError>
  /** The caller's task, or -32602. */
  readonly find: (taskId: string, request: RequestContext) => Effect.Effect<TaskRecord, McpError.McpError>
  /** Asks the task to stop: the record as it is after (cancelled, unless it had ended). */
  readonly cancel: (taskId: string, request: RequestContext) => Effect.Effect<TaskRecord, McpError.McpError>
  /** Answers some of the task's open input requests (others, and unknown keys, are ignored). */
  readonly update: (
    taskId: string,
    responses: Readonly<Record<string, unknown>>,
    request: RequestContext
  ) => Effect.Effect<void, McpError.McpError>
  /**
   * The task once it ended (2025-11-25 `tasks/result`), its asks routed to this request's stream
   * meanwhile.
   */
  readonly terminal: (taskId: string, request: RequestContext) => Effect.Effect<TaskRecord, McpError.McpError>
  readonly list: (
    request: RequestContext,
    cursor: string | undefined,
    limit: number
  ) => Effect.Effect<
    { readonly tasks: ReadonlyArray<TaskRecord>; readonly next: string | undefined },
    McpError.McpError
  >
  /**
   * Tells of every change of status (or message, or open input requests), for the runtime's
   * lifetime: a 2025-11-25 task's session by `notifications/tasks/status`, an extension task's
   * followers through `extension` (the subscriptions).
   */
  readonly watch: (extension: (taskId: string, owner: string, params: object) => void) => Effect.Effect<void>
  /**
   * The tasks of an owner nobody can reach any more (a handshake session that ended): removed,
   * the running ones' handlers stopped (a token's holder's live on: another session may reach them).
   */
  readonly endOwner: (owner: string) => Effect.Effect<void>
  /** Completes once this instance runs no task (at once when it runs none). */
  readonly idle: Effect.Effect<void>
}

/** The tasks runtime of one server: its state, and what it does (each in a module of its own). */
class Tasks extends TaskState implements Runtime {
  readonly start: Runtime["start"] = (tool, args, request, requestedTtlMs) =>
    TaskLaunch.start(this, tool, args, request, requestedTtlMs)
  readonly cancel: Runtime["cancel"] = (taskId, request) => TaskCalls.cancel(this, taskId, request)
  readonly update: Runtime["update"] = (taskId, responses, request) =>
    TaskCalls.update(this, taskId, responses, request)
  readonly terminal: Runtime["terminal"] = (taskId, request) => TaskCalls.terminal(this, taskId, request)
  readonly list: Runtime["list"] = (request, cursor, limit) => TaskCalls.list(this, request, cursor, limit)
  readonly endOwner: Runtime["endOwner"] = (owner) => TaskCalls.endOwner(this, owner)
  readonly watch: Runtime["watch"] = (extension) => TaskWatch.watch(this, extension)
}

/** The tasks runtime, for the lifetime of the scope: its tasks stop with it. */
export const make = (
  store: TaskMemory.Store,
  options: Options
): Effect.Effect<Runtime, never, Scope.Scope> =>
  Effect.gen(function*() {
    const scope = yield* Effect.scope
    const clock = yield* Effect.clock
    const built = yield* Effect.runtime<never>()
    const tasks = new Tasks(
      store,
      options,
      scope,
      () => clock.unsafeCurrentTimeMillis(),
      built,
      // Not a scheduler of tasks' own: Effect's (3.20+) gives each fiber a runner of its own (about
      // 0.3 KB while a task works), which keeps each handler's AsyncLocalStorage context its own; a
      // shared runner ran one handler's steps in another's (a client's context seen by another's).
      Context.omit(Tracer.ParentSpan)(built.context)
    )
    yield* TaskWatch.renewLeases(tasks)
    // The tasks this instance runs stop with it (as any interrupted handler, each ends cancelled,
    // settled once its fiber is done: `idle` waits for that).
    yield* Effect.addFinalizer(() =>
      Effect.zipRight(Fiber.interruptAll(Array.from(tasks.locals.values(), (local) => local.fiber)), tasks.idle)
    )
    return tasks
  })
