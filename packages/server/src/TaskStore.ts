/**
 * Where tasks live: a tool call that outlives its request (the tasks of 2025-11-25 and the
 * `io.modelcontextprotocol/tasks` extension of 2026-07-28) is a record here, from its creation
 * (durable before the client hears of it) to its sweep, one `ttl` after it was created.
 *
 * The interface is made for a shared store as much as for memory: every change is a
 * compare-and-set on the record's `version` (a store that cannot lock reads, sets if unchanged,
 * and says whether it did), the record carries its input requests, the answers given to them,
 * its outcome, a request to cancel, and a lease naming the instance that runs it. A runner waits
 * for a change with `await`; every change is also published on `changes` (what a listen, and a
 * runner on another instance, hears), removals too. The default keeps tasks in memory, bounded in count (overall
 * and per owner) and in bytes, and sweeps them by their TTL.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import * as Lazy from "./internal/lazy.js"
import * as TaskMemory from "./internal/taskMemory.js"

/**
 * The status of a task: `working` and `input_required` while it runs, then one of the three
 * terminal ones, after which it never changes.
 *
 * @since 0.1.0
 * @category models
 */
export type Status = "working" | "input_required" | "completed" | "failed" | "cancelled"

/**
 * Is this status terminal?
 *
 * @since 0.1.0
 * @category predicates
 */
export const isTerminal = (status: Status): boolean =>
  status === "completed" || status === "failed" || status === "cancelled"

/**
 * How a task ended: the result of its request (a tool's `CallToolResult`, `isError` or not), or
 * the JSON-RPC error it failed with.
 *
 * @since 0.1.0
 * @category models
 */
export type Outcome =
  | { readonly _tag: "Result"; readonly result: Readonly<Record<string, unknown>> }
  | {
    readonly _tag: "Error"
    readonly error: { readonly code: number; readonly message: string; readonly data?: unknown }
  }

/**
 * The instance running a task, until `expiresAt` (epoch milliseconds) unless it renews.
 *
 * @since 0.1.0
 * @category models
 */
export interface Lease {
  readonly holder: string
  readonly expiresAt: number
}

/**
 * One task, as stored. Times are epoch milliseconds.
 *
 * @since 0.1.0
 * @category models
 */
export interface TaskRecord {
  readonly taskId: string
  /** Who may see it: the token's holder, the session, or the client's name in the stateless era. */
  readonly owner: string
  /** The wire it was created on: its revision. */
  readonly revision: string
  /** The request that made it (`tools/call`) and the tool's name. */
  readonly method: string
  readonly name: string
  readonly status: Status
  readonly statusMessage: string | undefined
  readonly createdAt: number
  readonly lastUpdatedAt: number
  /** Milliseconds from creation it is kept; null for as long as the store keeps anything. */
  readonly ttlMs: number | null
  readonly pollIntervalMs: number
  /** The outstanding input requests, by key (keys are never reused over the task's life). */
  readonly inputRequests: Readonly<Record<string, unknown>>
  /** Answers given to them, not yet taken by the runner. */
  readonly inputResponses: Readonly<Record<string, unknown>>
  readonly outcome: Outcome | undefined
  /** Someone asked to cancel it; its runner, wherever it is, stops it. */
  readonly cancelRequested: boolean
  readonly lease: Lease | undefined
  /** Bumped by every change: what `compareAndSet` compares. */
  readonly version: number
  /**
   * What its runner holds in memory while the task runs (characters, as JSON would count them):
   * its decoded arguments, what it kept of its request (`_meta`), and the runner itself. Counted
   * with the record against the store's byte bounds until the task ends (then the runner is gone);
   * absent: nothing.
   */
  readonly held?: number | undefined
}

/**
 * The store refused to keep a task, or a change to one: too many tasks (overall or for one
 * owner), or too many bytes.
 *
 * @since 0.1.0
 * @category errors
 */
export class TaskStoreFull extends Data.TaggedError("TaskStoreFull")<{
  readonly reason: "tasks" | "owner" | "bytes" | "ownerBytes" | "record"
}> {
  override get message(): string {
    switch (this.reason) {
      case "tasks":
        return "Too many tasks are kept: try again later"
      case "owner":
        // A task is kept, working, finished or cancelled, until its TTL ends: cancelling frees no place.
        return "Too many tasks are kept for this client: each is kept, finished or cancelled, until its time to " +
          "live ends (cancelling one frees no place); try again later"
      case "bytes":
        return "The task store is full: try again later"
      case "ownerBytes":
        return "This client's tasks hold too much: wait for some to be swept, or cancel them"
      case "record":
        return "The task is too large to keep"
    }
  }
}

/**
 * The store cannot be reached (a shared one that is down).
 *
 * @since 0.1.0
 * @category errors
 */
