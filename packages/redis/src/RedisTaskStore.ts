/**
 * The server's `TaskStore` on Redis: every instance of a server given this store sees every
 * task, whichever instance created it or runs it. A task created through one instance is got,
 * listed, awaited, updated and cancelled through any other, and the runner on the instance that
 * has it hears of each change (a cancel, an answer) through the store's `changes`.
 *
 * **Keys**, all under the connection's prefix `P`:
 *
 * - `P task:<id>`: the record, as JSON (encoded and decoded with a schema of
 *   `TaskStore.TaskRecord`), with a Redis TTL at `createdAt + ttlMs` (none when `ttlMs` is null).
 *   A record that does not decode is lost alone: `get` finds nothing, `list` skips it, the sweep
 *   lets its lease be; each time logged (at most one warning every 10 seconds) and counted
 *   (`RedisConnection.recordsLost`, `task`). So is a message on the channel (`task-change`).
 * - `P tasks:meta`: a hash of every task kept: `version:bytes:owner` (what a compare-and-set
 *   compares, what the bounds count, and what the task's removal has to undo, even after Redis
 *   dropped its record by TTL).
 * - `P tasks:owner:<owner>`: a sorted set of the owner's tasks, by creation (what `list` pages
 *   through, newest first); `P tasks:seq` numbers the creations.
 * - `P tasks:expiry`: a sorted set of the tasks with a TTL, by the moment it runs out.
 * - `P tasks:leases`: a sorted set of the running tasks with a lease, by `lease.expiresAt`.
 * - `P tasks:bytes` and `P tasks:ownerbytes`: the bytes of JSON kept (UTF-8, as Redis holds them:
 *   counted by the scripts themselves), overall and by owner, with what the running tasks' runners
 *   hold (`TaskRecord.held`).
 * - `P tasks`: the channel every change is published on, removals too.
 *
 * Every change (`create`, `compareAndSet`, `remove`, a sweep) is one Lua script: it checks,
 * writes the record and its indexes, and publishes the change, all at once. Each store
 * subscribes to the channel once and fans what it hears out to its own listeners (`changes`,
 * and the fibers in `await`).
 *
 * **The sweep.** Each instance sweeps every `sweepInterval` (several at once are safe: a script
 * pops the expired tasks off `P tasks:expiry`, so each removal is made, and published, once).
 * The sweep also applies the lease rule: a task whose runner's lease lapsed (the instance that
 * runs it stopped renewing it: it died, or lost Redis) is `failed`, with an error saying its
 * runner was lost. Failing it is a compare-and-set on the version the sweep read, so a renewal
 * that comes first wins.
 *
 * **When Redis is down**, every method fails at once with `TaskStoreUnavailable` (the server
 * answers the request with an error, and the task is not created); `changes` goes on (quiet
 * meanwhile), the sweep logs once and tries again every interval. When the subscription comes
 * back, what was published meanwhile is lost: the store reads the tasks it was awaiting again
 * (their waiters wake if they changed, or went) and tells `changes` how they are. Leases that
 * lapsed meanwhile are given `leaseGrace` before the sweep fails their tasks: their runners may
 * be alive and about to renew.
 *
 * Keys are built inside the scripts from the prefix: the store needs one Redis (or every key in
 * one cluster slot: a prefix with a hash tag, such as `{mcp}:`). Time is the instance's `Clock`
 * (leases, expiries, the sweep): the instances' clocks must agree (to well within a lease), as
 * the lease rule needs anyway.
 *
 * @since 0.1.0
 */
import * as TaskStore from "@effect-mcp/server/TaskStore"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Mailbox from "effect/Mailbox"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Loss from "./internal/loss.js"
import * as Records from "./internal/taskRecord.js"
import * as Scripts from "./internal/taskScripts.js"
import * as RedisConnection from "./RedisConnection.js"

type TaskRecord = TaskStore.TaskRecord

/**
 * Bounds of the store (the in-memory store's, with the same defaults, held over every instance
 * together), and how it sweeps. Bytes are the bytes of the records' JSON as Redis stores it (UTF-8:
 * a character outside ASCII is two to four), and what the running tasks' runners hold in memory
 * (`TaskRecord.held`, on the instance that runs each).
 *
 * @since 0.1.0
 * @category models
 */
