/**
 * The event store of Streamable HTTP on Redis: a session's SSE events kept where every process of
 * a deployment can read them, so a client that lost a stream can resume it (`Last-Event-ID`) on
 * whichever process its next request reaches.
 *
 * **A resumption is served whole or refused, never with a gap.** Each stream remembers the last
 * position appended to it, and a replay must be exactly the events after `Last-Event-ID` up to
 * that one, each position once and in order (the server numbers a stream's events one by one). A
 * missing event, whatever removed it (the byte budgets, the bounds, an append lost while Redis was
 * down), refuses the resumption with `EventsUnavailable` ("evicted"); a stream the store does not
 * know (never seen, dropped, expired) with "unknown-stream"; Redis down with "unavailable".
 *
 * **Bounds**, the in-memory store's, held by Redis itself: every append and the evictions it
 * causes are one Lua script, atomic. Per session at most `maxBytesPerSession` bytes: past it the
 * session's oldest events go first, whichever stream they belong to; per stream its newest
 * `maxEventsPerStream` events; per session its newest `maxStreamsPerSession` streams. Across
 * sessions at most `maxBytes`: past it the session holding the most loses its oldest event,
 * again until the sum is under, so sessions that fill the store shrink each other to an equal
 * share, and one that holds less than its share loses nothing. Bytes are what Redis holds, as
 * estimated: per event its data (UTF-8), a fifth more and 24 bytes; 256 per stream, 600 per
 * session (`MEMORY USAGE` of a session's keys is at or under it: a few percent for events of a few
 * KB, about a fifth for small ones).
 *
 * **Lifetime: no longer than the session.** A session's keys expire with its record when
 * sessions are shared on the same Redis (`RedisSessionStore`, same prefix): an append gives them
 * what is left of the record's life, and each touch of the record (any activity of the session,
 * on any instance) extends both; a session that ends (DELETE) takes its events with it, and one
 * that expires idle leaves with them, on whatever instance. A session with no record here (its
 * sessions are not shared) keeps its events `ttl` after its last event, and the server clears
 * them when it ends. What expired leaves the sum across sessions too.
 *
 * **Redis down.** `after` fails at once with "unavailable"; `append` and `clear` never fail: a lost
 * append is logged (a warning, at most one every 10 seconds) and remembered by this process, which
 * records it in Redis once Redis is back, so a resumption across it (from any process) is refused.
 *
 * **Keys**, under the connection's prefix and the name of their format (`events.v2:`: events of an
 * earlier version of this package, Redis Streams under `events:`, are never read, see
 * `RedisSessionStore`), all of a session's with one hash tag: `events.v2:{<session>}:meta` (a
 * hash: bytes held, an arrival counter, per stream its last position, its first kept one and its
 * bytes), `…:heads` (a sorted set: each stream by the arrival of its oldest kept event, for
 * eviction by age), `…:streams` (a sorted set: each stream by its first arrival, for the bound on
 * streams) and `…:s:<stream>` (a list, one entry per kept event); and
 * across sessions `events.v2:held` (a sorted set of the sessions by bytes held, for the largest),
 * `events.v2:total` (the sum) and `events.v2:expiry` (the sessions by when their keys expire). Keys
 * of other sessions are built inside the scripts: the store needs one Redis.
 *
 * @since 0.1.0
 */
import { EventStore } from "@effect-mcp/server"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Events from "./internal/events.js"
import * as Format from "./internal/format.js"
import * as Loss from "./internal/loss.js"
import * as LostAppends from "./internal/lostAppends.js"
import * as RedisConnection from "./RedisConnection.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Bytes of events kept per session, the newest (as the module counts them; default 2 MiB). */
  readonly maxBytesPerSession?: number
  /**
   * Bytes of events kept across every session of the deployment (as the module counts them;
   * default 64 MiB): past it the session holding the most loses its oldest events.
   */
  readonly maxBytes?: number
  /** Events kept per stream, the newest (default 1000). */
  readonly maxEventsPerStream?: number
  /** Streams kept per session, the newest (default 100): older ones can no longer be resumed. */
  readonly maxStreamsPerSession?: number
  /**
   * How long the events of a session with no record on this Redis are kept after its last one
   * (default 5 minutes, the HTTP layer's default `sessionIdleTimeout`; set it to yours when
   * sessions are not shared). A session with a record (`RedisSessionStore`) keeps them as long as
   * the record lives.
   */
  readonly ttl?: Duration.DurationInput
}

