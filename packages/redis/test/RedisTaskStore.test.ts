/**
 * The task store on a real redis-server: records round-trip, compare-and-set, paging, the
 * bounds, TTL expiry and the lease rule, two stores on one Redis (two server processes), Redis
 * lost and back, and two `McpServer`s sharing the store at the wire.
 */
import { MemoryTransport, type Transport } from "@effect-mcp/core"
import * as McpServer from "@effect-mcp/server/McpServer"
import * as TaskStore from "@effect-mcp/server/TaskStore"
import * as Tool from "@effect-mcp/server/Tool"
import { Services } from "@effect-mcp/test-support"
import { assert, describe, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as RedisConnection from "../src/RedisConnection.js"
import * as RedisTaskStore from "../src/RedisTaskStore.js"
import * as Losses from "./utils/losses.js"
import * as Waits from "./utils/waits.js"

type TaskRecord = TaskStore.TaskRecord

const record = (taskId: string, over: Partial<TaskRecord> = {}): TaskRecord => {
  const at = Date.now()
  return {
    taskId,
    owner: "alice",
    revision: "2026-07-28",
    method: "tools/call",
    name: "tool",
    status: "working",
    statusMessage: undefined,
    createdAt: at,
    lastUpdatedAt: at,
    ttlMs: 60_000,
    pollIntervalMs: 500,
    inputRequests: {},
    inputResponses: {},
    outcome: undefined,
    cancelRequested: false,
    lease: undefined,
    version: 0,
    ...over
  }
}

/** A connection of its own (as another process would have) and a store on it. */
const storeOn = (url: string, options: RedisTaskStore.Options = {}, prefix = "t:") =>
  Effect.gen(function*() {
    const connection = yield* RedisConnection.make({ url, prefix, maxReconnectDelay: 100, ...Waits.slowCommands })
    const store = yield* Effect.provideService(
      RedisTaskStore.make(options),
      RedisConnection.RedisConnection,
      connection
    )
    return { store, connection }
  })

/** Every change the store tells of, from now on. */
const listen = (store: TaskStore.Service) =>
  Effect.gen(function*() {
    const heard = yield* Queue.unbounded<TaskStore.Change>()
    const listener = yield* Effect.forkScoped(Stream.runForEach(store.changes, (change) => Queue.offer(heard, change)))
    // Subscribed once its fiber waits for the first change (it subscribes first, without waiting).
    yield* Waits.until(
      Effect.map(listener.status, (status) => status._tag === "Suspended"),
      "the listener never waited"
    )
    return heard
  })

/** The next change that satisfies `predicate` (others are skipped), within `millis`. */
const hear = (
  heard: Queue.Queue<TaskStore.Change>,
  predicate: (change: TaskStore.Change) => boolean,
  millis: Duration.DurationInput = Waits.guard
) =>
  Effect.gen(function*() {
    while (true) {
      const change = yield* Queue.take(heard)
      if (predicate(change)) return change
    }
  }).pipe(
    Effect.timeoutFail({ duration: millis, onTimeout: () => new Error("the change was not heard in time") })
  )

const some = <A>(option: Option.Option<A>): A => {
  assert.isTrue(Option.isSome(option), "expected some")
  return (option as Option.Some<A>).value
}

/** A record's JSON as stored, padded to about `chars` characters with its status message. */
const sized = (taskId: string, chars: number, over: Partial<TaskRecord> = {}) => {
  const base = JSON.stringify(record(taskId, over)).length
  return record(taskId, { statusMessage: "x".repeat(Math.max(0, chars - base - 20)), ...over })
}

const reasonOf = <A>(effect: Effect.Effect<A, TaskStore.TaskStoreFull | TaskStore.TaskStoreUnavailable>) =>
  Effect.map(Effect.flip(effect), (error) => error._tag === "TaskStoreFull" ? error.reason : error._tag)

describe("RedisTaskStore", () => {
  it.scopedLive("create, get, compareAndSet (a wrong version refused), remove; undefined fields stay undefined", () =>
    Effect.gen(function*() {
      const server = yield* Services.redisServer()
      const { connection, store } = yield* storeOn(server.url)
      const created = record("t1")
      yield* store.create(created)
      const got = some(yield* store.get("t1"))
      assert.deepStrictEqual(got, created)
      for (const key of ["statusMessage", "outcome", "lease"] as const) {
        assert.property(got, key)
        assert.isUndefined(got[key])
      }
      // In Redis, with its TTL.
      const pttl = yield* connection.use((r) => r.pttl("t:task:t1"))
      assert.isAbove(pttl, 50_000)
      assert.isAtMost(pttl, 60_000)

      const full: TaskRecord = {
        ...created,
        status: "input_required",
        statusMessage: "asking",
        inputRequests: { a: { method: "elicitation/create", params: { message: "A?", list: [] } } },
        outcome: { _tag: "Result", result: { content: [], n: 1234567890123456 } },
        lease: { holder: "me", expiresAt: Date.now() + 30_000 },
        version: 1
      }
      assert.isTrue(yield* store.compareAndSet("t1", 0, full))
      assert.deepStrictEqual(some(yield* store.get("t1")), full)
      // At a version it is no longer at: refused, unchanged.
      assert.isFalse(yield* store.compareAndSet("t1", 0, { ...full, status: "completed", version: 1 }))
      assert.deepStrictEqual(some(yield* store.get("t1")), full)
      const back: TaskRecord = { ...full, statusMessage: undefined, outcome: undefined, lease: undefined, version: 2 }
      assert.isTrue(yield* store.compareAndSet("t1", 1, back))
      assert.deepStrictEqual(some(yield* store.get("t1")), back)
      // The TTL is kept by a change.
      assert.isAbove(yield* connection.use((r) => r.pttl("t:task:t1")), 50_000)
      // Gone: none, refused.
      assert.isFalse(yield* store.compareAndSet("nope", 0, record("nope", { version: 1 })))
      assert.isTrue(Option.isNone(yield* store.get("nope")))
      yield* store.remove("t1")
      assert.isTrue(Option.isNone(yield* store.get("t1")))
      assert.isFalse(yield* store.compareAndSet("t1", 2, { ...back, version: 3 }))
      yield* store.remove("t1")
      // Without a TTL: no Redis TTL.
      yield* store.create(record("forever", { ttlMs: null }))
      assert.strictEqual(yield* connection.use((r) => r.pttl("t:task:forever")), -1)
      // Nothing left behind by the removal.
      assert.strictEqual(yield* connection.use((r) => r.hlen("t:tasks:meta")), 1)
      assert.strictEqual(yield* connection.use((r) => r.zcard("t:tasks:owner:alice")), 1)
    }))

  it.scopedLive("two stores on one Redis: a change made through one wakes the other's await and is on its changes", () =>
    Effect.gen(function*() {
      const server = yield* Services.redisServer()
      const a = (yield* storeOn(server.url)).store
      const b = (yield* storeOn(server.url)).store
      const heard = yield* listen(b)
      const created = record("t1")
      yield* a.create(created)
      assert.deepStrictEqual(some(yield* b.get("t1")), created)
      assert.deepStrictEqual(yield* hear(heard, () => true), { taskId: "t1", record: created })

      const waiting = yield* Effect.fork(b.await("t1", 0))
      // Real time: it looks for a wrong early return; a slow machine can only make it miss one.
      yield* Effect.sleep(100)
      assert.isTrue(Option.isNone(yield* Fiber.poll(waiting)), "await returned before any change")
      const next: TaskRecord = { ...created, status: "completed", version: 1, lastUpdatedAt: Date.now() }
      assert.isTrue(yield* a.compareAndSet("t1", 0, next))
      const woke = yield* Fiber.join(waiting).pipe(Effect.timeout(2_000))
      assert.deepStrictEqual(some(woke), next)
      assert.deepStrictEqual(yield* hear(heard, () => true), { taskId: "t1", record: next })
      // Past the version already: at once.
      assert.deepStrictEqual(some(yield* b.await("t1", 0).pipe(Effect.timeout(500))), next)

      // Removed through one while the other awaits: none.
      const gone = yield* Effect.fork(b.await("t1", 1))
      // Real time: the waiter registers after its first read, which nothing outside it can see.
      yield* Effect.sleep(100)
      yield* a.remove("t1")
      assert.isTrue(Option.isNone(yield* Fiber.join(gone).pipe(Effect.timeout(2_000))))
      assert.deepStrictEqual(yield* hear(heard, () => true), { taskId: "t1", record: undefined })
      assert.isTrue(Option.isNone(yield* b.await("t1", 0).pipe(Effect.timeout(500))))

      // Many waiters, many changes, through both stores: each waiter sees its version passed.
      yield* a.create(record("t2"))
      const waiters = yield* Effect.forEach([0, 1, 2, 3], (v) => Effect.fork(b.await("t2", v)))
      for (let v = 0; v < 4; v++) {
        const by = v % 2 === 0 ? a : b
        assert.isTrue(yield* by.compareAndSet("t2", v, record("t2", { version: v + 1 })))
      }
      for (const [v, fiber] of waiters.entries()) {
        const found = some(yield* Fiber.join(fiber).pipe(Effect.timeout(2_000)))
        assert.isAbove(found.version, v)
      }
    }))

  it.scopedLive("list: newest first, paged by the last id, an owner's own tasks only, not the expired", () =>
    Effect.gen(function*() {
      const server = yield* Services.redisServer()
      const { connection, store } = yield* storeOn(server.url, { sweepInterval: "1 hour" })
      for (let i = 0; i < 5; i++) {
        yield* store.create(record(`a${i}`))
        if (i % 2 === 0) yield* store.create(record(`b${i}`, { owner: "bob" }))
      }
      const ids = (page: { readonly tasks: ReadonlyArray<TaskRecord> }) => page.tasks.map((t) => t.taskId)
      const p1 = yield* store.list("alice", undefined, 2)
      assert.deepStrictEqual(ids(p1), ["a4", "a3"])
      assert.strictEqual(p1.next, "a3")
      const p2 = yield* store.list("alice", p1.next, 2)
      assert.deepStrictEqual(ids(p2), ["a2", "a1"])
      assert.strictEqual(p2.next, "a1")
      const p3 = yield* store.list("alice", p2.next, 2)
      assert.deepStrictEqual(ids(p3), ["a0"])
      assert.isUndefined(p3.next)
      // A page that ends with the last: no next.
      const all = yield* store.list("alice", undefined, 5)
      assert.deepStrictEqual(ids(all), ["a4", "a3", "a2", "a1", "a0"])
      assert.isUndefined(all.next)
      assert.deepStrictEqual(all.tasks[0], some(yield* store.get("a4")))
      assert.deepStrictEqual(ids(yield* store.list("bob", undefined, 10)), ["b4", "b2", "b0"])
      // Another owner's id is no cursor of alice's.
      assert.deepStrictEqual(ids(yield* store.list("alice", "b2", 10)), [])
      assert.deepStrictEqual(ids(yield* store.list("carol", undefined, 10)), [])
      // Removed and expired tasks are not listed.
      yield* store.remove("a3")
      // (TTLs long enough to be listed first on a loaded machine.)
      yield* store.create(record("short", { ttlMs: 2_000 }))
      // Expired by the instance's clock while Redis keeps it (its clock behind): not listed, not got.
      yield* store.create(record("skewed", { ttlMs: 2_000 }))
      yield* connection.use((r) => r.persist("t:task:skewed"))
      assert.deepStrictEqual(ids(yield* store.list("alice", undefined, 2)), ["skewed", "short"])
      // Real time: Redis drops "short" by its own clock. "skewed" is made as old as Redis's clock would not see it.
      yield* Waits.until(Effect.map(connection.use((r) => r.exists("t:task:short")), (n) => n === 0), "short stayed")
      const skewed = JSON.parse((yield* connection.use((r) => r.get("t:task:skewed"))) ?? "null")
      // `list` skips a task by its expiry as made (its record's time is what `get` reads): made after "short",
      // it is due a few ms after "short" went. Listed before then, it was there (once in CI, on a loaded machine).
      yield* Waits.until(
        Effect.map(Clock.currentTimeMillis, (now) => now >= skewed.createdAt + skewed.ttlMs),
        "skewed's time never came"
      )
      yield* connection.use((r) =>
        r.set("t:task:skewed", JSON.stringify({ ...skewed, createdAt: skewed.createdAt - 10_000 }))
      )
      assert.strictEqual(yield* connection.use((r) => r.exists("t:task:skewed")), 1)
      assert.isTrue(Option.isNone(yield* store.get("skewed")))
      const after = yield* store.list("alice", undefined, 2)
      assert.deepStrictEqual(ids(after), ["a4", "a2"])
      assert.strictEqual(after.next, "a2")
    }))

  it.scopedLive("the bounds: tasks, per owner, bytes, per owner's bytes, one record's; the expired do not count", () =>
    Effect.gen(function*() {
      const server = yield* Services.redisServer()
      const hour = "1 hour" as const
      // Counts.
      const counts = (yield* storeOn(server.url, { maxTasks: 4, maxTasksPerOwner: 2, sweepInterval: hour }, "c:")).store
      yield* counts.create(record("a1"))
      yield* counts.create(record("a2"))
      assert.strictEqual(yield* reasonOf(counts.create(record("a3"))), "owner")
      yield* counts.create(record("b1", { owner: "bob" }))
      yield* counts.create(record("c1", { owner: "carol" }))
      assert.strictEqual(yield* reasonOf(counts.create(record("d1", { owner: "dave" }))), "tasks")
      yield* counts.remove("a1")
      yield* counts.create(record("d1", { owner: "dave" }))
      assert.isTrue(Option.isNone(yield* counts.get("a3")))

      // One record.
      const small = (yield* storeOn(server.url, { maxRecordBytes: 1_000, sweepInterval: hour }, "r:")).store
      assert.strictEqual(yield* reasonOf(small.create(sized("big", 1_200))), "record")
      assert.isTrue(Option.isNone(yield* small.get("big")))
      yield* small.create(sized("ok", 800))
      assert.strictEqual(yield* reasonOf(small.compareAndSet("ok", 0, sized("ok", 1_200, { version: 1 }))), "record")
      assert.strictEqual(some(yield* small.get("ok")).version, 0)

      // An owner's bytes.
      const owners = (yield* storeOn(server.url, { maxBytesPerOwner: 2_000, sweepInterval: hour }, "o:")).store
      yield* owners.create(sized("a1", 900))
      yield* owners.create(sized("a2", 900))
      assert.strictEqual(yield* reasonOf(owners.create(sized("a3", 900))), "ownerBytes")
      yield* owners.create(sized("b1", 900, { owner: "bob" }))
      assert.strictEqual(
        yield* reasonOf(owners.compareAndSet("a1", 0, sized("a1", 1_300, { version: 1 }))),
        "ownerBytes"
      )
      assert.isTrue(yield* owners.compareAndSet("a1", 0, sized("a1", 1_000, { version: 1 })))
      yield* owners.remove("a2")
      yield* owners.create(sized("a3", 900))

      // Bytes overall.
      const bytes = (yield* storeOn(server.url, { maxBytes: 2_000, sweepInterval: hour }, "b:")).store
      yield* bytes.create(sized("a1", 900))
      yield* bytes.create(sized("b1", 900, { owner: "bob" }))
      assert.strictEqual(yield* reasonOf(bytes.create(sized("c1", 900, { owner: "carol" }))), "bytes")
      assert.strictEqual(yield* reasonOf(bytes.compareAndSet("a1", 0, sized("a1", 1_300, { version: 1 }))), "bytes")

      // Expired tasks free their places (no sweep here: the creation prunes them, and says so).
      const { connection, store } = yield* storeOn(server.url, { maxTasks: 2, sweepInterval: hour }, "e:")
      const heard = yield* listen(store)
      // (TTLs long enough to still count on a loaded machine.)
      yield* store.create(record("old1", { ttlMs: 2_000 }))
      yield* store.create(record("old2", { ttlMs: 2_000 }))
      assert.strictEqual(yield* reasonOf(store.create(record("new1"))), "tasks")
      // Real time: Redis expires them by its own clock.
      yield* Waits.until(
        Effect.map(connection.use((r) => r.exists("e:task:old1", "e:task:old2")), (n) => n === 0),
        "the old tasks never expired"
      )
      yield* store.create(record("new1"))
      yield* store.create(record("new2", { owner: "bob" }))
      const removed = new Set<string>()
      while (removed.size < 2) removed.add((yield* hear(heard, (c) => c.record === undefined)).taskId)
      assert.deepStrictEqual(Array.from(removed).sort(), ["old1", "old2"])
      assert.strictEqual(yield* connection.use((r) => r.hlen("e:tasks:meta")), 2)
    }))

  it.scopedLive("bytes are what Redis holds (UTF-8): a label outside ASCII counts two to three bytes a character", () =>
    Effect.gen(function*() {
      const server = yield* Services.redisServer()
      const { connection, store } = yield* storeOn(server.url, { maxBytesPerOwner: 8_000, sweepInterval: "1 hour" })
      const stored = (taskId: string) => connection.use((r) => r.strlen(`t:task:${taskId}`))
      const counted = connection.use((r) => r.get("t:tasks:bytes"))
      // 1,000 characters of "€", 3,000 bytes: the count is the record's bytes as stored, not its length.
      const euros = record("euros", { statusMessage: "€".repeat(1_000) })
      assert.isBelow(JSON.stringify(euros).length, 1_500)
      yield* store.create(euros)
      assert.isAbove(yield* stored("euros"), 3_000)
      assert.strictEqual(Number(yield* counted), yield* stored("euros"))
      // So two such tasks (6 KB) leave no room for a third under the owner's 8,000 bytes, where
      // their lengths (about 4,500 characters for three) would.
      yield* store.create(record("euros2", { statusMessage: "€".repeat(1_000) }))
      assert.strictEqual(
        yield* reasonOf(store.create(record("euros3", { statusMessage: "€".repeat(1_000) }))),
        "ownerBytes"
      )
      // A change is counted the same way, and what a runner holds on top of it.
      assert.isTrue(yield* store.compareAndSet("euros", 0, { ...euros, statusMessage: "é".repeat(500), version: 1 }))
      assert.strictEqual(
        Number(yield* counted),
        (yield* stored("euros")) + (yield* stored("euros2"))
      )
      yield* store.create(record("held", { owner: "bob", statusMessage: "ü", held: 100 }))
      assert.strictEqual(
        Number(yield* counted),
        (yield* stored("euros")) + (yield* stored("euros2")) + (yield* stored("held")) + 100
      )
    }))

  it.scopedLive("TTL: Redis drops the record at createdAt + ttl; the sweeps remove it and publish that once", () =>
    Effect.gen(function*() {
      const server = yield* Services.redisServer()
      const a = yield* storeOn(server.url, { sweepInterval: "50 millis" })
      const b = yield* storeOn(server.url, { sweepInterval: "50 millis" })
      const heard = yield* listen(b.store)
      const t1 = record("t1", { ttlMs: 300 })
      yield* a.store.create(t1)
      const waiting = yield* Effect.fork(b.store.await("t1", 0))
      assert.deepStrictEqual(yield* hear(heard, (c) => c.record === undefined), { taskId: "t1", record: undefined })
      // Not before its time (the record's own stamps are wall-clock time).
      assert.isAtLeast(Date.now(), t1.createdAt + 300)
      assert.isTrue(Option.isNone(yield* Fiber.join(waiting).pipe(Effect.timeout(Waits.guard))))
      assert.isTrue(Option.isNone(yield* a.store.get("t1")))
      // Two sweepers, one removal heard. (Real time: it looks for a second removal that should not come.)
      yield* Effect.sleep(300)
      assert.strictEqual(Chunk.size(Chunk.filter(yield* Queue.takeAll(heard), (c) => c.taskId === "t1")), 0)
      // Nothing left behind.
      const [exists, meta, owner, bytes] = yield* a.connection.use((r) =>
        Promise.all([
          r.exists("t:task:t1"),
          r.hlen("t:tasks:meta"),
          r.exists("t:tasks:owner:alice"),
          r.get("t:tasks:bytes")
        ])
      )
      assert.deepStrictEqual([exists, meta, owner, Number(bytes)], [0, 0, 0, 0])

      // Redis's own TTL: the record is gone even where no sweep runs.
      const idle = yield* storeOn(server.url, { sweepInterval: "1 hour" }, "idle:")
      // (Long enough to be seen there on a loaded machine.)
      yield* idle.store.create(record("t2", { ttlMs: 2_000 }))
      assert.strictEqual(yield* idle.connection.use((r) => r.exists("idle:task:t2")), 1)
      // Real time: Redis expires it by its own clock.
      yield* Waits.until(
        Effect.map(idle.connection.use((r) => r.exists("idle:task:t2")), (n) => n === 0),
        "Redis never dropped the record"
      )
    }))

  it.scopedLive("a lapsed lease fails its task (runner lost), once; a renewed lease, and a finished task, are left", () =>
    Effect.gen(function*() {
      const server = yield* Services.redisServer()
      const a = (yield* storeOn(server.url, { sweepInterval: "50 millis" })).store
      const b = (yield* storeOn(server.url, { sweepInterval: "50 millis" })).store
      const heard = yield* listen(b)
      const soon = () => ({ holder: "gone", expiresAt: Date.now() + 200 })
      const lapsing = record("lapsing", {
        lease: soon(),
        status: "input_required",
        inputRequests: { a: { method: "elicitation/create" } },
        inputResponses: { b: { action: "accept" } }
      })
      yield* a.create(lapsing)
      const firstLease = Date.now() + 1_000
      yield* a.create(record("renewed", { lease: { holder: "alive", expiresAt: firstLease } }))
      yield* a.create(record("finished", { status: "completed", lease: { holder: "gone", expiresAt: Date.now() } }))
      yield* a.create(record("unleased"))
      // Renewed every 100 ms, as a runner does (well within its lease).
      const renew = Effect.flatMap(a.get("renewed"), (found) => {
        const r = some(found)
        return a.compareAndSet("renewed", r.version, {
          ...r,
          lease: { holder: "alive", expiresAt: Date.now() + 1_000 },
          version: r.version + 1
        })
      })
      yield* Effect.forkScoped(Effect.repeat(renew, Schedule.spaced(100)))
      const failed = some(yield* b.await("lapsing", 0).pipe(Effect.timeout(2_000)))
      assert.deepStrictEqual(failed, {
        ...lapsing,
        status: "failed",
        statusMessage: RedisTaskStore.runnerLost.message,
        outcome: {
          _tag: "Error",
          error: { code: -32603, message: "The instance running this task was lost (its lease lapsed)" }
        },
        inputRequests: {},
        inputResponses: {},
        lease: undefined,
        version: 1,
        lastUpdatedAt: failed.lastUpdatedAt
      })
      assert.isAtLeast(failed.lastUpdatedAt, lapsing.lease!.expiresAt)
      // Past the first lease of the renewed one (renewed half a second after it ran out): it lives on.
      yield* Waits.until(
        Effect.map(a.get("renewed"), (found) => (some(found).lease?.expiresAt ?? 0) > firstLease + 1_500),
        "the renewed task was not renewed"
      )
      const renewed = some(yield* a.get("renewed"))
      assert.strictEqual(renewed.status, "working")
      assert.isAbove(renewed.version, 5)
      assert.strictEqual(some(yield* a.get("finished")).version, 0)
      assert.strictEqual(some(yield* a.get("unleased")).version, 0)
      // Two sweepers, failed once.
      const changes = Chunk.toReadonlyArray(yield* Queue.takeAll(heard)).filter((c) => c.taskId === "lapsing")
      assert.deepStrictEqual(changes.map((c) => c.record?.version), [0, 1])
    }))

  it.scopedLive("Redis down: every method fails at once with TaskStoreUnavailable; back: it works, changes deliver", () =>
    Effect.gen(function*() {
      const server = yield* Services.redisServer({ persist: true })
      const { connection, store: a } = yield* storeOn(server.url)
      const b = (yield* storeOn(server.url)).store
      const heard = yield* listen(b)
      const created = record("t1")
      yield* a.create(created)
      const waiting = yield* Effect.fork(b.await("t1", 0))
      // Real time: the waiter registers after its first read, which nothing outside it can see.
      yield* Effect.sleep(50)
      yield* server.kill
      yield* Waits.down(connection)
      const down = [
        a.create(record("t2")),
        a.get("t1"),
        a.compareAndSet("t1", 0, { ...created, version: 1 }),
        a.list("alice", undefined, 10),
        a.remove("t1"),
        a.await("t1", 0)
      ] as const
      // Refused, not queued: a command held for Redis would wait for its timeout (a minute).
      for (const method of down) {
        const error = yield* Waits.atOnce(
          Effect.flip(method as Effect.Effect<unknown, TaskStore.TaskStoreFull | TaskStore.TaskStoreUnavailable>),
          "a method"
        )
        assert.strictEqual(error._tag, "TaskStoreUnavailable")
      }
      yield* server.start
      // Kept through the restart (acknowledged writes are in Redis).
      const back = yield* Waits.eventually(a.get("t1"))
      assert.deepStrictEqual(some(back), created)
      // The waiter from before the loss is still there, and woken by a change.
      assert.isTrue(Option.isNone(yield* Fiber.poll(waiting)))
      // Until b's subscription is back, what is published is not heard: try until it is.
      const next = { ...created, version: 1, statusMessage: "again" }
      let at = 0
      const heardAgain = yield* Effect.retry(
        Effect.gen(function*() {
          at++
          yield* a.create(record(`probe${at}`))
          return yield* hear(heard, (c) => c.taskId === `probe${at}`, 200)
        }),
        Schedule.recurs(50)
      )
      assert.strictEqual(heardAgain.record?.version, 0)
      assert.isTrue(yield* a.compareAndSet("t1", 0, next))
      assert.deepStrictEqual(some(yield* Fiber.join(waiting).pipe(Effect.timeout(2_000))), next)
      assert.deepStrictEqual(yield* hear(heard, (c) => c.taskId === "t1"), { taskId: "t1", record: next })
    }))

  it.scopedLive("after Redis was lost, leases that lapsed meanwhile are given leaseGrace before their tasks fail", () =>
    Effect.gen(function*() {
      const server = yield* Services.redisServer({ persist: true })
      const { store } = yield* storeOn(server.url, { sweepInterval: "50 millis", leaseGrace: "1 second" })
      const expiresAt = Date.now() + 300
      yield* store.create(record("t1", { lease: { holder: "alive", expiresAt } }))
      yield* server.kill
      // The lease lapses while Redis is down (its stamp is wall-clock time).
      yield* Waits.until(Effect.sync(() => Date.now() > expiresAt), "the lease never lapsed")
      const restarted = Date.now()
      yield* server.start
      const back = yield* Waits.eventually(store.get("t1"))
      assert.strictEqual(some(back).lease?.expiresAt, expiresAt)
      // The runner could renew now; nobody does here. Failed, but not before the grace counted from Redis's return.
      const failed = yield* Waits.eventually(
        Effect.flatMap(store.get("t1"), (found) => {
          const r = some(found)
          return r.status === "failed" ? Effect.succeed(r) : Effect.fail("not yet")
        })
      )
      assert.strictEqual(failed.outcome?._tag, "Error")
      assert.isAtLeast(failed.lastUpdatedAt, restarted + 1_000)
    }))

  it.scopedLive("messages lost while the subscription was down: the awaited tasks are read again", () =>
    Effect.gen(function*() {
      // Not persisted: the restarted Redis has none of the tasks, and nobody publishes their loss.
      const server = yield* Services.redisServer()
      const a = (yield* storeOn(server.url)).store
      const heard = yield* listen(a)
      yield* a.create(record("t1"))
      yield* hear(heard, (c) => c.taskId === "t1")
      const waiting = yield* Effect.fork(a.await("t1", 0))
      // Real time: the waiter registers after its first read, which nothing outside it can see.
      yield* Effect.sleep(50)
      yield* server.restart
      assert.isTrue(Option.isNone(yield* Fiber.join(waiting).pipe(Effect.timeout(5_000))))
      assert.deepStrictEqual(yield* hear(heard, (c) => c.taskId === "t1", 5_000), { taskId: "t1", record: undefined })
    }))
})

// ---------------------------------------------------------------------------- two servers, one store

const TASKS = "io.modelcontextprotocol/tasks"
const clientInfo = { name: "redis-test-client", version: "1.0.0" }
const meta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS]: {} } },
  "io.modelcontextprotocol/clientInfo": clientInfo
}