export interface Options extends TaskStore.MemoryOptions {
  /**
   * After this instance lost Redis, how long its sweep waits before it fails tasks whose leases
   * lapsed: their runners could not renew meanwhile either (default 30 seconds, a lease).
   */
  readonly leaseGrace?: Duration.DurationInput
  /** Changes kept for a listener of `changes` that falls behind; the oldest go first (default 10,000). */
  readonly changesCapacity?: number
}

/**
 * What a task whose runner was lost fails with (and, as its status message, says).
 *
 * @since 0.1.0
 * @category models
 */
export const runnerLost = {
  code: -32603,
  message: "The instance running this task was lost (its lease lapsed)"
} as const

// ---------------------------------------------------------------------------- records

const encodeRecord = Schema.encode(Records.TaskRecordJson)
const decodeRecord = Schema.decodeUnknownEither(Records.TaskRecordJson)
const decodeChange = Schema.decodeUnknownEither(Records.ChangeJson)
/** A page as the list script answers it: whether more follow (0 or 1), then the records' JSON. */
const decodePage = Schema.decodeUnknownEither(Schema.Tuple([Schema.Literal(0, 1)], Schema.String))

/** A record's JSON, to be written (one the server made that does not encode is a bug: a defect). */
const encode = (record: TaskRecord): Effect.Effect<string> => Effect.orDie(encodeRecord(record))

const expired = (record: TaskRecord, now: number): boolean =>
  record.ttlMs !== null && now >= record.createdAt + record.ttlMs

/** The score of a record in the leases set: running with a lease, or none (out of the set). */
const leaseAt = (record: TaskRecord): string =>
  record.lease !== undefined && !TaskStore.isTerminal(record.status) ? String(record.lease.expiresAt) : ""

/** A task whose runner was lost, failed. */
const lapse = (record: TaskRecord, now: number): TaskRecord => ({
  ...record,
  status: "failed",
  statusMessage: runnerLost.message,
  outcome: { _tag: "Error", error: { code: runnerLost.code, message: runnerLost.message } },
  inputRequests: {},
  inputResponses: {},
  lease: undefined,
  version: record.version + 1,
  lastUpdatedAt: now
})

const positive = (name: string, value: number): number => {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new Error(`RedisTaskStore: ${name} must be a positive integer (got ${value})`)
  }
  return value
}

const isReason = (u: unknown): u is TaskStore.TaskStoreFull["reason"] =>
  u === "tasks" || u === "owner" || u === "bytes" || u === "ownerBytes" || u === "record"

const full = (reply: unknown): Effect.Effect<void, TaskStore.TaskStoreFull> =>
  isReason(reply) ? Effect.fail(new TaskStore.TaskStoreFull({ reason: reply })) : Effect.void

// ---------------------------------------------------------------------------- waiters

interface Waiter {
  readonly version: number
  readonly deferred: Deferred.Deferred<Option.Option<TaskRecord>>
}

/** The fibers in `await`, by task: each woken once its task is past its version, or gone. */
const makeWaiters = () => {
  const byTask = new Map<string, Set<Waiter>>()
  return {
    tasks: (): ReadonlyArray<string> => Array.from(byTask.keys()),
    has: (taskId: string): boolean => byTask.has(taskId),
    add: (taskId: string, waiter: Waiter): void => {
      const waiting = byTask.get(taskId)
      if (waiting === undefined) byTask.set(taskId, new Set([waiter]))
      else waiting.add(waiter)
    },
    remove: (taskId: string, waiter: Waiter): void => {
      const waiting = byTask.get(taskId)
      if (waiting === undefined) return
      waiting.delete(waiter)
      if (waiting.size === 0) byTask.delete(taskId)
    },
    /** Wakes the waiters of `taskId` that `record` is past (all of them when it is gone). */
    wake: (taskId: string, record: TaskRecord | undefined): void => {
      const waiting = byTask.get(taskId)
      if (waiting === undefined) return
      for (const waiter of waiting) {
        if (record !== undefined && record.version <= waiter.version) continue
        waiting.delete(waiter)
        Deferred.unsafeDone(waiter.deferred, Effect.succeed(Option.fromNullable(record)))
      }
      if (waiting.size === 0) byTask.delete(taskId)
    }
  }
}

// ---------------------------------------------------------------------------- the store