/**
 * The store, with what it holds in Redis.
 *
 * @since 0.1.0
 * @category models
 */
export interface RedisEventStore extends EventStore.Service {
  /**
   * The bytes held as the bounds count them: by one session (what `maxBytesPerSession` bounds),
   * or (without one) by all (what `maxBytes` bounds).
   */
  readonly bytes: (sessionId?: string) => Effect.Effect<number, RedisConnection.RedisUnavailable>
  /** The memory Redis uses for one session's keys (`MEMORY USAGE`, every key summed). */
  readonly memoryUsage: (sessionId: string) => Effect.Effect<number, RedisConnection.RedisUnavailable>
}

// Shared by the scripts: ARGV[1] the prefix, ARGV[2] the session.
const common = `
local P = ARGV[1]
` + Events.lua + `
local k = eventKeys(ARGV[2])
-- Forgets stream s of session c (its events and records).
local function drop(c, s)
  local had = redis.call('HEXISTS', c.meta, 'l:' .. s) == 1
  local gone = tonumber(redis.call('HGET', c.meta, 'b:' .. s) or '0') + (had and STREAM_OVERHEAD or 0)
  redis.call('DEL', c.s .. s)
  redis.call('HDEL', c.meta, 'l:' .. s, 'f:' .. s, 'b:' .. s)
  redis.call('ZREM', c.heads, s)
  redis.call('ZREM', c.streams, s)
  if gone ~= 0 then redis.call('HINCRBY', c.meta, 'bytes', -gone) end
end
-- Stream s of session c: its last position, first kept one and number kept (nil when unknown). A
-- stream whose list Redis no longer has (it expired) while its records say it keeps events is dropped.
local function kept(c, s)
  local last = redis.call('HGET', c.meta, 'l:' .. s)
  if not last then return nil end
  last = tonumber(last)
  local first = tonumber(redis.call('HGET', c.meta, 'f:' .. s) or (last + 1))
  local len = redis.call('LLEN', c.s .. s)
  if len == 0 and last >= first then
    drop(c, s)
    return nil
  end
  return last, first, len
end
-- The oldest kept event of stream s of session c goes.
local function evictFirst(c, s)
  local key = c.s .. s
  local e = redis.call('LPOP', key)
  if not e then
    kept(c, s)
    redis.call('ZREM', c.heads, s)
    return
  end
  local size = sizeOf(e)
  redis.call('HINCRBY', c.meta, 'f:' .. s, 1)
  redis.call('HINCRBY', c.meta, 'b:' .. s, -size)
  redis.call('HINCRBY', c.meta, 'bytes', -size)
  local following = redis.call('LINDEX', key, 0)
  if following then redis.call('ZADD', c.heads, arrivalOf(following), s) else redis.call('ZREM', c.heads, s) end
end
-- Sessions whose keys expired leave the sums (at most \`limit\` of them).
local function prune(now, limit)
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', EXPIRY, '-inf', now, 'LIMIT', 0, limit)) do
    local ttl = redis.call('PTTL', eventKeys(id).meta)
    if ttl > 0 then redis.call('ZADD', EXPIRY, now + ttl, id) else forgetEvents(id) end
  end
end
-- Past \`max\` bytes across sessions, the session holding the most gives up its oldest event (its oldest
-- stream's record once it has none, itself once it has no stream), again until the sum is under.
local function trimTotal(max)
  while tonumber(redis.call('GET', TOTAL) or '0') > max do
    local largest = redis.call('ZREVRANGE', HELD, 0, 0)[1]
    if not largest then
      redis.call('DEL', TOTAL)
      return
    end
    local c = eventKeys(largest)
    if redis.call('EXISTS', c.meta) == 0 then
      forgetEvents(largest)
    else
      local s = redis.call('ZRANGE', c.heads, 0, 0)[1]
      if s then
        evictFirst(c, s)
      else
        s = redis.call('ZRANGE', c.streams, 0, 0)[1]
        if s then drop(c, s) else forgetEvents(largest) end
      end
      account(c)
    end
  end
end
`

