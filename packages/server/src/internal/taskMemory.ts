/**
 * The task store as a server's tasks runtime uses it (`tasks.ts`): a `TaskStore` whose changes are
 * followed by a callback rather than read as a stream. The in-memory store (`make`, what a server
 * keeps when it is given no store, and what `TaskStore.makeMemory` wraps) follows its hub with a
 * subscription, so a server's tasks run without `effect/Stream` (69 modules of Effect with
 * `effect/Mailbox`, loaded by nothing else on a server over stdio); a store given as a service
 * (`fromService`: Redis, or `TaskStore.layerMemory`) is followed through its `changes`, with
 * `effect/Stream` loaded then.
 */
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as TaskStore from "../TaskStore.js"
import * as Lazy from "./lazy.js"

type TaskRecord = TaskStore.TaskRecord
type Change = TaskStore.Change

/** A task store, its changes followed. */
export interface Store extends Omit<TaskStore.Service, "changes"> {
  /** Runs `f` on every change (and removal), in order, from now until interrupted. */
  readonly follow: (f: (change: Change) => Effect.Effect<void>) => Effect.Effect<void>
}

/** The in-memory store, with the hub its changes are published on. */
export interface Memory extends Store {
  readonly hub: PubSub.PubSub<Change>
}

/**
 * The in-memory stores made as services (`TaskStore.makeMemory`, `layerMemory`), each with the
 * store it wraps: a server given one follows its hub as it follows its own store's, rather than
 * through `changes` (the same changes, in the same order, each a step of `effect/Stream`'s channel
 * executor more). Weak: a store goes with its service.
 */
const memories = new WeakMap<TaskStore.Service, Memory>()

/** `service` is the in-memory `memory` as a service (`TaskStore.makeMemory`). */
export const asService = (service: TaskStore.Service, memory: Memory): TaskStore.Service => {
  memories.set(service, memory)
  return service
}

/**
 * A store given as a service (in the server's context), its `changes` followed with
 * `effect/Stream` (an in-memory one of `TaskStore.makeMemory`: its hub, as a server's own).
 */
export const fromService = (service: TaskStore.Service): Store =>
  memories.get(service) ?? ({
    create: (record) => service.create(record),
    get: (taskId) => service.get(taskId),
    compareAndSet: (taskId, version, next) => service.compareAndSet(taskId, version, next),
    list: (owner, cursor, limit) => service.list(owner, cursor, limit),
    remove: (taskId) => service.remove(taskId),
    await: (taskId, version) => service.await(taskId, version),
    ready: service.ready,
    follow: (f) => Effect.flatMap(Effect.promise(Lazy.stream), (Stream) => Stream.runForEach(service.changes, f))
  })

/**
 * The characters a task holds: its record's JSON beyond the fixed fields, and while it runs what
 * its runner holds in memory (`held`). Of the record alone (a record is a value, never changed once
 * stored): the store weighs a record again when it changes or goes rather than keep its weight.
 */
const weigh = (record: TaskRecord): number => {
  let n = 256 + record.taskId.length + record.owner.length + record.name.length +
    (record.statusMessage?.length ?? 0) + TaskStore.heldBy(record)
  if (Object.keys(record.inputRequests).length > 0) n += JSON.stringify(record.inputRequests).length
  if (Object.keys(record.inputResponses).length > 0) n += JSON.stringify(record.inputResponses).length
  if (record.outcome !== undefined) n += JSON.stringify(record.outcome).length
  return n
}

const positive = (name: string, value: number): number => {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new Error(`TaskStore: ${name} must be a positive integer (got ${value})`)
  }
  return value
}

/**
 * The in-memory store (`TaskStore.makeMemory`, and a server's own when none is given): bounded as
 * `options` say, swept by TTL (a task whose `ttlMs` ran out is removed, running or not; its runner
 * finds it gone and stops), in the scope's lifetime. Its changes are published on `hub`.
 */
