/**
 * The state of the tasks runtime (see `tasks.ts`): its store and options, the tasks this
 * instance runs (their handlers' fibers, where their asks may go), the sessions to tell of their
 * changes, and the compare-and-set every change of a record goes through.
 */
import { AuthInfo } from "@effect-mcp/core"
import type { Schema as McpSchema } from "@effect-mcp/core"
import type * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as FiberRef from "effect/FiberRef"
import * as FiberRefs from "effect/FiberRefs"
import * as Option from "effect/Option"
import type * as EffectRuntime from "effect/Runtime"
import type * as Scheduler from "effect/Scheduler"
import type * as Scope from "effect/Scope"
import type * as TaskStore from "../TaskStore.js"
import * as Holders from "./holders.js"
import type { Sink } from "./request.js"
import type { RequestContext } from "./serving.js"
import { serverServices } from "./taskContext.js"
import type * as TaskMemory from "./taskMemory.js"
import type { Route, TaskRuntime } from "./taskRequest.js"
import { unavailable, unknownTask } from "./taskShapes.js"

type TaskRecord = TaskStore.TaskRecord

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

/**
 * Who a request's tasks belong to: the token's holder (authorization on), else the handshake
 * session, else (stateless, no token) the client's address, its connection, or, where nothing
 * names it, `Holders.anyone` (see `RequestContext.taskOwner`).
 */
export const ownerOf = (request: RequestContext): string =>
  Option.isSome(request.auth) ? `auth:${AuthInfo.holder(request.auth.value)}` : request.taskOwner

/** What a task says when it is created (working, no message, no input requests): see `told`. */
export const createdSays = "working\u0000\u0000"

/** A deferred already done. */
const done = (): Deferred.Deferred<void> => {
  const deferred = Deferred.unsafeMake<void>(FiberId.none)
  Deferred.unsafeDone(deferred, Exit.void)
  return deferred
}

/** Most `_meta` objects tasks share (`TaskState.sharedMeta`), and the longest, in JSON characters. */
const maxShared = 256
const maxSharedLength = 4_096

const deepFreeze = <A>(value: A): A => {
  if (typeof value === "object" && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child)
    Object.freeze(value)
  }
  return value
}

/**
 * The scheduler tasks' handlers run on: the runtime's own, but for a handler's first step, run in
 * a microtask of its own (in the AsyncLocalStorage context of the request that started it). Through
 * the runtime's scheduler (Effect 3.20+), that first step would make the fiber a scheduler runner of
 * its own (kept per fiber in a WeakMap, about 0.2 KB) held as long as the handler runs, which a
 * handler waiting on its first call (a sleep, a request to elsewhere) never needs; it gets one when
 * it is resumed from its wait, as any fiber does. The first step is told apart by `starting`, set
 * around the fork only (a fork schedules the fiber's first step before it returns).
 */
export class StartScheduler implements Scheduler.Scheduler {
  /** True while a handler is being forked: the next task scheduled is its first step. */
  starting = false
  constructor(readonly scheduler: Scheduler.Scheduler) {}
  shouldYield(fiber: Fiber.RuntimeFiber<unknown, unknown>): number | false {
    return this.scheduler.shouldYield(fiber)
  }
  scheduleTask(task: Scheduler.Task, priority: number, fiber?: Fiber.RuntimeFiber<unknown, unknown>): void {
    if (this.starting) {
      this.starting = false
      queueMicrotask(task)
      return
    }
    this.scheduler.scheduleTask(task, priority, fiber)
  }
}

/**
 * Local state of a task this instance runs (its `TaskPart`: nothing but it): its handler's
 * fiber, and what its 2025-11-25 asks need (made only when one asks or waits).
 */
export interface Local {
  /** Each waiting `tasks/result`: its id, and its request (its session carries the ask); made when the first comes. */
  routes: Array<Route> | undefined
  /**
   * Done (and cleared) when a 2025-11-25 ask of it that found no way to the client may find one
   * now: a `tasks/result` came to wait, or its requestor referred to the task. Made when an ask
   * first looks for it (`wakeOf`).
   */
  wake: Deferred.Deferred<void> | undefined
  /** Its requestor referred to it (`TaskPart.known`). */
  know(): void
  /** The handler's fiber: what a cancel, or the task's removal, interrupts. */
  readonly fiber: Fiber.RuntimeFiber<unknown, unknown>
}

/**
 * The state of one server's tasks runtime: its store, the tasks this instance runs (their handlers'
 * fibers, where their asks may go), and the sessions to tell of their changes.
 */