/** Appends one event; 1 when stored, 0 when its position is not past the stream's last (ignored). */
const appendScript: RedisConnection.Script = {
  name: "mcpEventStoreAppend",
  numberOfKeys: 0,
  // ARGV: prefix, session, stream, seq, data, maxBytes, maxEvents, maxStreams, ttl (ms), maxTotal
  lua: common + `
local s, seq, data = ARGV[3], tonumber(ARGV[4]), ARGV[5]
local maxBytes, maxEvents, maxStreams, ttl, maxTotal =
  tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[10])
local now = nowMillis()
prune(now, 16)
local key = k.s .. s
local last, first, len = kept(k, s)
if last and seq <= last then return 0 end
local n = redis.call('HINCRBY', k.meta, 'n', 1)
if not last then
  -- A new stream (a list left by records Redis dropped is not counted: it goes).
  redis.call('DEL', key)
  redis.call('HSET', k.meta, 'f:' .. s, seq, 'b:' .. s, 0)
  redis.call('HINCRBY', k.meta, 'bytes', STREAM_OVERHEAD)
  redis.call('ZADD', k.streams, n, s)
  while redis.call('ZCARD', k.streams) > maxStreams do drop(k, redis.call('ZRANGE', k.streams, 0, 0)[1]) end
elseif seq > last + 1 or len ~= last - first + 1 then
  -- A gap (appends lost): what it kept can no longer be replayed whole; it starts again past the gap.
  redis.call('HINCRBY', k.meta, 'bytes', -tonumber(redis.call('HGET', k.meta, 'b:' .. s) or '0'))
  redis.call('DEL', key)
  redis.call('HSET', k.meta, 'f:' .. s, seq, 'b:' .. s, 0)
  redis.call('ZREM', k.heads, s)
end
local entry = n .. ':' .. data
local size = sizeOf(entry)
redis.call('RPUSH', key, entry)
redis.call('HSET', k.meta, 'l:' .. s, seq)
redis.call('HINCRBY', k.meta, 'b:' .. s, size)
redis.call('HINCRBY', k.meta, 'bytes', size)
redis.call('ZADD', k.heads, 'NX', n, s)
while redis.call('LLEN', key) > maxEvents do evictFirst(k, s) end
while tonumber(redis.call('HGET', k.meta, 'bytes') or '0') > maxBytes do
  local oldest = redis.call('ZRANGE', k.heads, 0, 0)[1]
  if not oldest then break end
  evictFirst(k, oldest)
end
-- As long as the session's record lives (the session store keeps both alive together), else \`ttl\`.
local lives = redis.call('PTTL', SESSION .. k.id)
if lives > 0 then ttl = lives end
for _, key in ipairs({k.meta, k.heads, k.streams, key}) do redis.call('PEXPIRE', key, ttl) end
account(k)
redis.call('ZADD', EXPIRY, now + ttl, k.id)
trimTotal(maxTotal)
return 1
`
}

/**
 * The events of a stream after a position: 0 when the stream is unknown, else its last position
 * and, when it is past the one asked for, either "evicted" or "ok" and the data of the events
 * after the one asked for.
 */
const afterScript: RedisConnection.Script = {
  name: "mcpEventStoreAfter",
  numberOfKeys: 0,
  // ARGV: prefix, session, stream, seq
  lua: common + `
local s, seq = ARGV[3], tonumber(ARGV[4])
local last, first, len = kept(k, s)
if not last then
  account(k)
  return 0
end
if seq >= last then return {last} end
if len ~= last - first + 1 or seq + 1 < first then return {last, 'evicted'} end
local out = {last, 'ok'}
for _, e in ipairs(redis.call('LRANGE', k.s .. s, seq + 1 - first, -1)) do
  table.insert(out, string.sub(e, string.find(e, ':', 1, true) + 1))
end
return out
`
}

