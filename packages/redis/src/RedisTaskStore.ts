/**
 * The server's `TaskStore` on Redis: every instance of a server given this store sees every
 * task, whichever instance created it or runs it. A task created through one instance is got,
 * listed, awaited, updated and cancelled through any other, and the runner on the instance that
 * has it hears of each change (a cancel, an answer) through the store's `changes`.
 *
 * **Keys**, all under the connection's prefix `P`:
 *
 * - `P task:<id>`: the record, as JSON, with a Redis TTL at `createdAt + ttlMs` (none when
 *   `ttlMs` is null).
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
 * one cluster slot: a prefix with a hash tag, such as `{mcp}:`). The instances' clocks must
 * agree (to well within a lease), as the lease rule needs anyway.
 *
 * @since 0.1.0
 */
import * as TaskStore from "@effect-mcp/server/TaskStore"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
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

// ---------------------------------------------------------------------------- scripts

/** What every script shares: the keys, and the removal of a task (published). ARGV[1] is the prefix. */
const prelude = `
local P = ARGV[1]
local META = P .. 'tasks:meta'
local EXPIRY = P .. 'tasks:expiry'
local LEASES = P .. 'tasks:leases'
local BYTES = P .. 'tasks:bytes'
local OWNER_BYTES = P .. 'tasks:ownerbytes'
local SEQ = P .. 'tasks:seq'
local CHANNEL = P .. 'tasks'
local function taskKey(id) return P .. 'task:' .. id end
local function ownerKey(owner) return P .. 'tasks:owner:' .. owner end
local function parseMeta(m)
  local a = string.find(m, ':', 1, true)
  local b = string.find(m, ':', a + 1, true)
  return tonumber(string.sub(m, 1, a - 1)), tonumber(string.sub(m, a + 1, b - 1)), string.sub(m, b + 1)
end
local function publish(id, json)
  redis.call('PUBLISH', CHANNEL, '{"taskId":' .. cjson.encode(id) .. ',"record":' .. json .. '}')
end
local function drop(id)
  local existed = redis.call('DEL', taskKey(id)) == 1
  redis.call('ZREM', EXPIRY, id)
  redis.call('ZREM', LEASES, id)
  local m = redis.call('HGET', META, id)
  if m then
    existed = true
    redis.call('HDEL', META, id)
    local _, bytes, owner = parseMeta(m)
    redis.call('ZREM', ownerKey(owner), id)
    redis.call('DECRBY', BYTES, bytes)
    if redis.call('HINCRBY', OWNER_BYTES, owner, -bytes) <= 0 then redis.call('HDEL', OWNER_BYTES, owner) end
  end
  if existed then publish(id, 'null') end
  return existed
end
local function prune(now, limit)
  local ids = redis.call('ZRANGEBYSCORE', EXPIRY, '-inf', now, 'LIMIT', 0, limit)
  for _, id in ipairs(ids) do drop(id) end
  return #ids
end
`

/**
 * ARGV: prefix, id, owner, json, held, version, expireAt|"", leaseAt|"", now, maxTasks,
 * maxPerOwner, maxBytes, maxOwnerBytes, maxRecordBytes. A task's size is its JSON's bytes (`#`: as
 * Redis holds it, UTF-8) and what its runner holds. What expired goes first: it must not count.
 */