/** What the parts of one store share. */
interface Store {
  readonly connection: RedisConnection.Service
  readonly prefix: string
  /** The store's bounds, in the order the scripts take them after the record. */
  readonly maxTasks: number
  readonly maxPerOwner: number
  readonly maxBytes: number
  readonly maxOwnerBytes: number
  readonly maxRecordBytes: number
  readonly graceMs: number
  readonly lose: (kind: Loss.Kind, where: string, cause: unknown) => Effect.Effect<void>
  readonly waiters: ReturnType<typeof makeWaiters>
  readonly hub: PubSub.PubSub<TaskStore.Change>
  /** The moment from which lapsed leases fail their tasks again (Redis was lost before it). */
  readonly leasesFrom: Ref.Ref<number>
  /** Awaited tasks to read again (messages about them may have been lost). */
  readonly stale: Set<string>
}

const unavailable = (cause: RedisConnection.RedisUnavailable) => new TaskStore.TaskStoreUnavailable({ cause })

/** A record as read (none when it does not decode: a loss, logged and counted). */
const readRecord = (store: Store, where: string, json: string): Effect.Effect<Option.Option<TaskRecord>> =>
  Either.match(decodeRecord(json), {
    onLeft: (error) => Effect.as(store.lose("task", where, error), Option.none()),
    onRight: (record) => Effect.succeed(Option.some(record))
  })

/** The task, unless it is gone, expired (by this instance's clock) or does not decode. */
const getTask = (
  store: Store,
  taskId: string
): Effect.Effect<Option.Option<TaskRecord>, TaskStore.TaskStoreUnavailable> =>
  Effect.gen(function*() {
    const json = yield* Effect.mapError(
      store.connection.use((r) => r.get(`${store.prefix}task:${taskId}`)),
      unavailable
    )
    if (json === null) return Option.none()
    const record = yield* readRecord(store, `${store.prefix}task:${taskId}`, json)
    const now = yield* Clock.currentTimeMillis
    return Option.filter(record, (r) => !expired(r, now))
  })

/** Redis was lost: leases that lapsed meanwhile are given `graceMs` from now. */
const lostRedis = (store: Store) =>
  Effect.flatMap(
    Clock.currentTimeMillis,
    (now) => Ref.update(store.leasesFrom, (t) => Math.max(t, now + store.graceMs))
  )

/**
 * The awaited tasks about which messages may have been lost are read again, their waiters woken
 * if they changed or went, and listeners told how they are. Each stays to be read (by the next
 * sweep) until it was.
 */
const recheck = (store: Store) =>
  Effect.suspend(() =>
    Effect.forEach(
      Array.from(store.stale),
      (taskId) => {
        if (!store.waiters.has(taskId)) {
          store.stale.delete(taskId)
          return Effect.void
        }
        return Effect.flatMap(Effect.either(getTask(store, taskId)), (found) => {
          if (Either.isLeft(found)) return Effect.void
          store.stale.delete(taskId)
          const record = Option.getOrUndefined(found.right)
          store.waiters.wake(taskId, record)
          return PubSub.publish(store.hub, { taskId, record })
        })
      },
      { concurrency: 16, discard: true }
    )
  )

/**
 * Subscribes to the store's channel (waiting for the subscription) and, in a fiber of the scope,
 * wakes the waiters and tells `changes` of what it says; after the subscription came back,
 * whatever was awaited then is read again.
 */
const listen = (store: Store): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function*() {
    const channel = `${store.prefix}tasks`
    const hear = (payload: string) =>
      Either.match(decodeChange(payload), {
        onLeft: (error) => store.lose("task-change", `the channel ${channel}`, error),
        onRight: ({ record, taskId }) => {
          const change = { taskId, record: record ?? undefined }
          store.waiters.wake(taskId, change.record)
          return PubSub.publish(store.hub, change)
        }
      })
    const recover = Effect.suspend(() => {
      for (const taskId of store.waiters.tasks()) store.stale.add(taskId)
      return Effect.zipRight(lostRedis(store), recheck(store))
    })
    const deliveries = yield* Effect.retry(store.connection.subscribe(channel), Schedule.spaced(Duration.seconds(1)))
      .pipe(Effect.orDie)
    yield* Effect.forkScoped(
      Stream.runForEach(Mailbox.toStream(deliveries), (delivery) =>
        (delivery._tag === "Message" ? hear(delivery.payload) : recover).pipe(
          Effect.catchAllCause((cause) =>
            Effect.logError("effect-mcp: the task store's listener failed", cause)
          )
        ))
    )
  })

