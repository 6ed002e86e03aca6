/**
 * The event store of Streamable HTTP on Redis: a session's SSE events kept where every process of
 * a deployment can read them, so a client that lost a stream can resume it (`Last-Event-ID`) on
 * whichever process its next request reaches.
 *
 * **A resumption is served whole or refused, never with a gap.** Each stream remembers the last
 * position appended to it, and a replay must be exactly the events after `Last-Event-ID` up to
 * that one, each position once and in order (the server numbers a stream's events one by one). A
 * missing event, whatever removed it (the byte budget, the bounds, an append lost while Redis was
 * down), refuses the resumption with `EventsUnavailable` ("evicted"); a stream the store does not
 * know (never seen, dropped, expired) with "unknown-stream"; Redis down with "unavailable".
 *
 * **Bounds.** Per session at most `maxBytesPerSession` bytes of events (their data and ids, in
 * UTF-8): past it the session's oldest events go first, whichever stream they belong to; per
 * stream its newest `maxEventsPerStream` events; per session its newest `maxStreamsPerSession`
 * streams. An append and the evictions it causes are one Lua script: atomic. Across sessions, the
 * bound is the TTL (`ttl` after its last event a session is forgotten) and Redis's own `maxmemory`:
 * any eviction policy is safe, since a key Redis drops makes a resumption refused, not partial.
 *
 * **Redis down.** `after` fails at once with "unavailable"; `append` and `clear` never fail: a lost
 * append is logged (a warning, at most one every 10 seconds) and remembered by this process, which
 * records it in Redis once Redis is back, so a resumption across it (from any process) is refused.
 *
 * **Keys**, under the connection's prefix, all of a session's with one hash tag (one slot of a
 * cluster): `events:{<session>}:meta` (a hash: bytes held, an arrival counter, per stream its last
 * position and bytes), `…:heads` (a sorted set: each stream by the arrival of its oldest kept
 * event, for eviction by age), `…:streams` (a sorted set: each stream by its first arrival, for the
 * bound on streams) and `…:s:<stream>` (a Redis Stream, one entry per event, its id
 * `<position>-<arrival>`). Each expires `ttl` after the last append that touched it.
 *
 * @since 0.1.0
 */
import { EventStore } from "@effect-mcp/server"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as RedisConnection from "./RedisConnection.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Bytes of events kept per session, the newest (data and ids, in UTF-8; default 2 MiB). */
  readonly maxBytesPerSession?: number
  /** Events kept per stream, the newest (default 1000). */
  readonly maxEventsPerStream?: number
  /** Streams kept per session, the newest (default 100): older ones can no longer be resumed. */
  readonly maxStreamsPerSession?: number
  /** How long a session's events are kept after its last one (default 1 hour). */
  readonly ttl?: Duration.DurationInput
}

/**
 * The store, with what it holds in Redis.
 *
 * @since 0.1.0
 * @category models
 */
export interface RedisEventStore extends EventStore.Service {
  /** The bytes of one session's events as `maxBytesPerSession` counts them (data and ids, in UTF-8). */
  readonly bytes: (sessionId: string) => Effect.Effect<number, RedisConnection.RedisUnavailable>
  /** The memory Redis uses for one session's keys (`MEMORY USAGE`, every key summed). */
  readonly memoryUsage: (sessionId: string) => Effect.Effect<number, RedisConnection.RedisUnavailable>
}

// Shared by the scripts: KEYS[1] meta, KEYS[2] heads, KEYS[3] streams; ARGV[1] the base of stream keys.
const common = `
local meta, heads, streams, base = KEYS[1], KEYS[2], KEYS[3], ARGV[1]
local function drop(s)
  local b = tonumber(redis.call('HGET', meta, 'b:' .. s) or '0')
  redis.call('DEL', base .. s)
  redis.call('HDEL', meta, 'l:' .. s, 'b:' .. s)
  redis.call('ZREM', heads, s)
  redis.call('ZREM', streams, s)
  if b ~= 0 then redis.call('HINCRBY', meta, 'bytes', -b) end
end
local function arrival(id)
  return string.sub(id, string.find(id, '-', 1, true) + 1)
end
local function evictFirst(s)
  local key = base .. s
  local first = redis.call('XRANGE', key, '-', '+', 'COUNT', 2)
  if #first == 0 then
    if redis.call('EXISTS', key) == 0 then drop(s) else redis.call('ZREM', heads, s) end
    return
  end
  local id, fields = first[1][1], first[1][2]
  local size = #fields[2] + #s + string.find(id, '-', 1, true)
  redis.call('XDEL', key, id)
  redis.call('HINCRBY', meta, 'bytes', -size)
  redis.call('HINCRBY', meta, 'b:' .. s, -size)
  if first[2] then redis.call('ZADD', heads, arrival(first[2][1]), s) else redis.call('ZREM', heads, s) end
end
`