const createScript: RedisConnection.Script = {
  name: "mcpTaskStoreCreate",
  numberOfKeys: 0,
  lua: prelude + `
local id, owner, json, version, expireAt, leaseAt, now = ARGV[2], ARGV[3], ARGV[4], ARGV[6], ARGV[7], ARGV[8], ARGV[9]
local size = #json + tonumber(ARGV[5])
if size > tonumber(ARGV[14]) then return 'record' end
prune(now, tonumber(ARGV[10]) + 1)
local key = taskKey(id)
if redis.call('EXISTS', key) == 1 or redis.call('HEXISTS', META, id) == 1 then return 'exists' end
if redis.call('HLEN', META) >= tonumber(ARGV[10]) then return 'tasks' end
if redis.call('ZCARD', ownerKey(owner)) >= tonumber(ARGV[11]) then return 'owner' end
if tonumber(redis.call('GET', BYTES) or '0') + size > tonumber(ARGV[12]) then return 'bytes' end
if tonumber(redis.call('HGET', OWNER_BYTES, owner) or '0') + size > tonumber(ARGV[13]) then return 'ownerBytes' end
if expireAt == '' then
  redis.call('SET', key, json)
else
  redis.call('SET', key, json, 'PXAT', expireAt)
  redis.call('ZADD', EXPIRY, expireAt, id)
end
redis.call('HSET', META, id, version .. ':' .. size .. ':' .. owner)
redis.call('ZADD', ownerKey(owner), redis.call('INCR', SEQ), id)
if leaseAt ~= '' then redis.call('ZADD', LEASES, leaseAt, id) end
redis.call('INCRBY', BYTES, size)
redis.call('HINCRBY', OWNER_BYTES, owner, size)
publish(id, json)
return 'ok'
`
}

/**
 * ARGV: prefix, id, version, json, held, nextVersion, leaseAt|"", now, maxBytes, maxOwnerBytes,
 * maxRecordBytes (sized as in create). 1 when set, 0 when not (gone, expired, or at another
 * version), else a bound's name.
 */
const compareAndSetScript: RedisConnection.Script = {
  name: "mcpTaskStoreCompareAndSet",
  numberOfKeys: 0,
  lua: prelude + `
local id, json, nextVersion, leaseAt = ARGV[2], ARGV[4], ARGV[6], ARGV[7]
local size = #json + tonumber(ARGV[5])
local key = taskKey(id)
local m = redis.call('HGET', META, id)
if not m or redis.call('EXISTS', key) == 0 then return 0 end
local expiresAt = redis.call('ZSCORE', EXPIRY, id)
if expiresAt and tonumber(expiresAt) <= tonumber(ARGV[8]) then return 0 end
local version, bytes, owner = parseMeta(m)
if version ~= tonumber(ARGV[3]) then return 0 end
if size > tonumber(ARGV[11]) then return 'record' end
if tonumber(redis.call('GET', BYTES) or '0') - bytes + size > tonumber(ARGV[9]) then return 'bytes' end
if tonumber(redis.call('HGET', OWNER_BYTES, owner) or '0') - bytes + size > tonumber(ARGV[10]) then return 'ownerBytes' end
redis.call('SET', key, json, 'KEEPTTL')
redis.call('HSET', META, id, nextVersion .. ':' .. size .. ':' .. owner)
redis.call('INCRBY', BYTES, size - bytes)
redis.call('HINCRBY', OWNER_BYTES, owner, size - bytes)
if leaseAt == '' then redis.call('ZREM', LEASES, id) else redis.call('ZADD', LEASES, leaseAt, id) end
publish(id, json)
return 1
`
}

/** ARGV: prefix, id. */
const removeScript: RedisConnection.Script = {
  name: "mcpTaskStoreRemove",
  numberOfKeys: 0,
  lua: prelude + `
if drop(ARGV[2]) then return 1 end
return 0
`
}

/** ARGV: prefix, now, limit. How many expired tasks it removed (each published, once, wherever it ran). */
const sweepScript: RedisConnection.Script = {
  name: "mcpTaskStoreSweep",
  numberOfKeys: 0,
  lua: prelude + `
return prune(ARGV[2], tonumber(ARGV[3]))
`
}

/**
 * ARGV: prefix, owner, cursor|"", limit, now. `{more, json...}`: a page of the owner's live tasks,
 * newest first, after the cursor (none when the cursor is not the owner's), and whether more follow.
 */
const listScript: RedisConnection.Script = {
  name: "mcpTaskStoreList",
  numberOfKeys: 0,
  lua: prelude + `
local key = ownerKey(ARGV[2])
local limit = tonumber(ARGV[4])
local now = tonumber(ARGV[5])
local bound = '+inf'
if ARGV[3] ~= '' then
  local score = redis.call('ZSCORE', key, ARGV[3])
  if not score then return {0} end
  bound = '(' .. score
end
local out = {0}
local found = 0
while true do
  local batch = redis.call('ZREVRANGEBYSCORE', key, bound, '-inf', 'WITHSCORES', 'LIMIT', 0, 100)
  if #batch == 0 then return out end
  for i = 1, #batch, 2 do
    local id = batch[i]
    bound = '(' .. batch[i + 1]
    local expiresAt = redis.call('ZSCORE', EXPIRY, id)
    if not (expiresAt and tonumber(expiresAt) <= now) then
      local json = redis.call('GET', taskKey(id))
      if json then
        if found == limit then
          out[1] = 1
          return out
        end
        found = found + 1
        out[#out + 1] = json
      end
    end
  end
end
`
}