export class TaskState implements TaskRuntime {
  readonly locals = new Map<string, Local>()
  /** The sessions of this instance's 2025-11-25 tasks: where `notifications/tasks/status` go. */
  readonly sessions = new Map<string, Sink>()
  /**
   * What each task was last told as (status, message, open input requests), where that is not
   * what it was created as (`createdSays`): a change of none of them (a lease) is not news.
   */
  readonly told = new Map<string, string>()
  /**
   * The `_meta` tasks share, by their JSON text (`sharedMeta`): at most `maxShared` of at most
   * `maxSharedLength` characters (1 Mi in all), emptied when full.
   */
  private readonly metas = new Map<string, McpSchema.Base.MetaObject>()
  /** The owners' names tasks share (`sharedOwner`), bounded as `metas`. */
  private readonly owners = new Map<string, string>()
  /** The scheduler of tasks' handlers (see `StartScheduler`). */
  readonly scheduler: StartScheduler
  /** The server's services, as tasks' handlers see them beside their own (`TaskContext.serverServices`). */
  readonly services: ReadonlyMap<string, unknown>
  /** The fiber refs tasks' handlers start with: the runtime's, on `scheduler`. */
  readonly handlerRefs: FiberRefs.FiberRefs
  /** Done while this instance runs no task; a new one when the first task starts (see {@link idle}). */
  private settled: Deferred.Deferred<void> = done()
  /**
   * Open while this instance runs a task, closed while it runs none: the lease renewal
   * (`TaskWatch.renewLeases`) waits on it, so an instance with no task has no timer of it pending.
   */
  readonly runs: Effect.Latch = Effect.unsafeMakeLatch(false)

  constructor(
    readonly store: TaskMemory.Store,
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
    serverContext: Context.Context<never>
  ) {
    this.services = serverServices(serverContext)
    this.scheduler = new StartScheduler(FiberRefs.getOrDefault(built.fiberRefs, FiberRef.currentScheduler))
    this.handlerRefs = FiberRefs.updateAs(built.fiberRefs, {
      fiberId: FiberId.none,
      fiberRef: FiberRef.currentScheduler,
      value: this.scheduler
    })
  }

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
    if (woken === undefined) return
    local.wake = undefined
    Deferred.unsafeDone(woken, Exit.void)
  }

  /** Its requestor referred to a task this instance runs: its asks may go (`TaskPart.known`). */
  readonly knows = (taskId: string) => {
    const local = this.locals.get(taskId)
    if (local === undefined) return
    local.know()
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
  /** A task this instance runs from now on (its handler detached): its local state. */
  readonly running = (taskId: string, local: Local) => {
    if (this.locals.size === 0) {
      this.settled = Deferred.unsafeMake(FiberId.none)
      this.runs.unsafeOpen()
    }
    this.locals.set(taskId, local)
  }

  /** A task this instance no longer runs: its local state goes. */
  readonly forget = (taskId: string) => {
    const local = this.locals.get(taskId)
    if (local === undefined) return
    this.locals.delete(taskId)
    if (this.locals.size === 0) {
      this.runs.unsafeClose()
      Deferred.unsafeDone(this.settled, Exit.void)
    }
  }

  /**
   * Completes once this instance runs no task (at once when it runs none): what a Worker keeps the
   * request alive with (`ctx.waitUntil`), since a Worker's timers end with their request.
   */
  readonly idle: Effect.Effect<void> = Effect.suspend(() => Deferred.await(this.settled))

  /**
   * One `_meta` for the tasks whose requests carried the same: a frozen copy, made once (a task
   * keeps its request's `_meta`, and a 2026-07-28 request carries its client's capabilities and
   * info in every one).
   */
  readonly sharedMeta = (meta: McpSchema.Base.MetaObject): McpSchema.Base.MetaObject => {
    let text: string
    try {
      text = JSON.stringify(meta)
    } catch {
      return meta
    }
    // One too long to be worth sharing is kept as it is (what is shared is bounded in bytes).
    if (text.length > maxSharedLength) return meta
    let shared = this.metas.get(text)
    if (shared === undefined) {
      if (this.metas.size >= maxShared) this.metas.clear()
      shared = deepFreeze(JSON.parse(text) as McpSchema.Base.MetaObject)
      this.metas.set(text, shared)
    }
    return shared
  }

  /** One string for an owner's every task (its name is made anew for each request: about 60 bytes a task). */
  readonly sharedOwner = (owner: string): string => {
    if (owner.length > maxSharedLength) return owner
    const shared = this.owners.get(owner)
    if (shared !== undefined) return shared
    if (this.owners.size >= maxShared) this.owners.clear()
    this.owners.set(owner, owner)
    return owner
  }

  readonly route = (taskId: string): Route | undefined => this.locals.get(taskId)?.routes?.[0]
  readonly wakeOf = (taskId: string): Deferred.Deferred<void> | undefined => {
    const local = this.locals.get(taskId)
    if (local === undefined) return undefined
    return local.wake ??= Deferred.unsafeMake(FiberId.none)
  }
}
