/**
 * A task's part of the `Request` its handler runs with (`TaskPart`): the request that made it, but
 * for what a task does differently once it is one. Its progress becomes the task's status message; its
 * asks become the task's input requests (2026-07-28: kept in the store, answered by `tasks/update`;
 * 2025-11-25: requests to the client tagged with the task, on the stream of a waiting
 * `tasks/result`, else on the session's own if the client listens there now, else later).
 */
import { McpError, Meta } from "@effect-mcp/core"
import type { JsonRpc, Schema as McpSchema } from "@effect-mcp/core"
import * as Deferred from "effect/Deferred"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Option from "effect/Option"
import type * as McpRequest from "../McpRequest.js"
import type * as TaskStore from "../TaskStore.js"
import type * as Ask from "./ask.js"
import type { Sink } from "./request.js"
import { kept, Request } from "./request.js"
import type { First } from "./taskLaunch.js"
import type * as TaskMemory from "./taskMemory.js"
import { isTerminal, unavailable } from "./taskShapes.js"
import type { Local } from "./taskState.js"

type TaskRecord = TaskStore.TaskRecord

/** Where a 2025-11-25 ask of a task goes: the stream of a waiting `tasks/result`, in its session. */
export interface Route {
  readonly id: JsonRpc.RequestId
  readonly via: Request
}

/** What a task's own request reads of the tasks runtime. */
export interface TaskRuntime {
  readonly store: TaskMemory.Store
  readonly modify: (
    taskId: string,
    f: (record: TaskRecord) => Partial<TaskRecord> | undefined
  ) => Effect.Effect<Option.Option<TaskRecord>, TaskStore.TaskStoreFull | TaskStore.TaskStoreUnavailable>
  /**
   * The stream a 2025-11-25 ask of the task goes to now: a waiting `tasks/result`'s (the
   * requestor picks its task's asks up there, as the revision says); none waiting, undefined.
   */
  readonly route: (taskId: string) => Route | undefined
  /** What is done when an ask of the task that found no way to the client may find one now (`Local.wake`). */
  readonly wakeOf: (taskId: string) => Deferred.Deferred<void> | undefined
  /** One `_meta` for the tasks whose requests carried the same (`TaskState.sharedMeta`). */
  readonly sharedMeta: (meta: McpSchema.Base.MetaObject) => McpSchema.Base.MetaObject
}

/**
 * A task's part of the `Request` its handler runs with (`request`): the request that made it, but
 * for what a task does differently once it is one (before, with `start: "onDetach"`, it is that
 * request). As its sink: its progress becomes the task's status message, a 2026-07-28 task sends
 * no logs, its stream is no longer the request's. As its asker: its asks become the task's input
 * requests. Once a task, it is also the task's local state (`Local`): a working task is its
 * record, this, its `McpRequest` and its handler's fiber, nothing else (no Deferred, no copy of
 * its request or of its session: what its asks need is made when one asks).
 */
export class TaskPart implements Ask.Asker, Sink, Local {
  /**
   * Its task's id, once it is one (undefined: not yet). Not the record: the store has it, and a
   * record kept here would be a second copy once the store's changes (a status, a lease).
   */
  taskId: string | undefined = undefined
  /** How long its 2025-11-25 asks wait for its requestor to know the task (`knownGrace`), once it is one. */
  private grace = 0
  /** `McpTask.detach`: nothing once it is a task. */
  detachEffect: Effect.Effect<void> = Effect.void
  /** The handler's fiber, once it is a task. */
  fiber!: Fiber.RuntimeFiber<unknown, unknown>
  routes: Array<Route> | undefined = undefined
  wake: Deferred.Deferred<void> | undefined = undefined
  /** The `McpRequest` the task's handler runs with: what the request that made it knows, on this part. */
  readonly request: Request
  /** The request that made it, until it is a task. */
  base: Request | undefined
  /** Where its asks go, and what it causes: its request's, then (a task) what the task keeps of them. */
  asker: Ask.Asker
  sink: Sink
  /**
   * Its requestor referred to the task here (`tasks/get`, `tasks/result`, `tasks/cancel`,
   * `tasks/list`): it knows the task. A 2025-11-25 ask waits for that (tagged with a task its
   * requestor has not taken in yet, an ask cannot be told whose it is: ext-tasks refuses it).
   */
  private known = false
  /** What an ask waiting for `known` waits on (made when one waits). */
  private knownWaiter: Deferred.Deferred<void> | undefined = undefined
  /** 2025-11-25: asks open now (the task is `input_required` while any is). */
  private asking = 0
  /** 2026-07-28: every key the task asked under (a key is never reused; only this runner mints them). */
  private keys: Set<string> | undefined = undefined

  constructor(
    base: Request,
    readonly runtime: TaskRuntime,
    /**
     * The record, once the request became a task (or why it could not), or the handler's exit if
     * it ended first (`TaskLaunch.First`); let go of once it is a task.
     */
    public became: Deferred.Deferred<First, McpError.McpError> | undefined
  ) {
    this.base = base
    this.asker = base.asker
    this.sink = base.sink
    // Its `_meta` shared with the tasks whose requests carried the same (2026-07-28: every request
    // carries its client's capabilities and info, about 0.2 KB a task).
    const meta = base.meta === undefined ? undefined : runtime.sharedMeta(base.meta)
    const client = meta === undefined || base.client.onMeta === undefined ? base.client : base.client.onMeta(meta)
    this.request = new Request(kept(base.request), client, this, this, base.auth, meta)
  }