export class TaskStoreUnavailable extends Data.TaggedError("TaskStoreUnavailable")<{
  readonly cause?: unknown
}> {
  override get message(): string {
    return "The task store cannot be reached"
  }
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** Keeps a new task (whose `version` is 0): once this succeeds, `get` finds it, anywhere. */
  readonly create: (record: TaskRecord) => Effect.Effect<void, TaskStoreFull | TaskStoreUnavailable>
  readonly get: (taskId: string) => Effect.Effect<Option.Option<TaskRecord>, TaskStoreUnavailable>
  /**
   * Replaces a task with `next` (whose `version` is one more) if it is still at `version`:
   * whether it was. False too when the task is gone.
   */
  readonly compareAndSet: (
    taskId: string,
    version: number,
    next: TaskRecord
  ) => Effect.Effect<boolean, TaskStoreFull | TaskStoreUnavailable>
  /** One page of an owner's tasks, newest first, after `cursor` (a task id the last page ended with). */
  readonly list: (
    owner: string,
    cursor: string | undefined,
    limit: number
  ) => Effect.Effect<
    { readonly tasks: ReadonlyArray<TaskRecord>; readonly next: string | undefined },
    TaskStoreUnavailable
  >
  readonly remove: (taskId: string) => Effect.Effect<void, TaskStoreUnavailable>
  /**
   * The task once its version is past `version` (at once if it already is); none once it is gone.
   * Interruptible: a waiter that gives up leaves nothing behind.
   */
  readonly await: (taskId: string, version: number) => Effect.Effect<Option.Option<TaskRecord>, TaskStoreUnavailable>
  /** Every change, as the record it made, and every removal (swept, or removed), as its id alone. */
  readonly changes: Stream.Stream<Change>
  /**
   * Whether the store can serve now (a shared one: its backing service answers), for the HTTP
   * handler's `readyPath`. Absent: always.
   */
  readonly ready?: Effect.Effect<boolean> | undefined
}

/**
 * A change of a task: the record it made, or, when the task is gone, none.
 *
 * @since 0.1.0
 * @category models
 */
export interface Change {
  readonly taskId: string
  readonly record: TaskRecord | undefined
}

/**
 * @since 0.1.0
 * @category tags
 */
export class TaskStore extends Context.Tag("@effect-mcp/server/TaskStore")<TaskStore, Service>() {}

/**
 * Bounds of the in-memory store.
 *
 * @since 0.1.0
 * @category models
 */
export interface MemoryOptions {
  /** Most tasks kept, finished ones included (default 10,000). */
  readonly maxTasks?: number
  /**
   * Most tasks kept for one owner (default 1,000), finished and cancelled ones included until
   * their TTL ends: past it, the owner's next task is refused (-32603) until one is swept.
   */
  readonly maxTasksPerOwner?: number
  /**
   * Most characters kept over every task (default 64 Mi): their records' JSON, and what the
   * running ones hold in memory (`TaskRecord.held`: their arguments, their request's `_meta`, their
   * runner).
   */
  readonly maxBytes?: number
  /** Most characters kept for one owner's tasks, counted the same way (default 16 Mi): one owner cannot fill the store. */
  readonly maxBytesPerOwner?: number
  /**
   * Most characters one task may hold: its input requests, answers and outcome, and while it runs
   * what its runner holds (default 4 Mi).
   */
  readonly maxRecordBytes?: number
  /** How often expired tasks are swept while the store holds any (default every second; an empty store sleeps). */
  readonly sweepInterval?: Duration.DurationInput
}

/**
 * What a task's runner holds in memory, counted while the task runs (nothing once it ended: its
 * runner is gone).
 *
 * @since 0.1.0
 * @category utils
 */
export const heldBy = (record: TaskRecord): number =>
  record.held === undefined || isTerminal(record.status) ? 0 : record.held

/**
 * The in-memory store: bounded as `options` say, swept by TTL (a task whose `ttlMs` ran out is
 * removed, running or not; its runner finds it gone and stops), in the scope's lifetime.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeMemory = (options: MemoryOptions = {}): Effect.Effect<Service, never, Scope.Scope> =>
  // `changes` is a stream of `effect/Stream`, loaded here: a server given no store keeps one in memory
  // without it (`internal/taskMemory.ts`), its runtime following the changes from the store's hub.
  Effect.flatMap(Effect.promise(Lazy.stream), (Stream) =>
    Effect.map(TaskMemory.make(options), (store): Service =>
      // A server given it follows its hub, as its own store's (`TaskMemory.fromService`).
      TaskMemory.asService({
        create: store.create,
        get: store.get,
        compareAndSet: store.compareAndSet,
        list: store.list,
        remove: store.remove,
        await: store.await,
        changes: Stream.fromPubSub(store.hub)
      }, store)))

/**
 * The in-memory store as a layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMemory = (options?: MemoryOptions): Layer.Layer<TaskStore> =>
  Layer.scoped(TaskStore, makeMemory(options))