/**
 * A lost append is recorded: the stream's last position is at least `seq`, and what it kept
 * before can no longer be replayed whole (nothing when the stream is unknown).
 */
const markScript: RedisConnection.Script = {
  name: "mcpEventStoreMark",
  numberOfKeys: 0,
  // ARGV: prefix, session, stream, seq
  lua: common + `
local s, seq = ARGV[3], tonumber(ARGV[4])
local last = redis.call('HGET', k.meta, 'l:' .. s)
if not last or seq <= tonumber(last) then return 0 end
redis.call('HINCRBY', k.meta, 'bytes', -tonumber(redis.call('HGET', k.meta, 'b:' .. s) or '0'))
redis.call('DEL', k.s .. s)
redis.call('HSET', k.meta, 'l:' .. s, seq, 'f:' .. s, seq + 1, 'b:' .. s, 0)
redis.call('ZREM', k.heads, s)
account(k)
return 0
`
}

const clearScript: RedisConnection.Script = {
  name: "mcpEventStoreClear",
  numberOfKeys: 0,
  // ARGV: prefix, session
  lua: common + `
forgetEvents(k.id)
return 0
`
}

const usageScript: RedisConnection.Script = {
  name: "mcpEventStoreUsage",
  numberOfKeys: 0,
  // ARGV: prefix, session
  lua: common + `
local total = 0
local keys = {k.meta, k.heads, k.streams}
for _, s in ipairs(streamsOf(k)) do table.insert(keys, k.s .. s) end
for _, key in ipairs(keys) do total = total + (redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0') or 0) end
return total
`
}

/** A position as a script answers it (a Lua number, or what `HGET` read). */
const Position = Schema.Union(Schema.Int, Schema.compose(Schema.NumberFromString, Schema.Int))

/** What `afterScript` answers (`EVAL` replies are untyped: decoded, a reply that is not one is lost). */
const AfterReply = Schema.Union(
  Schema.Literal(0),
  Schema.Tuple(Position),
  Schema.Tuple(Position, Schema.Literal("evicted")),
  Schema.Tuple([Position, Schema.Literal("ok")], Schema.String)
)
const decodeAfterReply = Schema.decodeUnknownEither(AfterReply)

/**
 * The replay of a stream after `seq`, from what `afterScript` answered (undefined when the
 * events after `seq` cannot be replayed whole: evicted, or lost).
 */
const replay = (
  streamId: string,
  seq: number,
  reply: typeof AfterReply.Type
): ReadonlyArray<EventStore.Event> | "unknown-stream" | undefined => {
  if (reply === 0) return "unknown-stream"
  const [last, verdict, ...data] = reply
  // Past the last it knows: the client saw events whose appends were lost.
  if (seq > last) return undefined
  if (seq === last) return []
  if (verdict !== "ok") return undefined
  if (data.length !== last - seq) return undefined
  return data.map((d, i) => ({ id: EventStore.eventId(streamId, seq + 1 + i), data: d }))
}

/** Lost appends remembered by one process until Redis records them, at most this many streams. */
const maxLost = 10_000