  /** It became a task: from here on it keeps of its request what `kept` says, and runs in `fiber`. */
  becameTask(
    record: TaskRecord,
    kept: { readonly asker: Ask.Asker; readonly sink: Sink },
    fiber: Fiber.RuntimeFiber<unknown, unknown>
  ) {
    this.taskId = record.taskId
    this.grace = knownGrace(record)
    this.asker = kept.asker
    this.sink = kept.sink
    this.fiber = fiber
    this.base = undefined
    this.became = undefined
    this.detachEffect = Effect.void
  }

  know(): void {
    this.known = true
    const waiter = this.knownWaiter
    if (waiter === undefined) return
    this.knownWaiter = undefined
    Deferred.unsafeDone(waiter, Exit.void)
  }

  /** Done once its requestor knows the task. */
  private get knowing(): Effect.Effect<void> {
    return Effect.suspend(() =>
      this.known ? Effect.void : Deferred.await(this.knownWaiter ??= Deferred.unsafeMake(FiberId.none))
    )
  }

  // ---------------------------------------------------------------- the sink

  notify(method: string, params: unknown): Effect.Effect<void> {
    return this.sink.notify(method, params)
  }
  get closeStream() {
    return this.taskId === undefined ? this.sink.closeStream : Effect.void
  }
  get elicitationComplete() {
    return this.sink.elicitationComplete
  }
  get notifySession() {
    return this.sink.notifySession
  }
  get status() {
    return this.taskId === undefined ? undefined : (message: string) => this.setStatus(message)
  }
  /** A task's request is never made a task again: what it keeps is itself. */
  get detached(): this {
    return this
  }
  /** The extension carries no logs for tasks; a 2025-11-25 session's log is session-wide. */
  get mute() {
    return this.taskId !== undefined && this.request.era === "stateless"
  }

  setStatus(message: string): Effect.Effect<void> {
    const taskId = this.taskId
    if (taskId === undefined) return Effect.void
    return Effect.ignore(
      this.runtime.modify(
        taskId,
        (r) => isTerminal(r.status) || r.statusMessage === message ? undefined : { statusMessage: message }
      )
    )
  }

  // ---------------------------------------------------------------- the asker

  get client() {
    return this.taskId === undefined ? this.asker.client : Effect.succeed(this.request.client)
  }
  get roots() {
    return this.taskId === undefined ? this.asker.roots : undefined
  }
  get inputResponse() {
    return this.asker.inputResponse
  }
  get requestState() {
    return this.asker.requestState
  }

  /**
   * How a task asks (once it is one; before, as its request does). 2026-07-28: an input request
   * of the task, under a key new to it, answered by `tasks/update`; 2025-11-25: a request to the
   * client tagged with the task. Either way the task is `input_required` until it is answered.
   */
  carry(ask: Ask.Ask): Effect.Effect<Ask.Answer, McpRequest.ClientRequestError> {
    if (this.taskId === undefined) return this.asker.carry(ask)
    const timeout = ask.options?.timeout
    const bounded = <X, E>(effect: Effect.Effect<X, E>) => timeout === undefined ? effect : withTimeout(effect, timeout)
    return this.request.era === "handshake" && this.asker.carryLive !== undefined
      ? this.carryTagged(ask, bounded)
      : this.carryStored(ask, bounded)
  }

  /** Marks the task waiting for input (or working again), with its open requests. */
  private mark(f: (record: TaskRecord) => Partial<TaskRecord> | undefined) {
    return Effect.mapError(
      this.runtime.modify(this.taskId!, (r) => isTerminal(r.status) ? undefined : f(r)),
      unavailable
    )
  }