// ---------------------------------------------------------------------------- records

const encode = (record: TaskRecord): string => JSON.stringify(record)

/** A record as stored, back: the fields JSON leaves out when undefined are there, undefined. */
const decode = (json: string): TaskRecord => normalize(JSON.parse(json))

const normalize = (parsed: unknown): TaskRecord => {
  const r = parsed as { [K in keyof TaskRecord]: TaskRecord[K] | null }
  return {
    taskId: r.taskId!,
    owner: r.owner!,
    revision: r.revision!,
    method: r.method!,
    name: r.name!,
    status: r.status!,
    statusMessage: r.statusMessage ?? undefined,
    createdAt: r.createdAt!,
    lastUpdatedAt: r.lastUpdatedAt!,
    ttlMs: r.ttlMs ?? null,
    pollIntervalMs: r.pollIntervalMs!,
    inputRequests: r.inputRequests ?? {},
    inputResponses: r.inputResponses ?? {},
    outcome: r.outcome ?? undefined,
    cancelRequested: r.cancelRequested ?? false,
    lease: r.lease ?? undefined,
    version: r.version!,
    ...(typeof r.held === "number" ? { held: r.held } : {})
  }
}

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

interface Waiter {
  readonly version: number
  readonly deferred: Deferred.Deferred<Option.Option<TaskRecord>>
}