const serverOptions = (interrupted: Ref.Ref<number>) => ({
  serverInfo: { name: "redis-tasks", version: "1.0.0" },
  revisions: ["2026-07-28"] as const,
  taskPollInterval: "100 millis" as const,
  tools: [
    Tool.make(
      "sleepy",
      { parameters: Schema.Struct({ millis: Schema.Number }), task: "optional" },
      ({ millis }) => Effect.as(Effect.sleep(millis), `slept ${millis}ms`)
    ),
    Tool.make(
      "cancellable",
      { task: "optional" },
      () => Effect.onInterrupt(Effect.as(Effect.never, "never"), () => Ref.update(interrupted, (n) => n + 1))
    ),
    Tool.make(
      "echo",
      { parameters: Schema.Struct({ label: Schema.String }), task: "optional" },
      ({ label }) => Effect.succeed(`echo ${label}`)
    )
  ]
})

/** A server instance on `store`, and a client of it at the wire (JSON text in, JSON text out). */
const instance = (store: TaskStore.Service, interrupted: Ref.Ref<number>) =>
  Effect.gen(function*() {
    const server = yield* McpServer.make(serverOptions(interrupted)).pipe(
      Effect.provideService(TaskStore.TaskStore, store)
    )
    const { protocol, remote } = yield* MemoryTransport.connection
    // One client behind a load balancer that forwards its address: its tasks are its own on every instance.
    const fromOneAddress: Transport.Protocol = {
      ...protocol,
      run: (receiver) =>
        protocol.run({
          ...receiver,
          receive: (client, inbound, context) => receiver.receive(client, inbound, { ...context, peer: "192.0.2.7" })
        })
    }
    yield* Effect.forkScoped(server.serve(fromOneAddress))
    const ids = yield* Ref.make(1)
    return (method: string, params: Record<string, unknown>) =>
      Effect.gen(function*() {
        const id = yield* Ref.getAndUpdate(ids, (n) => n + 1)
        yield* remote.write(JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: meta } }))
        while (true) {
          const message = JSON.parse(yield* remote.read)
          if (message.id === id && !("method" in message)) return message
        }
      }).pipe(Effect.orDie)
  })

