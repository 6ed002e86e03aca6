/**
 * The tasks runtime: one per server, over every engine. A tool call that runs as a task is a
 * record in the `TaskStore` (created before the client hears of it) and a fiber of this
 * instance, forked from the server's runtime (not from its request: it keeps of the request only
 * what it needs, counted with its arguments against the store's bytes), so it outlives its
 * request. The two revisions differ on the wire only (the shapes at the bottom); this runs both.
 *
 * - The handler is the tool's own Effect, run with a task's `McpRequest` (`TaskRequest`): its
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
 */
import { AuthInfo, McpError, Method, Revision, Schema as McpSchema, Telemetry } from "@effect-mcp/core"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Option from "effect/Option"
import * as EffectRuntime from "effect/Runtime"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Tracer from "effect/Tracer"
import * as McpRequest from "../McpRequest.js"
import * as McpTask from "../McpTask.js"
import type * as TaskStore from "../TaskStore.js"
import type * as Tool from "../Tool.js"
import * as Holders from "./holders.js"
import type { RequestContext } from "./serving.js"
import type { Route, TaskRuntime } from "./taskRequest.js"
import { decoderOf, TaskRequest } from "./taskRequest.js"
import { detailed, isTerminal, outcomeOf, task20251125, unavailable, unknownTask } from "./taskShapes.js"

export type { Route } from "./taskRequest.js"
export { detailed, task20251125, taskExtension } from "./taskShapes.js"

type InputRequest = McpSchema.InputRequired.InputRequest
type TaskRecord = TaskStore.TaskRecord

/** The span a task's handler runs in (telemetry on). */
const runSpanName = (tool: string) => `tasks/run ${tool}`

/** The tasks extension's id (2026-07-28). */
export const extensionId = McpSchema.TasksExtension.extensionId

/** Options of the runtime, whole. */
export interface Options {
  /** How long a task is kept after its creation, when nobody says (milliseconds). */
  readonly ttlMs: number
  /** The longest a client may ask a task to be kept (2025-11-25 `params.task.ttl`). */
  readonly maxTtlMs: number
  readonly pollIntervalMs: number
  /** How long a runner's lease lasts without renewal. */
  readonly leaseMs: number
  /** This instance, as leases name it. */
  readonly instance: string
}

/** The defaults of `Options`. */
export const defaults: Omit<Options, "instance"> = {
  ttlMs: 60 * 60 * 1000,
  maxTtlMs: 24 * 60 * 60 * 1000,
  pollIntervalMs: 500,
  leaseMs: 30_000
}

/** A call answered with a task: the record as it was created. */
export class Created {
  readonly _tag = "Created"
  constructor(readonly record: TaskRecord) {}
}

/** Is this tools/call outcome a task? */
export const isCreated = (u: unknown): u is Created => u instanceof Created

/** A high-entropy task id: 128 random bits, base64url. */
const newId = (): string => {
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  let s = ""
  for (const b of bytes) s += String.fromCharCode(b)
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
}

/**
 * Who a request's tasks belong to: the token's holder (authorization on), else the handshake
 * session, else (stateless, no token) the client's address, its connection, or, where nothing
 * names it, `Holders.anyone` (see `RequestContext.taskOwner`).
 */