/** A task whose runner's lease lapsed before `at` is failed, at the version read (a renewal first wins). */
const failLapsed = (store: Store, taskId: string, at: number) =>
  Effect.gen(function*() {
    const { connection, prefix } = store
    const json = yield* connection.use((r) => r.get(`${prefix}task:${taskId}`))
    if (json === null) return
    const found = yield* readRecord(store, `${prefix}task:${taskId}`, json)
    // A record that does not decode cannot be failed: its lease is let be, and looked at no more.
    if (Option.isNone(found)) return yield* connection.use((r) => r.zrem(`${prefix}tasks:leases`, taskId))
    const record = found.value
    if (TaskStore.isTerminal(record.status) || record.lease === undefined || record.lease.expiresAt >= at) return
    const next = lapse(record, at)
    yield* connection.eval(Scripts.compareAndSet, [], [
      prefix,
      taskId,
      record.version,
      yield* encode(next),
      TaskStore.heldBy(next),
      next.version,
      "",
      at,
      store.maxBytes,
      store.maxOwnerBytes,
      store.maxRecordBytes
    ])
  })

/** One sweep: expired tasks removed (each published), then lapsed leases applied. */
const sweepOnce = (store: Store) =>
  Effect.gen(function*() {
    if (store.stale.size > 0) yield* recheck(store)
    const at = yield* Clock.currentTimeMillis
    // Bounded per script run (Redis does nothing else meanwhile), and per sweep.
    for (let round = 0; round < 10; round++) {
      const removed = yield* store.connection.eval(Scripts.sweep, [], [store.prefix, at, 1_000])
      if (Number(removed) < 1_000) break
    }
    if (at < (yield* Ref.get(store.leasesFrom))) return
    const lapsed = yield* store.connection.use((r) =>
      r.zrangebyscore(`${store.prefix}tasks:leases`, "-inf", `(${at}`, "LIMIT", 0, 1_000)
    )
    yield* Effect.forEach(lapsed, (taskId) => failLapsed(store, taskId, at), { concurrency: 16, discard: true })
  })

/** Sweeps every `interval` for the scope's life; a sweep that fails says so once, and again once it works. */
const sweeping = (store: Store, interval: Duration.DurationInput): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function*() {
    const failing = yield* Ref.make(false)
    const sweep = sweepOnce(store).pipe(
      Effect.matchCauseEffect({
        onFailure: (cause) =>
          Effect.zipRight(
            lostRedis(store),
            Option.match(Cause.failureOption(cause), {
              onNone: () => Effect.logError("effect-mcp: the task store's sweep failed", cause),
              onSome: (error) =>
                Effect.whenEffect(
                  Effect.logWarning(`effect-mcp: the task store cannot sweep (${error.message}); it keeps trying`),
                  Ref.getAndSet(failing, true).pipe(Effect.map((was) => !was))
                )
            })
          ),
        onSuccess: () =>
          Effect.whenEffect(Effect.logInfo("effect-mcp: the task store sweeps again"), Ref.getAndSet(failing, false))
      })
    )
    yield* Effect.forkScoped(Effect.repeat(sweep, Schedule.spaced(interval)))
  })