// ---------------------------------------------------------------------------- the store

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
    const maxTasks = positive("maxTasks", options.maxTasks ?? 10_000)
    const maxPerOwner = positive("maxTasksPerOwner", options.maxTasksPerOwner ?? 1_000)
    const maxBytes = positive("maxBytes", options.maxBytes ?? 64 * 1024 * 1024)
    const maxOwnerBytes = positive("maxBytesPerOwner", options.maxBytesPerOwner ?? 16 * 1024 * 1024)
    const maxRecordBytes = positive("maxRecordBytes", options.maxRecordBytes ?? 4 * 1024 * 1024)
    const capacity = positive("changesCapacity", options.changesCapacity ?? 10_000)
    const graceMs = Duration.toMillis(options.leaseGrace ?? Duration.seconds(30))
    const connection = yield* RedisConnection.RedisConnection
    const prefix = connection.prefix
    const channel = `${prefix}tasks`
    const leasesKey = `${prefix}tasks:leases`
    const clock = yield* Effect.clock
    const now = () => clock.unsafeCurrentTimeMillis()
    const unavailable = (cause: RedisConnection.RedisUnavailable) => new TaskStore.TaskStoreUnavailable({ cause })
    const run = (script: RedisConnection.Script, args: ReadonlyArray<string | number>) =>
      Effect.mapError(connection.eval(script, [], [prefix, ...args]), unavailable)

    /** The fibers in `await`, by task: each woken once its task is past its version, or gone. */
    const waiters = new Map<string, Set<Waiter>>()
    const wake = (taskId: string, record: TaskRecord | undefined) => {
      const waiting = waiters.get(taskId)
      if (waiting === undefined) return
      for (const waiter of waiting) {
        if (record !== undefined && record.version <= waiter.version) continue
        waiting.delete(waiter)
        Deferred.unsafeDone(waiter.deferred, Effect.succeed(Option.fromNullable(record)))
      }
      if (waiting.size === 0) waiters.delete(taskId)
    }

    const hub = yield* PubSub.sliding<TaskStore.Change>(capacity)
    yield* Effect.addFinalizer(() => PubSub.shutdown(hub))

    /** The moment from which lapsed leases fail their tasks again (Redis was lost before it). */
    let leasesFrom = 0
    const lostRedis = () => {
      leasesFrom = Math.max(leasesFrom, now() + graceMs)
    }

    const get = (taskId: string): Effect.Effect<Option.Option<TaskRecord>, TaskStore.TaskStoreUnavailable> =>
      Effect.map(
        Effect.mapError(connection.use((r) => r.get(`${prefix}task:${taskId}`)), unavailable),
        (json) => {
          if (json === null) return Option.none()
          const record = decode(json)
          return expired(record, now()) ? Option.none() : Option.some(record)
        }
      )

    // ------------------------------------------------------------------ what the channel says

    const hear = (payload: string) =>
      Effect.suspend(() => {
        let change: TaskStore.Change
        try {
          const parsed = JSON.parse(payload) as { taskId: string; record: unknown }
          const record = parsed.record === null ? undefined : normalize(parsed.record)
          change = { taskId: parsed.taskId, record }
        } catch (cause) {
          return Effect.logWarning("effect-mcp: the task store ignored a message it cannot read", cause)
        }
        wake(change.taskId, change.record)
        return PubSub.publish(hub, change)
      })

    /**
     * Messages were lost (the subscription came back): the tasks awaited then are read again,
     * their waiters woken if they changed or went, and listeners told how they are. Read at once,
     * and by every sweep until each was read (the command connection may come back later).
     */
    const stale = new Set<string>()
    const recheck = Effect.suspend(() =>
      Effect.forEach(
        Array.from(stale),
        (taskId) => {
          if (!waiters.has(taskId)) {
            stale.delete(taskId)
            return Effect.void
          }
          return Effect.flatMap(Effect.either(get(taskId)), (found) => {
            if (found._tag === "Left") return Effect.void
            stale.delete(taskId)
            const record = Option.getOrUndefined(found.right)
            wake(taskId, record)
            return PubSub.publish(hub, { taskId, record })
          })
        },
        { concurrency: 16, discard: true }
      )
    )
    const recover = Effect.suspend(() => {
      lostRedis()
      for (const taskId of waiters.keys()) stale.add(taskId)
      return recheck
    })

    const deliveries = yield* Effect.retry(
      connection.subscribe(channel),
      Schedule.spaced(Duration.seconds(1))
    ).pipe(Effect.orDie)
    yield* Effect.forkScoped(Effect.forever(
      Effect.flatMap(
        Queue.take(deliveries),
        (delivery) => delivery._tag === "Message" ? hear(delivery.payload) : recover
      ).pipe(
        Effect.catchAllCause((cause) => Effect.logError("effect-mcp: the task store's listener failed", cause))
      )
    ))

    // ------------------------------------------------------------------ the sweep

    const failLapsed = (taskId: string, at: number) =>
      Effect.flatMap(connection.use((r) => r.get(`${prefix}task:${taskId}`)), (json) => {
        if (json === null) return Effect.void
        const record = decode(json)
        if (TaskStore.isTerminal(record.status) || record.lease === undefined || record.lease.expiresAt >= at) {
          return Effect.void
        }
        const next = lapse(record, at)
        const text = encode(next)
        // At the version read: a renewal that came first wins, and one sweep of many fails it.
        return connection.eval(compareAndSetScript, [], [
          prefix,
          taskId,
          record.version,
          text,
          TaskStore.heldBy(next),
          next.version,
          "",
          at,
          maxBytes,
          maxOwnerBytes,
          maxRecordBytes
        ])
      })

    const sweepOnce = Effect.gen(function*() {
      if (stale.size > 0) yield* recheck
      const at = now()
      // Bounded per script run (Redis does nothing else meanwhile), and per sweep.
      for (let round = 0; round < 10; round++) {
        const removed = yield* connection.eval(sweepScript, [], [prefix, at, 1_000])
        if (Number(removed) < 1_000) break
      }
      if (at < leasesFrom) return
      const lapsed = yield* connection.use((r) => r.zrangebyscore(leasesKey, "-inf", `(${at}`, "LIMIT", 0, 1_000))
      yield* Effect.forEach(lapsed, (taskId) => failLapsed(taskId, at), { concurrency: 16, discard: true })
    })

    let failing = false
    const sweep = sweepOnce.pipe(
      Effect.matchCauseEffect({
        onFailure: (cause) => {
          lostRedis()
          const failure = Cause.failureOption(cause)
          if (Option.isNone(failure)) return Effect.logError("effect-mcp: the task store's sweep failed", cause)
          if (failing) return Effect.void
          failing = true
          return Effect.logWarning(
            `effect-mcp: the task store cannot sweep (${failure.value.message}); it keeps trying`
          )
        },
        onSuccess: () => {
          if (!failing) return Effect.void
          failing = false
          return Effect.logInfo("effect-mcp: the task store sweeps again")
        }
      })
    )
    yield* Effect.forkScoped(Effect.repeat(sweep, Schedule.spaced(options.sweepInterval ?? Duration.seconds(1))))

    // ------------------------------------------------------------------ the service

    const full = (reply: unknown): Effect.Effect<void, TaskStore.TaskStoreFull> =>
      isReason(reply) ? Effect.fail(new TaskStore.TaskStoreFull({ reason: reply })) : Effect.void

    const service: TaskStore.Service = {
      ready: connection.isReady,
      create: (record) =>
        Effect.suspend(() => {
          const text = encode(record)
          return Effect.flatMap(
            run(createScript, [
              record.taskId,
              record.owner,
              text,
              TaskStore.heldBy(record),
              record.version,
              record.ttlMs === null ? "" : record.createdAt + record.ttlMs,
              leaseAt(record),
              now(),
              maxTasks,
              maxPerOwner,
              maxBytes,
              maxOwnerBytes,
              maxRecordBytes
            ]),
            (reply) =>
              reply === "ok"
                ? Effect.void
                : reply === "exists"
                ? Effect.dieMessage(`RedisTaskStore: a task ${record.taskId} exists already`)
                : full(reply)
          )
        }),
      get,
      compareAndSet: (taskId, version, next) =>
        Effect.suspend(() => {
          const text = encode(next)
          return Effect.flatMap(
            run(compareAndSetScript, [
              taskId,
              version,
              text,
              TaskStore.heldBy(next),
              next.version,
              leaseAt(next),
              now(),
              maxBytes,
              maxOwnerBytes,
              maxRecordBytes
            ]),
            (reply) => {
              if (reply === 1) {
                // Woken here at once; the channel tells the other instances (and this one's `changes`).
                wake(taskId, next)
                return Effect.succeed(true)
              }
              return Effect.as(full(reply), false)
            }
          )
        }),
      list: (owner, cursor, limit) =>
        limit < 1
          ? Effect.succeed({ tasks: [], next: undefined })
          : Effect.map(
            Effect.suspend(() => run(listScript, [owner, cursor ?? "", limit, now()])),
            (reply) => {
              const [more, ...texts] = reply as [number, ...Array<string>]
              const tasks = texts.map(decode)
              return { tasks, next: more === 1 && tasks.length > 0 ? tasks[tasks.length - 1].taskId : undefined }
            }
          ),
      remove: (taskId) =>
        Effect.map(run(removeScript, [taskId]), (removed) => {
          if (removed === 1) wake(taskId, undefined)
        }),
      await: (taskId, version) =>
        // Waiting before reading: a change between the read and the wait wakes it all the same.
        Effect.acquireUseRelease(
          Effect.flatMap(Deferred.make<Option.Option<TaskRecord>>(), (deferred) =>
            Effect.sync(() => {
              const waiter: Waiter = { version, deferred }
              const waiting = waiters.get(taskId)
              if (waiting === undefined) waiters.set(taskId, new Set([waiter]))
              else waiting.add(waiter)
              return waiter
            })),
          (waiter) =>
            Effect.flatMap(get(taskId), (found) =>
              Option.isNone(found) || found.value.version > version ? Effect.succeed(found) : Deferred.await(
                waiter.deferred
              )),
          (waiter) =>
            Effect.sync(() => {
              const waiting = waiters.get(taskId)
              if (waiting === undefined) return
              waiting.delete(waiter)
              if (waiting.size === 0) {
                waiters.delete(taskId)
              }
            })
        ),
      changes: Stream.fromPubSub(hub)
    }
    return service
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