/** The options with their defaults, each a positive integer (a defect otherwise). */
const limitsOf = (options: Options) =>
  Effect.gen(function*() {
    const limits = {
      maxBytesPerSession: options.maxBytesPerSession ?? 2 * 1024 * 1024,
      maxBytes: options.maxBytes ?? 64 * 1024 * 1024,
      maxEventsPerStream: options.maxEventsPerStream ?? 1000,
      maxStreamsPerSession: options.maxStreamsPerSession ?? 100,
      ttl: Math.ceil(Duration.toMillis(options.ttl ?? Duration.minutes(5)))
    }
    for (const [name, value] of Object.entries(limits)) {
      if (!Number.isSafeInteger(value) || value <= 0) {
        const what = name === "ttl" ? "ttl (in milliseconds)" : name
        return yield* Effect.dieMessage(`${what} must be a positive integer (got ${value})`)
      }
    }
    return limits
  })

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
    const limits = yield* limitsOf(options)
    const redis = yield* RedisConnection.RedisConnection
    const prefix = redis.prefix
    const lost = yield* LostAppends.make(maxLost)
    const warn = yield* Loss.throttled()
    const lose = yield* Loss.make

    // Records what was lost, once Redis answers again.
    yield* Effect.forkScoped(
      Effect.repeat(
        Effect.ignore(Effect.flatMap(lost.all, (all) =>
          Effect.forEach(
            all,
            (one) =>
              Effect.zipRight(
                redis.eval(markScript, [], [prefix, one.sessionId, one.streamId, one.seq]),
                lost.recorded(one)
              ),
            { discard: true }
          ))),
        Schedule.spaced(Duration.seconds(1))
      )
    )

    const append: EventStore.Service["append"] = (sessionId, event) =>
      Effect.suspend(() => {
        const parsed = EventStore.parseEventId(event.id)
        if (parsed === undefined || !Number.isSafeInteger(parsed.seq)) {
          return Effect.void
        }
        return Effect.catchAll(
          redis.eval(appendScript, [], [
            prefix,
            sessionId,
            parsed.streamId,
            String(parsed.seq),
            event.data,
            limits.maxBytesPerSession,
            limits.maxEventsPerStream,
            limits.maxStreamsPerSession,
            limits.ttl,
            limits.maxBytes
          ]),
          (error) =>
            Effect.zipRight(
              lost.remember({ sessionId, streamId: parsed.streamId, seq: parsed.seq }),
              warn(`an SSE event could not be stored in Redis (${error.message}); resuming across it is refused`)
            )
        )
      })

    const after: EventStore.Service["after"] = (sessionId, lastEventId) =>
      Effect.gen(function*() {
        const unavailable = (reason: EventStore.EventsUnavailable["reason"]) =>
          new EventStore.EventsUnavailable({ lastEventId, reason })
        const parsed = EventStore.parseEventId(lastEventId)
        if (parsed === undefined) return yield* unavailable("unknown-stream")
        const { seq, streamId } = parsed
        const lostAt = yield* lost.lostAt(sessionId, streamId)
        if (lostAt !== undefined && lostAt > seq) return yield* unavailable("evicted")
        const reply = yield* Effect.mapError(
          redis.eval(afterScript, [], [prefix, sessionId, streamId, String(seq)]),
          () => unavailable("unavailable")
        )
        const decoded = decodeAfterReply(reply)
        if (Either.isLeft(decoded)) {
          // The events after `seq` are lost with the reply: not replayed whole.
          yield* lose("reply", `the events of a stream of session ${sessionId}`, decoded.left)
          return yield* unavailable("evicted")
        }
        const events = replay(streamId, seq, decoded.right)
        if (events === undefined || events === "unknown-stream") {
          return yield* unavailable(events ?? "evicted")
        }
        return events
      })

    const clear: EventStore.Service["clear"] = (sessionId) =>
      Effect.zipRight(
        lost.forget(sessionId),
        Effect.catchAll(
          Effect.asVoid(redis.eval(clearScript, [], [prefix, sessionId])),
          (error) => warn(`a session's events could not be removed from Redis (${error.message}); they expire`)
        )
      )

    return {
      ready: redis.isReady,
      append,
      after,
      clear,
      bytes: (sessionId) =>
        Effect.map(
          redis.use((r) =>
            sessionId === undefined
              ? r.get(`${prefix}${Format.events}total`)
              : r.hget(`${prefix}${Format.events}{${sessionId}}:meta`, "bytes")
          ),
          (bytes) => Number(bytes ?? 0)
        ),
      memoryUsage: (sessionId) => Effect.map(redis.eval(usageScript, [], [prefix, sessionId]), Number)
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