/** Appends one event; 1 when stored, 0 when its position is not past the stream's last (ignored). */
const appendScript: RedisConnection.Script = {
  name: "mcpEventStoreAppend",
  numberOfKeys: 4,
  // ARGV: base, stream, seq, data, maxBytes, maxEvents, maxStreams, ttl (ms)
  lua: common + `
local key, s, seq, data = KEYS[4], ARGV[2], ARGV[3], ARGV[4]
local maxBytes, maxEvents, maxStreams, ttl = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), ARGV[8]
local last = redis.call('HGET', meta, 'l:' .. s)
if last and redis.call('EXISTS', key) == 0 then
  -- Its events expired while the session went on: the stream starts again, past a gap.
  drop(s)
  last = nil
end
if last and tonumber(seq) <= tonumber(last) then return 0 end
local n = redis.call('HINCRBY', meta, 'n', 1)
if not last then
  -- A new stream (events left by records Redis dropped are not counted: they go).
  redis.call('DEL', key)
  redis.call('HDEL', meta, 'b:' .. s)
  redis.call('ZREM', heads, s)
  redis.call('ZADD', streams, n, s)
  while redis.call('ZCARD', streams) > maxStreams do drop(redis.call('ZRANGE', streams, 0, 0)[1]) end
end
local size = #data + #s + 1 + #seq
redis.call('XADD', key, seq .. '-' .. n, 'd', data)
redis.call('HSET', meta, 'l:' .. s, seq)
redis.call('HINCRBY', meta, 'bytes', size)
redis.call('HINCRBY', meta, 'b:' .. s, size)
redis.call('ZADD', heads, 'NX', n, s)
while redis.call('XLEN', key) > maxEvents do evictFirst(s) end
while tonumber(redis.call('HGET', meta, 'bytes') or '0') > maxBytes do
  local oldest = redis.call('ZRANGE', heads, 0, 0)[1]
  if not oldest then break end
  evictFirst(oldest)
end
for _, k in ipairs({meta, heads, streams, key}) do redis.call('PEXPIRE', k, ttl) end
return 1
`
}

/**
 * The events of a stream after a position: 0 when the stream is unknown, else its last position
 * and (when it is past the one asked for) the entries after the one asked for.
 */
const afterScript: RedisConnection.Script = {
  name: "mcpEventStoreAfter",
  numberOfKeys: 4,
  // ARGV: base, stream, seq
  lua: common + `
local key, s, seq = KEYS[4], ARGV[2], tonumber(ARGV[3])
local last = redis.call('HGET', meta, 'l:' .. s)
if not last then return 0 end
if redis.call('EXISTS', key) == 0 then
  drop(s)
  return 0
end
if seq >= tonumber(last) then return {last} end
return {last, redis.call('XRANGE', key, string.format('%d', seq + 1), '+')}
`
}

/** A lost append is recorded: the stream's last position is at least `seq` (nothing when unknown). */
const markScript: RedisConnection.Script = {
  name: "mcpEventStoreMark",
  numberOfKeys: 3,
  // ARGV: base, stream, seq
  lua: common + `
local last = redis.call('HGET', meta, 'l:' .. ARGV[2])
if last and tonumber(ARGV[3]) > tonumber(last) then redis.call('HSET', meta, 'l:' .. ARGV[2], ARGV[3]) end
return 0
`
}

/** Every key of a session, its streams' with the rest. */
const keysOf = `
local keys = {meta, heads, streams}
local seen = {}
for _, s in ipairs(redis.call('ZRANGE', streams, 0, -1)) do seen[s] = true end
for _, f in ipairs(redis.call('HKEYS', meta)) do
  if string.sub(f, 1, 2) == 'l:' then seen[string.sub(f, 3)] = true end
end
for s in pairs(seen) do table.insert(keys, base .. s) end
`