  /**
   * 2025-11-25: a request to the client, tagged with the task, once its requestor knows the
   * task (`known`, or a few poll intervals after it asked). On the stream of a waiting
   * `tasks/result` (in that request's session: a token's holder may wait from another), where
   * the revision says a requestor picks a task's asks up; with none waiting, on the session's
   * own stream if the client listens there now (stdio: at once; HTTP: its GET stream open, here
   * or on the instance holding it), since the revision lets a server send on any stream and a
   * requestor that only polls `tasks/get` (ext-tasks) never calls `tasks/result`. Else it waits,
   * and looks again when a `tasks/result` comes to wait, when its requestor refers to the task,
   * and every few poll intervals. It is never kept where it could be lost (the frames kept for a
   * GET stream nobody opened, the newest pushing the oldest out; on Redis, for the next holder
   * alone) and never sent twice. The ask's timeout (the caller's `bounded`) covers the waits and
   * the answer.
   */
  private carryTagged(
    ask: Ask.Ask,
    bounded: <X, E>(effect: Effect.Effect<X, E>) => Effect.Effect<X, E | McpError.InternalError>
  ): Effect.Effect<Ask.Answer, McpRequest.ClientRequestError> {
    const asker = this.asker
    const taskId = this.taskId!
    const open = () => this.asking++
    const close = () => --this.asking
    const meta = { [Meta.relatedTask]: { taskId } }
    const params = ask.params as { _meta?: object }
    // The whole wait is bounded by the caller: the request itself has no timeout of its own.
    const tagged: Ask.Ask = { ...ask, params: { ...params, _meta: { ...params._meta, ...meta } }, options: undefined }
    const grace = this.grace
    const deliver: Effect.Effect<Ask.Answer, McpRequest.ClientRequestError> = Effect.suspend(() => {
      // Taken before looking: a wake that comes while it looks is not missed.
      const woken = this.runtime.wakeOf(taskId)
      const route = this.runtime.route(taskId)
      if (route !== undefined && route.via.carryRelated !== undefined) {
        return route.via.carryRelated(tagged, route.id)
      }
      return Effect.flatMap(
        asker.carryLive!(tagged),
        (sent) =>
          Option.isSome(sent)
            ? Effect.succeed(sent.value)
            : Effect.zipRight(
              Effect.ignore(Effect.timeout(woken === undefined ? Effect.never : Deferred.await(woken), grace)),
              deliver
            )
      )
    })
    return Effect.acquireUseRelease(
      Effect.zipRight(Effect.sync(open), Effect.ignore(this.mark(() => ({ status: "input_required" })))),
      () =>
        bounded(Effect.zipRight(
          // Once its requestor knows the task, or (it polls another instance, or not at all) a
          // few poll intervals after the task asked.
          Effect.ignore(Effect.timeout(this.knowing, grace)),
          deliver
        )),
      () =>
        Effect.suspend(() =>
          close() === 0
            ? Effect.ignore(this.mark((r) => r.status === "input_required" ? { status: "working" } : undefined))
            : Effect.void
        )
    )
  }

  /**
   * 2026-07-28: kept in the store, under a key the task never used, until answered (or given
   * up on: a timeout, an interrupt; then it is no longer asked).
   */
  private carryStored(
    ask: Ask.Ask,
    bounded: <X, E>(effect: Effect.Effect<X, E>) => Effect.Effect<X, E | McpError.InternalError>
  ): Effect.Effect<Ask.Answer, McpRequest.ClientRequestError> {
    const taskId = this.taskId!
    const inputRequest = ask.input
    const key = ask.key
    const keys = this.keys ??= new Set()
    let wireKey = key
    for (let n = 2; keys.has(wireKey); n++) wireKey = `${key}-${n}`
    if (keys.size >= maxKeys) {
      return Effect.fail(new McpError.InternalError({ message: `A task may ask at most ${maxKeys} times` }))
    }
    keys.add(wireKey)
    const asked = this.mark((r) => ({
      status: "input_required",
      inputRequests: { ...r.inputRequests, [wireKey]: inputRequest }
    }))
    const answer = (version: number): Effect.Effect<unknown, McpError.McpError> =>
      Effect.flatMap(Effect.mapError(this.runtime.store.await(taskId, version), unavailable), (found) => {
        if (Option.isNone(found)) return Effect.interrupt
        const r = found.value
        if (Object.hasOwn(r.inputResponses, wireKey)) return Effect.succeed(r.inputResponses[wireKey])
        return answer(r.version)
      })
    const waited = Effect.flatMap(asked, (after) =>
      Option.isNone(after)
        ? Effect.interrupt
        : Object.hasOwn(after.value.inputResponses, wireKey)
        ? Effect.succeed(after.value.inputResponses[wireKey])
        : answer(after.value.version))
    /** The key asked no more: out of the open requests and the answers; working again when none is open. */
    const done = Effect.ignore(this.mark((r) => {
      if (!Object.hasOwn(r.inputRequests, wireKey) && !Object.hasOwn(r.inputResponses, wireKey)) return undefined
      const inputRequests = { ...r.inputRequests }
      const inputResponses = { ...r.inputResponses }
      delete inputRequests[wireKey]
      delete inputResponses[wireKey]
      return {
        inputRequests,
        inputResponses,
        ...(r.status === "input_required" && Object.keys(inputRequests).length === 0
          ? { status: "working" as const }
          : {})
      }
    }))
    return Effect.map(Effect.ensuring(bounded(waited), done), (value) => ({ value, key: wireKey }))
  }
}

/**
 * How long a 2025-11-25 ask waits for its requestor to refer to the task before it is sent all the
 * same, and, finding no way to the client, before it looks again: four poll intervals, at least a
 * second.
 */
const knownGrace = (record: TaskRecord): number => Math.max(1_000, 4 * record.pollIntervalMs)

/** Most keys one task asks under, over its life. */
const maxKeys = 10_000

const withTimeout = <A, E>(effect: Effect.Effect<A, E>, timeout: Duration.DurationInput) =>
  Effect.timeoutFail(effect, {
    duration: timeout,
    onTimeout: () =>
      new McpError.InternalError({ message: "The client did not answer the task's input request in time" })
  })