export const ownerOf = (request: RequestContext): string =>
  Option.isSome(request.auth) ? `auth:${AuthInfo.holder(request.auth.value)}` : request.taskOwner

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
 * its fiber (and the scheduler's entry for it), its `McpRequest`, its record here and in the store,
 * its lease and watcher entries (measured: about 12 KB on Node 20, a handler asleep, spans off).
 * Counted, with the rest, against the task store's byte bounds while the task runs.
 */
const runnerBytes = 12 * 1024

// ---------------------------------------------------------------------------- the runtime

/** What a server keeps of its tasks. */
export interface Runtime {
  readonly store: TaskStore.Service
  readonly options: Options
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
}

/**
 * Local state of a task this instance runs: the streams its 2025-11-25 asks may go to (the
 * `tasks/result` requests waiting on it).
 */
interface Local {
  readonly owner: string
  /** Each waiting `tasks/result`: its id, and its request (its session carries the ask). */
  readonly routes: Array<Route>
  /** Its requestor referred to it (`TaskRequest.known`). */
  readonly known: Deferred.Deferred<void>
  /**
   * Done (and replaced) when a 2025-11-25 ask of it that found no way to the client may find one
   * now: a `tasks/result` came to wait, or its requestor referred to the task.
   */
  wake: Deferred.Deferred<void>
  /** The handler's fiber: what a cancel, or the task's removal, interrupts. */
  readonly fiber: Fiber.RuntimeFiber<unknown, unknown>
}

/**
 * The tasks runtime of one server: its store, the tasks this instance runs (their handlers'
 * fibers, where their asks may go), and the sessions to tell of their changes.
 */
class Tasks implements Runtime, TaskRuntime {
  readonly locals = new Map<string, Local>()
  /** The sessions of this instance's 2025-11-25 tasks: where `notifications/tasks/status` go. */
  readonly sessions = new Map<string, (method: string, params: object) => Effect.Effect<void>>()
  /** What each task was last told as (status and message): a change of neither (a lease) is not news. */
  readonly told = new Map<string, string>()

  constructor(
    readonly store: TaskStore.Service,
    readonly options: Options,
    readonly scope: Scope.Scope,
    readonly now: () => number,
    /**
     * Where tasks run: the server's runtime (what it was built with, but the span it was built
     * in), not the request's fiber. A fiber keeps what it was forked from (its context, its fiber
     * refs, and, through Effect's own bookkeeping, its parent fiber) for as long as it runs: a task
     * forked from its request would keep the whole message, megabytes the tool never sees.
     */
    readonly built: EffectRuntime.Runtime<never>,
    readonly serverContext: Context.Context<never>
  ) {}

  /**
   * Changes a task with `f` (none: leave it), compare-and-set, again on a race; the record
   * after (none: it is gone).
   */
  readonly modify = (
    taskId: string,
    f: (record: TaskRecord) => Partial<TaskRecord> | undefined
  ): Effect.Effect<Option.Option<TaskRecord>, TaskStore.TaskStoreFull | TaskStore.TaskStoreUnavailable> =>
    Effect.flatMap(this.store.get(taskId), (found) => {
      if (Option.isNone(found)) return Effect.succeedNone
      const record = found.value
      const change = f(record)
      if (change === undefined) return Effect.succeed(found)
      // A lease renewed is no change anyone sees: `lastUpdatedAt` stays.
      const quiet = Object.keys(change).length === 1 && "lease" in change
      const next: TaskRecord = {
        ...record,
        ...change,
        version: record.version + 1,
        lastUpdatedAt: quiet ? record.lastUpdatedAt : this.now()
      }
      return Effect.flatMap(
        this.store.compareAndSet(taskId, record.version, next),
        (done) => done ? Effect.succeedSome(next) : this.modify(taskId, f)
      )
    })

  /** An ask of the task waiting for a way to the client looks again. */
  readonly wake = (local: Local) => {
    const woken = local.wake
    local.wake = Deferred.unsafeMake(FiberId.none)
    Deferred.unsafeDone(woken, Exit.void)
  }

  /** Its requestor referred to a task this instance runs: its asks may go (`TaskRequest.known`). */
  readonly knows = (taskId: string) => {
    const local = this.locals.get(taskId)
    if (local === undefined) return
    Deferred.unsafeDone(local.known, Exit.void)
    this.wake(local)
  }

  readonly find = (taskId: string, request: RequestContext) =>
    Effect.flatMap(
      Effect.mapError(this.store.get(taskId), unavailable),
      (found) => {
        if (Option.isNone(found) || !Holders.reaches(ownerOf(request), taskId, found.value.owner)) {
          return Effect.fail(unknownTask(taskId))
        }
        this.knows(taskId)
        return Effect.succeed(found.value)
      }
    )

  readonly finish = (taskId: string, exit: Exit.Exit<Tool.Result, McpError.McpError>) =>
    Effect.gen(this, function*() {
      if (
        Exit.isFailure(exit) && !Cause.isInterruptedOnly(exit.cause) && Option.isNone(Cause.failureOption(exit.cause))
      ) {
        yield* Effect.logError("effect-mcp: a task's handler died", exit.cause)
      }
      const done = this.modify(taskId, (record) => {
        if (isTerminal(record.status)) return undefined
        const change = outcomeOf(record, exit)
        return change === undefined
          ? undefined
          : { ...change, inputRequests: {}, inputResponses: {}, lease: undefined }
      })
      yield* Effect.catchTag(done, "TaskStoreFull", () =>
        // The outcome is too large to keep: the task fails, saying so.
        this.modify(taskId, (record) =>
          isTerminal(record.status) ? undefined : {
            status: "failed",
            inputRequests: {},
            inputResponses: {},
            lease: undefined,
            outcome: { _tag: "Error", error: { code: -32603, message: "The task's result is too large to keep" } }
          }))
    }).pipe(Effect.catchAll((error) => Effect.logWarning("effect-mcp: a task's outcome was not kept", error)))

  /** Creates the record: from here on `tasks/get` finds it. */
  readonly create = (
    tool: Tool.Tool,
    owner: string,
    revision: string,
    held: number,
    requestedTtlMs: number | undefined
  ) =>
    Effect.suspend(() => {
      const at = this.now()
      const policy = tool.task!
      const ttlMs = Math.min(
        this.options.maxTtlMs,
        Math.max(1_000, requestedTtlMs ?? policy.ttlMs ?? this.options.ttlMs)
      )
      const taskId = newId()
      const record: TaskRecord = {
        taskId,
        owner: Holders.keptOwner(owner, taskId),
        revision,
        method: "tools/call",
        name: tool.name,
        status: "working",
        statusMessage: undefined,
        createdAt: at,
        lastUpdatedAt: at,
        ttlMs,
        pollIntervalMs: policy.pollIntervalMs ?? this.options.pollIntervalMs,
        inputRequests: {},
        inputResponses: {},
        outcome: undefined,
        cancelRequested: false,
        lease: { holder: this.options.instance, expiresAt: at + this.options.leaseMs },
        version: 0,
        held
      }
      return Effect.as(
        Effect.mapError(this.store.create(record), (error) =>
          error._tag === "TaskStoreFull"
            ? new McpError.InternalError({ message: error.message })
            : unavailable(error)),
        record
      )
    })

  /**
   * Forks a task's handler with its `McpRequest` and `McpTask` in the context it starts with (not
   * provided around it: every layer of a fiber's stack stays as long as the fiber waits).
   */
  readonly fork = (run: Effect.Effect<Tool.Result, McpError.McpError>, task: TaskRequest, service: McpTask.Service) =>
    EffectRuntime.runFork(
      EffectRuntime.make({
        context: Context.add(Context.add(this.serverContext, McpRequest.McpRequest, task), McpTask.McpTask, service),
        fiberRefs: this.built.fiberRefs,
        runtimeFlags: this.built.runtimeFlags
      }),
      run,
      { immediate: false }
    )
  readonly start: Runtime["start"] = (tool, args, request, requestedTtlMs) =>
    Effect.flatMap(
      Deferred.make<TaskRecord, McpError.McpError>(),
      (detached) => this.launch(tool, args, new TaskRequest(request, this, detached), requestedTtlMs)
    )

  /**
   * Runs a call as a task. Nothing here holds the request but the task's `McpRequest` until it
   * detaches (the closures made here live as long as the task: they must not see the request).
   */
  readonly launch = (
    tool: Tool.Tool,
    args: unknown,
    task: TaskRequest,
    requestedTtlMs: number | undefined
  ): Effect.Effect<Tool.Result | Created, McpError.McpError> =>
    Effect.gen(this, function*() {
      const detached = task.detached
      /** Once a task: its outcome settled when its handler ends, however it ends. */
      const settled = (exit: Exit.Exit<Tool.Result, McpError.McpError>) =>
        Effect.suspend(() => {
          const record = task.record
          if (record === undefined) {
            return Effect.void
          }
          return Effect.zipRight(
            this.finish(record.taskId, exit),
            Effect.flatMap(
              Effect.orElseSucceed(this.store.get(record.taskId), () => Option.none()),
              (after) =>
                Effect.sync(() => {
                  this.forget(record.taskId)
                  // A task that ended is forgotten by the watcher once it told of its end; one gone, here.
                  if (Option.isNone(after) || !isTerminal(after.value.status)) {
                    this.told.delete(record.taskId)
                    this.sessions.delete(record.taskId)
                  }
                })
            )
          )
        })
      // The task is created, known here, and its run watched, in one step that nothing interrupts:
      // a task can never be left without a runner (the handler detaching runs it, so the request's
      // own end does not matter from here on). A task that cannot be created stops the handler.
      // From then on the task keeps of its request only what it needs (`forTask`), counted with
      // its arguments and its runner against the store's bounds.
      const detach = Effect.uninterruptible(Effect.flatMap(Deferred.poll(detached), (polled) =>
        Option.isSome(polled)
          ? Effect.void
          : Effect.suspend(() => {
            const origin = task.base.forTask()
            const held = runnerBytes + origin.bytes + sizeOf(args)
            const created = this.create(tool, ownerOf(task.base), task.base.revision, held, requestedTtlMs)
            return Effect.flatMap(Effect.exit(created), (exit) => {
              if (Exit.isFailure(exit)) {
                return Effect.zipRight(Deferred.failCause(detached, exit.cause), Effect.interrupt)
              }
              const record = exit.value
              // Runs in the handler's own fiber: that fiber is the task's runner from here on.
              return Effect.withFiberRuntime<void>((fiber) => {
                // Its span (telemetry on) names the task it became.
                const span = fiber.currentSpan
                if (span?._tag === "Span" && span.name === runSpanName(tool.name)) {
                  span.attribute("mcp.task.id", record.taskId)
                }
                task.record = record
                task.base = origin.context
                this.locals.set(record.taskId, {
                  owner: record.owner,
                  routes: [],
                  known: task.known,
                  wake: Deferred.unsafeMake(FiberId.none),
                  fiber
                })
                const { notifySession } = origin.context
                if (notifySession !== undefined) {
                  this.sessions.set(record.taskId, notifySession.bind(origin.context))
                }
                return Deferred.succeed(detached, record)
              })
            })
          })))
      task.detachEffect = detach
      const service: McpTask.Service = {
        taskId: Effect.sync(() => Option.fromNullable(task.record?.taskId)),
        detach,
        status: (message) => task.setStatus(message)
      }
      const handler = (tool.task!.start === "immediately" ? Effect.zipRight(detach, tool.run(args)) : tool.run(args))
        .pipe(Effect.onExit(settled))
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
      // a task yet). Only the wait is interruptible.
      const first = yield* Effect.uninterruptibleMask((restore) =>
        Effect.suspend(() => {
          const fiber = this.fork(run, task, service)
          return restore(Effect.raceFirst(
            Effect.map(Deferred.await(detached), (record) => ({ _tag: "Detached" as const, record })),
            Effect.map(Fiber.await(fiber), (exit) => ({ _tag: "Done" as const, exit }))
          )).pipe(
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
      if (first._tag === "Detached") return new Created(first.record)
      // Done at the moment it detached: a task all the same (settled as it ended).
      const polled = yield* Deferred.poll(detached)
      if (Option.isSome(polled)) return new Created(yield* polled.value)
      return yield* first.exit
    })

  readonly cancel: Runtime["cancel"] = (taskId, request) =>
    Effect.flatMap(this.find(taskId, request), () =>
      Effect.flatMap(
        Effect.mapError(
          this.modify(taskId, (record) =>
            isTerminal(record.status) ? undefined : {
              status: "cancelled",
              cancelRequested: true,
              inputRequests: {},
              inputResponses: {},
              lease: undefined
            }),
          unavailable
        ),
        (after) => {
          if (Option.isNone(after)) return Effect.fail(unknownTask(taskId))
          // Run here: stopped now (one run elsewhere hears of the cancel through the store's changes).
          const local = this.locals.get(taskId)
          return Effect.as(local === undefined ? Effect.void : Fiber.interruptFork(local.fiber), after.value)
        }
      ))

  readonly update: Runtime["update"] = (taskId, responses, request) =>
    Effect.flatMap(this.find(taskId, request), (found) => {
      // An answer to an open request must be one: checked here, so a malformed one is this
      // update's error (-32602) and the task goes on waiting. Other keys are ignored.
      for (const [key, value] of Object.entries(responses)) {
        if (!Object.hasOwn(found.inputRequests, key)) continue
        const asked = found.inputRequests[key] as InputRequest
        const decoded = decoderOf(asked.method)(value)
        if (decoded._tag === "Left") {
          return Effect.fail(
            new McpError.InvalidParams({
              message: `Invalid inputResponses.${key}: ${Method.describeError(decoded.left)}`
            })
          )
        }
      }
      return Effect.asVoid(Effect.mapError(
        this.modify(taskId, (record) => {
          const answered = Object.keys(responses).filter((key) => Object.hasOwn(record.inputRequests, key))
          if (answered.length === 0 || isTerminal(record.status)) return undefined
          const inputRequests = { ...record.inputRequests }
          const inputResponses = { ...record.inputResponses }
          for (const key of answered) {
            delete inputRequests[key]
            inputResponses[key] = responses[key]
          }
          return {
            inputRequests,
            inputResponses,
            status: Object.keys(inputRequests).length === 0 ? "working" : "input_required"
          }
        }),
        unavailable
      ))
    })

  readonly terminal: Runtime["terminal"] = (taskId, request) =>
    Effect.flatMap(this.find(taskId, request), (first) => {
      const local = this.locals.get(taskId)
      const wait = (record: TaskRecord): Effect.Effect<TaskRecord, McpError.McpError> =>
        isTerminal(record.status)
          ? Effect.succeed(record)
          : Effect.flatMap(
            Effect.mapError(this.store.await(taskId, record.version), unavailable),
            (next) => Option.isSome(next) ? wait(next.value) : Effect.fail(unknownTask(taskId))
          )
      if (local === undefined) return wait(first)
      // Its asks may go to this request's stream while it waits.
      return Effect.acquireUseRelease(
        Effect.sync(() => {
          const route: Route = { id: request.id, via: request }
          local.routes.push(route)
          // An ask waiting for a way to the client comes here.
          this.wake(local)
          return route
        }),
        () => wait(first),
        (route) =>
          Effect.sync(() => {
            const at = local.routes.indexOf(route)
            if (at >= 0) local.routes.splice(at, 1)
          })
      )
    })

  // (Tasks of `Holders.anyone` are kept under owners of their own: no request lists them.)
  readonly list: Runtime["list"] = (request, cursor, limit) =>
    Effect.map(Effect.mapError(this.store.list(ownerOf(request), cursor, limit), unavailable), (page) => {
      for (const task of page.tasks) this.knows(task.taskId)
      return page
    })

  /** A task this instance no longer runs: its local state goes. */
  readonly forget = (taskId: string) => {
    const local = this.locals.get(taskId)
    if (local === undefined) return
    this.locals.delete(taskId)
  }

  readonly endOwner: Runtime["endOwner"] = (owner) => {
    // Every one of its tasks goes: the running ones stop (their runners find them gone), and
    // the finished ones free their slots now rather than at their TTL.
    const removeAll: Effect.Effect<void, TaskStore.TaskStoreUnavailable> = Effect.flatMap(
      this.store.list(owner, undefined, 1_000),
      (page) =>
        page.tasks.length === 0
          ? Effect.void
          : Effect.zipRight(
            Effect.forEach(page.tasks, (task) => this.store.remove(task.taskId), { discard: true }),
            removeAll
          )
    )
    return Effect.ignore(removeAll)
  }

  readonly watch: Runtime["watch"] = (extension) =>
    Effect.asVoid(Effect.forkIn(
      Stream.runForEach(this.store.changes, (change) => {
        const record = change.record
        const local = this.locals.get(change.taskId)
        // A task this instance runs, cancelled (from anywhere), ended elsewhere (failed when its lease
        // lapsed while this instance was cut off) or gone (swept, removed): it stops. (Its own end comes
        // after its fiber's: interrupting that is nothing.)
        if (
          local !== undefined &&
          (record === undefined || record.cancelRequested || isTerminal(record.status))
        ) {
          local.fiber.unsafeInterruptAsFork(FiberId.none)
        }
        if (record === undefined) {
          this.told.delete(change.taskId)
          this.sessions.delete(change.taskId)
          return Effect.void
        }
        const said = `${record.status}\u0000${record.statusMessage ?? ""}\u0000${
          Object.keys(record.inputRequests).join(",")
        }`
        // Its creation is the answer to its request, not news; a change that says nothing new is none.
        if (record.version === 0 || this.told.get(record.taskId) === said) {
          this.told.set(record.taskId, said)
          return Effect.void
        }
        const notify = this.sessions.get(record.taskId)
        if (isTerminal(record.status)) {
          this.told.delete(record.taskId)
          this.sessions.delete(record.taskId)
        } else this.told.set(record.taskId, said)
        const f = Revision.features(record.revision as Revision.Revision)
        if (f.tasks === "extension") {
          extension(record.taskId, record.owner, detailed(record))
          return Effect.void
        }
        return notify === undefined ? Effect.void : notify("notifications/tasks/status", task20251125(record))
      }),
      this.scope
    ))

  readonly route = (taskId: string): Route | undefined => this.locals.get(taskId)?.routes[0]
  readonly wakeOf = (taskId: string): Deferred.Deferred<void> | undefined => this.locals.get(taskId)?.wake
}

/** The tasks runtime, for the lifetime of the scope: its tasks stop with it. */
export const make = (
  store: TaskStore.Service,
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
      Context.omit(Tracer.ParentSpan)(built.context)
    )
    /**
     * One fiber renews the leases of every task this instance runs (not one per task): a task
     * costs its handler's fiber and nothing else while it runs.
     */
    yield* Effect.forkIn(
      Effect.repeat(
        Effect.suspend(() => {
          const expiresAt = tasks.now() + options.leaseMs
          return Effect.forEach(
            Array.from(tasks.locals.keys()),
            (taskId) =>
              Effect.ignore(tasks.modify(taskId, (record) =>
                isTerminal(record.status) ? undefined : { lease: { holder: options.instance, expiresAt } })),
            { discard: true }
          )
        }),
        Schedule.spaced(Math.max(1, Math.floor(options.leaseMs / 3)))
      ),
      scope
    )

    // The tasks this instance runs stop with it (as any interrupted handler, each ends cancelled).
    yield* Effect.addFinalizer(() =>
      Fiber.interruptAll(Array.from(tasks.locals.values(), (local) => local.fiber))
    )

    return tasks
  })