const clearScript: RedisConnection.Script = {
  name: "mcpEventStoreClear",
  numberOfKeys: 3,
  lua: common + keysOf + `
for _, k in ipairs(keys) do redis.call('DEL', k) end
return 0
`
}

const usageScript: RedisConnection.Script = {
  name: "mcpEventStoreUsage",
  numberOfKeys: 3,
  lua: common + keysOf + `
local total = 0
for _, k in ipairs(keys) do total = total + (redis.call('MEMORY', 'USAGE', k, 'SAMPLES', '0') or 0) end
return total
`
}

type Entry = readonly [id: string, fields: ReadonlyArray<string>]

/**
 * The replay of a stream after `seq`, if the entries are exactly its positions `seq + 1` to `last`
 * (undefined when one is missing).
 */
const whole = (
  streamId: string,
  seq: number,
  last: number,
  entries: ReadonlyArray<Entry>
): ReadonlyArray<EventStore.Event> | undefined => {
  if (entries.length !== last - seq) return undefined
  const events: Array<EventStore.Event> = []
  for (let i = 0; i < entries.length; i++) {
    const [id, fields] = entries[i]
    const position = seq + 1 + i
    if (Number(id.slice(0, id.indexOf("-"))) !== position) return undefined
    const at = fields.indexOf("d")
    events.push({ id: EventStore.eventId(streamId, position), data: at >= 0 ? fields[at + 1] ?? "" : "" })
  }
  return events
}

/** Lost appends remembered by one process until Redis records them, at most this many streams. */
const maxLost = 10_000