export const make = (options: TaskStore.MemoryOptions = {}): Effect.Effect<Memory, never, Scope.Scope> =>
  Effect.gen(function*() {
    const maxTasks = positive("maxTasks", options.maxTasks ?? 10_000)
    const maxPerOwner = positive("maxTasksPerOwner", options.maxTasksPerOwner ?? 1_000)
    const maxBytes = positive("maxBytes", options.maxBytes ?? 64 * 1024 * 1024)
    const maxRecordBytes = positive("maxRecordBytes", options.maxRecordBytes ?? 4 * 1024 * 1024)
    const maxOwnerBytes = positive("maxBytesPerOwner", options.maxBytesPerOwner ?? 16 * 1024 * 1024)
    const clock = yield* Effect.clock
    // Insertion order is creation order: what `list` pages through, newest first. A task is its
    // record, in here and in its owner's map: what it weighs is weighed again when it changes or
    // goes (`weigh` reads the record alone), and who waits on it is kept apart (`waiting`).
    const tasks = new Map<string, TaskRecord>()
    /** Each owner's tasks (in creation order: what `list` pages through) and the bytes they hold. */
    const owners = new Map<string, { readonly tasks: Map<string, TaskRecord>; bytes: number }>()
    /** Who waits for a task's next change (`await`), by task: only while one does. */
    const waiting = new Map<string, Array<Deferred.Deferred<Option.Option<TaskRecord>>>>()
    let bytes = 0
    const hub = yield* PubSub.unbounded<Change>()
    yield* Effect.addFinalizer(() => PubSub.shutdown(hub))

    const wake = (taskId: string, value: Option.Option<TaskRecord>) => {
      const waiters = waiting.get(taskId)
      if (waiters === undefined) return
      waiting.delete(taskId)
      for (const waiter of waiters) Deferred.unsafeDone(waiter, Effect.succeed(value))
    }

    const drop = (taskId: string) => {
      const record = tasks.get(taskId)
      if (record === undefined) return
      tasks.delete(taskId)
      const size = weigh(record)
      bytes -= size
      const owner = owners.get(record.owner)
      if (owner !== undefined) {
        owner.tasks.delete(taskId)
        owner.bytes -= size
        if (owner.tasks.size === 0) owners.delete(record.owner)
      }
      wake(taskId, Option.none())
      hub.unsafeOffer({ taskId, record: undefined })
    }

    const expired = (record: TaskRecord, now: number) => record.ttlMs !== null && now >= record.createdAt + record.ttlMs

    // Swept every `sweepInterval` while it holds a task, asleep while it holds none (the next
    // `create` wakes it): a server with no task wakes nobody every second (an idle gateway spent a
    // third of its main thread's instructions on this wake-up alone).
    const holding = yield* Effect.makeLatch(false)
    const sweep = Effect.sync(() => {
      const now = clock.unsafeCurrentTimeMillis()
      for (const [taskId, record] of tasks) if (expired(record, now)) drop(taskId)
      if (tasks.size === 0) holding.unsafeClose()
    })
    const every = options.sweepInterval ?? Duration.seconds(1)
    yield* Effect.forkScoped(
      Effect.forever(Effect.zipRight(holding.await, Effect.zipRight(Effect.sleep(every), sweep)))
    )

    const publish = (record: TaskRecord) => PubSub.publish(hub, { taskId: record.taskId, record })

    const store: Memory = {
      create: (record) =>
        Effect.suspend(() => {
          const now = clock.unsafeCurrentTimeMillis()
          const size = weigh(record)
          if (size > maxRecordBytes) return Effect.fail(new TaskStore.TaskStoreFull({ reason: "record" }))
          if (tasks.size >= maxTasks || bytes + size > maxBytes) {
            // What expired goes first: a full store may only be full of the dead.
            for (const [taskId, stored] of tasks) if (expired(stored, now)) drop(taskId)
          }
          if (tasks.size >= maxTasks) return Effect.fail(new TaskStore.TaskStoreFull({ reason: "tasks" }))
          const owner = owners.get(record.owner)
          if ((owner?.tasks.size ?? 0) >= maxPerOwner) {
            return Effect.fail(new TaskStore.TaskStoreFull({ reason: "owner" }))
          }
          if (bytes + size > maxBytes) return Effect.fail(new TaskStore.TaskStoreFull({ reason: "bytes" }))
          if ((owner?.bytes ?? 0) + size > maxOwnerBytes) {
            return Effect.fail(new TaskStore.TaskStoreFull({ reason: "ownerBytes" }))
          }
          tasks.set(record.taskId, record)
          if (owner === undefined) owners.set(record.owner, { tasks: new Map([[record.taskId, record]]), bytes: size })
          else {
            owner.tasks.set(record.taskId, record)
            owner.bytes += size
          }
          bytes += size
          holding.unsafeOpen()
          return publish(record)
        }),
      get: (taskId) =>
        Effect.sync(() => {
          const record = tasks.get(taskId)
          return record === undefined || expired(record, clock.unsafeCurrentTimeMillis())
            ? Option.none()
            : Option.some(record)
        }),
      compareAndSet: (taskId, version, next) =>
        Effect.suspend(() => {
          const record = tasks.get(taskId)
          if (record === undefined || record.version !== version) return Effect.succeed(false)
          const was = weigh(record)
          const size = weigh(next)
          if (size > maxRecordBytes) return Effect.fail(new TaskStore.TaskStoreFull({ reason: "record" }))
          if (bytes - was + size > maxBytes) return Effect.fail(new TaskStore.TaskStoreFull({ reason: "bytes" }))
          const owner = owners.get(record.owner)
          if (owner !== undefined && owner.bytes - was + size > maxOwnerBytes) {
            return Effect.fail(new TaskStore.TaskStoreFull({ reason: "ownerBytes" }))
          }
          if (owner !== undefined) {
            owner.bytes += size - was
            owner.tasks.set(taskId, next)
          }
          bytes += size - was
          tasks.set(taskId, next)
          wake(taskId, Option.some(next))
          return Effect.as(publish(next), true)
        }),
      list: (owner, cursor, limit) =>
        Effect.sync(() => {
          const now = clock.unsafeCurrentTimeMillis()
          const mine = Array.from(owners.get(owner)?.tasks.values() ?? []).filter((r) => !expired(r, now)).reverse()
          const from = cursor === undefined ? 0 : mine.findIndex((r) => r.taskId === cursor) + 1
          if (cursor !== undefined && from === 0) return { tasks: [], next: undefined }
          const page = mine.slice(from, from + limit)
          return {
            tasks: page,
            next: from + limit < mine.length ? page[page.length - 1].taskId : undefined
          }
        }),
      remove: (taskId) => Effect.sync(() => drop(taskId)),
      await: (taskId, version) =>
        Effect.suspend(() => {
          const record = tasks.get(taskId)
          if (record === undefined) return Effect.succeedNone
          if (record.version > version) return Effect.succeedSome(record)
          return Effect.flatMap(Deferred.make<Option.Option<TaskRecord>>(), (waiter) => {
            const waiters = waiting.get(taskId)
            if (waiters === undefined) waiting.set(taskId, [waiter])
            else waiters.push(waiter)
            return Effect.onInterrupt(Deferred.await(waiter), () =>
              Effect.sync(() => {
                const waiters = waiting.get(taskId)
                const at = waiters?.indexOf(waiter) ?? -1
                if (at < 0) return
                waiters!.splice(at, 1)
                if (waiters!.length === 0) waiting.delete(taskId)
              }))
          })
        }),
      follow: (f) =>
        Effect.scoped(
          Effect.flatMap(PubSub.subscribe(hub), (changes) => Effect.forever(Effect.flatMap(Queue.take(changes), f)))
        ),
      hub
    }
    return store
  })