const untilTask = (
  call: (method: string, params: Record<string, unknown>) => Effect.Effect<any>,
  taskId: string,
  predicate: (task: any) => boolean
) =>
  // Asked until it is there (bounded by the guard).
  Waits.eventually(
    Effect.flatMap(call("tasks/get", { taskId }), (response) => {
      assert.isUndefined(response.error, JSON.stringify(response.error))
      return predicate(response.result) ? Effect.succeed(response.result) : Effect.fail("not yet")
    }),
    `task ${taskId} never got there`
  )

describe("RedisTaskStore under two McpServers", () => {
  it.scopedLive("a record that does not decode is lost alone: tasks/get finds nothing, list skips it; counted, logged", () =>
    Losses.withWarnings((warnings) =>
      Effect.gen(function*() {
        const redis = yield* Services.redisServer()
        const interrupted = yield* Ref.make(0)
        const { connection, store } = yield* storeOn(redis.url)
        const call = yield* instance(store, interrupted)
        const ids: Array<string> = []
        for (const label of ["kept", "broken"]) {
          const created = yield* call("tools/call", { name: "echo", arguments: { label } })
          ids.push(created.result.taskId)
          yield* untilTask(call, created.result.taskId, (t) => t.status === "completed")
        }
        const [kept, broken] = ids
        const before = yield* Losses.lost("task")
        // Cut short (as a foreign writer, or a crash mid-write of an older version, might leave it).
        yield* connection.use((r) => r.set(`t:task:${broken}`, `{"taskId":"${broken}","owner":7`, "KEEPTTL"))
        const got = yield* call("tasks/get", { taskId: broken })
        assert.strictEqual(got.error?.code, -32602, JSON.stringify(got))
        // (No tasks/list in this revision: the store's own list, as an earlier revision's would read it.)
        const listed = yield* store.list("peer:192.0.2.7", undefined, 10)
        assert.deepStrictEqual(listed.tasks.map((task) => task.taskId), [kept])
        // The server goes on: the other task reads as before.
        assert.strictEqual((yield* call("tasks/get", { taskId: kept })).result.status, "completed")
        assert.strictEqual((yield* Losses.lost("task")) - before, 2)
        assert.isTrue(
          warnings.some((warning) => warning.includes(`task record read from Redis (t:task:${broken})`)),
          warnings.join("\n")
        )
      })
    ))

  it.scopedLive("a task created through one instance is got, followed and cancelled through the other", () =>
    Effect.gen(function*() {
      const redis = yield* Services.redisServer()
      const interrupted = yield* Ref.make(0)
      const callA = yield* instance((yield* storeOn(redis.url)).store, interrupted)
      const callB = yield* instance((yield* storeOn(redis.url)).store, interrupted)

      const created = yield* callA("tools/call", { name: "sleepy", arguments: { millis: 500 } })
      assert.strictEqual(created.result.resultType, "task")
      const taskId = created.result.taskId
      const working = yield* callB("tasks/get", { taskId })
      assert.strictEqual(working.result.status, "working")
      const done = yield* untilTask(callB, taskId, (t) => t.status === "completed")
      assert.deepStrictEqual(done.result.content, [{ type: "text", text: "slept 500ms" }])

      // Cancelled through B: the runner, on A, hears it through the store and stops.
      const running = yield* callA("tools/call", { name: "cancellable" })
      const cancelled = running.result.taskId
      assert.isUndefined((yield* callB("tasks/cancel", { taskId: cancelled })).error)
      assert.strictEqual((yield* callA("tasks/get", { taskId: cancelled })).result.status, "cancelled")
      yield* Waits.until(Effect.map(Ref.get(interrupted), (n) => n === 1), "the runner never stopped")
      assert.strictEqual(yield* Ref.get(interrupted), 1)
    }))

  it.scopedLive("a task's result is counted in the bytes Redis holds: a label of 15,000 '€' is 45 KB, not 15,000", () =>
    Effect.gen(function*() {
      const redis = yield* Services.redisServer()
      const interrupted = yield* Ref.make(0)
      const call = yield* instance((yield* storeOn(redis.url, { maxRecordBytes: 40_000 })).store, interrupted)
      const run = (label: string) =>
        Effect.gen(function*() {
          const created = yield* call("tools/call", { name: "echo", arguments: { label } })
          assert.strictEqual(created.result?.resultType, "task", JSON.stringify(created).slice(0, 300))
          return yield* untilTask(call, created.result.taskId, (t) => t.status !== "working")
        })
      // ASCII: 15,000 bytes of result fit in the record's 40,000.
      const ascii = yield* run("e".repeat(15_000))
      assert.strictEqual(ascii.status, "completed", JSON.stringify(ascii).slice(0, 300))
      // The same length in "€" is three times the bytes in Redis: past the bound, the task says so.
      // (Counted as characters, it was kept: 15,000 is under 40,000.)
      const euros = yield* run("€".repeat(15_000))
      assert.strictEqual(euros.status, "failed", JSON.stringify(euros).slice(0, 300))
      assert.include(JSON.stringify(euros), "too large to keep")
    }))

  it.scopedLive("a task whose runner was lost is failed, and tasks/get says so with its error", () =>
    Effect.gen(function*() {
      const redis = yield* Services.redisServer()
      const interrupted = yield* Ref.make(0)
      const { store } = yield* storeOn(redis.url, { sweepInterval: "50 millis" })
      const call = yield* instance(store, interrupted)
      // As an instance that died would leave it: running, its lease about to lapse, nobody renewing it.
      yield* store.create(record("orphan", {
        owner: "peer:192.0.2.7",
        name: "sleepy",
        lease: { holder: "dead", expiresAt: Date.now() + 200 }
      }))
      assert.strictEqual((yield* call("tasks/get", { taskId: "orphan" })).result.status, "working")
      const failed = yield* untilTask(call, "orphan", (t) => t.status === "failed")
      assert.deepStrictEqual(failed.error, { code: -32603, message: RedisTaskStore.runnerLost.message })
      assert.strictEqual(failed.statusMessage, RedisTaskStore.runnerLost.message)
    }))
})