/** The service's methods, on the parts of the store. */
const service = (store: Store): TaskStore.Service => {
  const { connection, prefix } = store
  const run = (script: RedisConnection.Script, args: ReadonlyArray<string | number>) =>
    Effect.mapError(connection.eval(script, [], [prefix, ...args]), unavailable)
  return {
    ready: connection.isReady,
    create: (record) =>
      Effect.gen(function*() {
        const reply = yield* run(Scripts.create, [
          record.taskId,
          record.owner,
          yield* encode(record),
          TaskStore.heldBy(record),
          record.version,
          record.ttlMs === null ? "" : record.createdAt + record.ttlMs,
          leaseAt(record),
          yield* Clock.currentTimeMillis,
          store.maxTasks,
          store.maxPerOwner,
          store.maxBytes,
          store.maxOwnerBytes,
          store.maxRecordBytes
        ])
        if (reply === "exists") {
          return yield* Effect.dieMessage(`RedisTaskStore: a task ${record.taskId} exists already`)
        }
        if (reply !== "ok") yield* full(reply)
      }),
    get: (taskId) => getTask(store, taskId),
    compareAndSet: (taskId, version, next) =>
      Effect.gen(function*() {
        const reply = yield* run(Scripts.compareAndSet, [
          taskId,
          version,
          yield* encode(next),
          TaskStore.heldBy(next),
          next.version,
          leaseAt(next),
          yield* Clock.currentTimeMillis,
          store.maxBytes,
          store.maxOwnerBytes,
          store.maxRecordBytes
        ])
        if (reply !== 1) return yield* Effect.as(full(reply), false)
        // Woken here at once; the channel tells the other instances (and this one's `changes`).
        store.waiters.wake(taskId, next)
        return true
      }),
    list: (owner, cursor, limit) =>
      Effect.gen(function*() {
        if (limit < 1) return { tasks: [], next: undefined }
        const reply = yield* run(Scripts.list, [owner, cursor ?? "", limit, yield* Clock.currentTimeMillis])
        const page = decodePage(reply)
        if (Either.isLeft(page)) {
          yield* store.lose("reply", `a page of ${owner}'s tasks`, page.left)
          return { tasks: [], next: undefined }
        }
        const [more, ...texts] = page.right
        const found = yield* Effect.forEach(texts, (json) =>
          readRecord(store, `a page of ${prefix}tasks:owner:${owner}`, json))
        const tasks = found.flatMap(Option.toArray)
        return { tasks, next: more === 1 && tasks.length > 0 ? tasks[tasks.length - 1].taskId : undefined }
      }),
    remove: (taskId) =>
      Effect.map(run(Scripts.remove, [taskId]), (removed) => {
        if (removed === 1) store.waiters.wake(taskId, undefined)
      }),
    await: (taskId, version) =>
      // Waiting before reading: a change between the read and the wait wakes it all the same.
      Effect.acquireUseRelease(
        Effect.map(Deferred.make<Option.Option<TaskRecord>>(), (deferred): Waiter => {
          const waiter = { version, deferred }
          store.waiters.add(taskId, waiter)
          return waiter
        }),
        (waiter) =>
          Effect.flatMap(getTask(store, taskId), (found) =>
            Option.isNone(found) || found.value.version > version
              ? Effect.succeed(found)
              : Deferred.await(waiter.deferred)),
        (waiter) => Effect.sync(() => store.waiters.remove(taskId, waiter))
      ),
    changes: Stream.fromPubSub(store.hub)
  }
}

/**
 * The store on the connection of the context, in the scope's lifetime: subscribed to the
 * store's channel (once this completes: it waits for the subscription), sweeping every
 * `sweepInterval`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: Options = {}
): Effect.Effect<TaskStore.Service, never, RedisConnection.RedisConnection | Scope.Scope> =>
  Effect.gen(function*() {
    const connection = yield* RedisConnection.RedisConnection
    const store: Store = {
      connection,
      prefix: connection.prefix,
      maxTasks: positive("maxTasks", options.maxTasks ?? 10_000),
      maxPerOwner: positive("maxTasksPerOwner", options.maxTasksPerOwner ?? 1_000),
      maxBytes: positive("maxBytes", options.maxBytes ?? 64 * 1024 * 1024),
      maxOwnerBytes: positive("maxBytesPerOwner", options.maxBytesPerOwner ?? 16 * 1024 * 1024),
      maxRecordBytes: positive("maxRecordBytes", options.maxRecordBytes ?? 4 * 1024 * 1024),
      graceMs: Duration.toMillis(options.leaseGrace ?? Duration.seconds(30)),
      lose: yield* Loss.make,
      waiters: makeWaiters(),
      hub: yield* Effect.acquireRelease(
        PubSub.sliding<TaskStore.Change>(positive("changesCapacity", options.changesCapacity ?? 10_000)),
        PubSub.shutdown
      ),
      leasesFrom: yield* Ref.make(0),
      stale: new Set()
    }
    yield* listen(store)
    yield* sweeping(store, options.sweepInterval ?? Duration.seconds(1))
    return service(store)
  })

/**
 * The store as the server's `TaskStore`: give it to every instance's `McpServer` (in its
 * context), on a `RedisConnection` layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options?: Options): Layer.Layer<TaskStore.TaskStore, never, RedisConnection.RedisConnection> =>
  Layer.scoped(TaskStore.TaskStore, make(options))