/**
 * The store on the connection in context. It owns a fiber of the scope, which records in Redis
 * the appends lost while Redis was down once it is back.
 *
 * **Details**: see the module's documentation for the keys, the bounds and what happens while
 * Redis is down. Options must be positive integers (a defect otherwise).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: Options = {}
): Effect.Effect<RedisEventStore, never, RedisConnection.RedisConnection | Scope.Scope> =>
  Effect.gen(function*() {
    const maxBytes = options.maxBytesPerSession ?? 2 * 1024 * 1024
    const maxEvents = options.maxEventsPerStream ?? 1000
    const maxStreams = options.maxStreamsPerSession ?? 100
    const ttl = Math.ceil(Duration.toMillis(options.ttl ?? Duration.hours(1)))
    for (
      const [name, value] of [
        ["maxBytesPerSession", maxBytes],
        ["maxEventsPerStream", maxEvents],
        ["maxStreamsPerSession", maxStreams],
        ["ttl (in milliseconds)", ttl]
      ] as const
    ) {
      if (!Number.isSafeInteger(value) || value <= 0) {
        return yield* Effect.dieMessage(`${name} must be a positive integer (got ${value})`)
      }
    }
    const redis = yield* RedisConnection.RedisConnection
    const keys = (sessionId: string) => {
      const base = `${redis.prefix}events:{${sessionId}}:`
      return { base: `${base}s:`, session: [`${base}meta`, `${base}heads`, `${base}streams`] as const }
    }

    // Lost appends, by session then stream: the highest position lost (Maps keep arrival order).
    const lost = new Map<string, Map<string, number>>()
    let lostCount = 0
    let warnedAt = 0
    let unwarned = 0
    const warn = (message: string) =>
      Effect.suspend(() => {
        const now = Date.now()
        if (now - warnedAt < 10_000) {
          unwarned++
          return Effect.void
        }
        warnedAt = now
        const more = unwarned > 0 ? ` (and ${unwarned} more since the last warning)` : ""
        unwarned = 0
        return Effect.logWarning(`effect-mcp: ${message}${more}`)
      })
    const remember = (sessionId: string, streamId: string, seq: number) => {
      let streams = lost.get(sessionId)
      if (streams === undefined) lost.set(sessionId, streams = new Map())
      const before = streams.get(streamId)
      if (before === undefined) lostCount++
      streams.set(streamId, Math.max(before ?? -1, seq))
      while (lostCount > maxLost) {
        // The oldest session's records go: a resumption across its lost appends may find no gap.
        const [oldest, records] = lost.entries().next().value!
        lost.delete(oldest)
        lostCount -= records.size
      }
    }
    const forgetLost = (sessionId: string) => {
      const streams = lost.get(sessionId)
      if (streams === undefined) return
      lost.delete(sessionId)
      lostCount -= streams.size
    }

    // Records what was lost, once Redis answers again.
    const record = Effect.suspend(() =>
      Effect.forEach(Array.from(lost), ([sessionId, streams]) => {
        const { base, session } = keys(sessionId)
        return Effect.forEach(Array.from(streams), ([streamId, seq]) =>
          Effect.map(redis.eval(markScript, session, [base, streamId, seq]), () => {
            // Only what is still the same record goes (a later loss may have raised it meanwhile).
            const now = lost.get(sessionId)
            if (now?.get(streamId) !== seq) return
            now.delete(streamId)
            lostCount--
            if (now.size === 0) {
              lost.delete(sessionId)
            }
          }), { discard: true })
      }, { discard: true })
    )
    yield* Effect.forkScoped(
      Effect.repeat(
        Effect.ignore(Effect.suspend(() =>
          lost.size === 0 ? Effect.void : record
        )),
        Schedule.spaced(Duration.seconds(1))
      )
    )

    const append: EventStore.Service["append"] = (sessionId, event) =>
      Effect.suspend(() => {
        const parsed = EventStore.parseEventId(event.id)
        if (parsed === undefined || !Number.isSafeInteger(parsed.seq)) return Effect.void
        const { base, session } = keys(sessionId)
        return Effect.catchAll(
          redis.eval(appendScript, [...session, base + parsed.streamId], [
            base,
            parsed.streamId,
            String(parsed.seq),
            event.data,
            maxBytes,
            maxEvents,
            maxStreams,
            ttl
          ]),
          (error) => {
            remember(sessionId, parsed.streamId, parsed.seq)
            return warn(`an SSE event could not be stored in Redis (${error.message}); resuming across it is refused`)
          }
        )
      })

    const after: EventStore.Service["after"] = (sessionId, lastEventId) =>
      Effect.suspend(() => {
        const parsed = EventStore.parseEventId(lastEventId)
        if (parsed === undefined) {
          return Effect.fail(new EventStore.EventsUnavailable({ lastEventId, reason: "unknown-stream" }))
        }
        const { seq, streamId } = parsed
        const lostAt = lost.get(sessionId)?.get(streamId)
        if (lostAt !== undefined && lostAt > seq) {
          return Effect.fail(new EventStore.EventsUnavailable({ lastEventId, reason: "evicted" }))
        }
        const { base, session } = keys(sessionId)
        return redis.eval(afterScript, [...session, base + streamId], [base, streamId, String(seq)]).pipe(
          Effect.mapError(() => new EventStore.EventsUnavailable({ lastEventId, reason: "unavailable" })),
          Effect.flatMap((reply) => {
            if (!Array.isArray(reply)) {
              return Effect.fail(new EventStore.EventsUnavailable({ lastEventId, reason: "unknown-stream" }))
            }
            const last = Number(reply[0])
            // Past the last it knows: the client saw events whose appends were lost.
            if (seq > last) return Effect.fail(new EventStore.EventsUnavailable({ lastEventId, reason: "evicted" }))
            const events = seq === last ? [] : whole(streamId, seq, last, (reply[1] ?? []) as ReadonlyArray<Entry>)
            return events === undefined
              ? Effect.fail(new EventStore.EventsUnavailable({ lastEventId, reason: "evicted" }))
              : Effect.succeed(events)
          })
        )
      })

    const clear: EventStore.Service["clear"] = (sessionId) =>
      Effect.suspend(() => {
        forgetLost(sessionId)
        const { base, session } = keys(sessionId)
        return Effect.catchAll(
          Effect.asVoid(redis.eval(clearScript, session, [base])),
          (error) => warn(`a session's events could not be removed from Redis (${error.message}); they expire`)
        )
      })

    return {
      ready: redis.isReady,
      append,
      after,
      clear,
      bytes: (sessionId) =>
        Effect.map(redis.use((r) => r.hget(keys(sessionId).session[0], "bytes")), (bytes) => Number(bytes ?? 0)),
      memoryUsage: (sessionId) => {
        const { base, session } = keys(sessionId)
        return Effect.map(redis.eval(usageScript, session, [base]), Number)
      }
    } satisfies RedisEventStore
  })

/**
 * The store as the server's `EventStore`, on the connection of the context.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options = {}
): Layer.Layer<EventStore.EventStore, never, RedisConnection.RedisConnection> =>
  Layer.scoped(EventStore.EventStore, make(options))
