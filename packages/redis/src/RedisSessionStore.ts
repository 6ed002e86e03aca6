/**
 * Handshake sessions on Redis: a session begun on one instance is served by any other, behind a
 * load balancer with no affinity (the server's `SessionStore`).
 *
 * **What Redis holds, per session**: its record (`<prefix>session.v2:<id>`, one string: legacy or
 * not, a cursor in the change log, the handshake's state as JSON, the subject), with a TTL of the
 * idle timeout, refreshed by activity (each instance touches a session it serves at most once a
 * second, and every sweep one whose GET stream or request it holds open); and one entry in a
 * sorted set of the live sessions by expiry (`<prefix>sessions`), which makes `maxSessions` hold
 * over the cluster: a session is counted from its creation until its record expires or is
 * removed, checked and added in one script, with Redis's own clock. The state is kept deflated:
 * an idle session of the demo server takes about 540 bytes (`MEMORY USAGE`: about 400 its
 * record, 134 its entry in the set), a little more when the client and the server declare more.
 *
 * **Its events go with it.** When the event store is `RedisEventStore` on the same Redis and
 * prefix, every write of the record (create, touch, update) gives the session's events the same
 * TTL, and `remove` deletes them: they expire with the session, idle or not, whatever instance
 * served it last.
 *
 * **What travels**: changes to records (`<prefix>session-changes`, each instance refreshes its
 * replicas), messages for one instance (`<prefix>inbox:<key>`: a client's answer to a request
 * that instance sent) or for all (`<prefix>inbox`: a cancellation), and frames for a session's
 * standalone stream (`<prefix>standalone:<id>`), published to the instance holding it, or kept
 * while the session lives (the newest 100 and 256 KiB, each frame at most 256 KiB, 16 MiB across
 * sessions) in `<prefix>pending:<id>` for the next one when none does.
 *
 * **Changes nobody told it.** The instance holding a session's GET stream tells it of list
 * changes and resource updates as they come. While none holds it (its instance was killed, or the
 * client was away), nobody does: the next instance to hold it reads the bus's change log
 * (`RedisNotificationBus`) after the session's cursor and tells it of each list and resource
 * that changed meanwhile, once (every list, when the log no longer reaches back that far). The
 * cursor moves to 5 seconds ago whenever the holding instance touches the record or lets the
 * stream go, so a change is told at least once, and twice at most when it came within those
 * seconds or since the last touch of an instance that died.
 *
 * **The instance key**: each instance claims a key of its own (`<prefix>instance:<key>`, renewed
 * every 10 seconds, lapsing 30 seconds after its instance died); the requests it sends to
 * clients carry ids in that key's range, which is how an answer finds its way back.
 *
 * **The format in the keys.** A record's key names its format (`session.v2:`, and the event
 * store's `events.v2:`): instances of an earlier version of this package on the same Redis (whose
 * record was a hash under `session:<id>`, its events Redis Streams) and of this one never read
 * each other's records, which would fail with WRONGTYPE. During a rolling upgrade a session lives
 * on the instances of its own version: a request that reaches one of the other gets 404, and its
 * client initializes again, as the specification has it do; the earlier keys expire by their TTL.
 *
 * **Redis down**: every operation fails with `SessionStoreUnavailable` (the request is answered
 * 503 with a JSON-RPC error); the connection comes back by itself. A Redis restart without
 * persistence loses every session (their clients get 404 and initialize again, as the
 * specification has them do); with AOF or RDB persistence, what Redis kept carries on.
 *
 * @since 0.1.0
 */
import type { JsonRpc } from "@effect-mcp/core"
import * as NotificationBus from "@effect-mcp/server/NotificationBus"
import * as SessionStore from "@effect-mcp/server/SessionStore"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Zlib from "node:zlib"
import * as Changes from "./internal/changes.js"
import * as Events from "./internal/events.js"
import * as Format from "./internal/format.js"
import * as RedisConnection from "./RedisConnection.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Frames kept for a standalone stream no instance holds (default 100, the newest). */
  readonly maxPendingFrames?: number
  /** Bytes (UTF-8) of one frame kept so (default 256 KiB; a longer one is not kept). */
  readonly maxPendingFrameLength?: number
  /** Bytes (UTF-8) of the frames kept so for one session, the newest (default 256 KiB). */
  readonly maxPendingBytes?: number
  /** Bytes of the frames kept so across sessions (default 16 MiB): past it, a frame is not kept. */
  readonly maxPendingTotalBytes?: number
}

/**
 * What the scripts share. A record is one string: `<legacy 0|1> <cursor> <subject's bytes>`, a
 * newline, the subject (none: empty) and the state's JSON, deflated. The cursor is an id of the
 * change log: changes after it may not have reached the session's GET stream.
 * ARGV[1] is the prefix, ARGV[2] the session.
 */
const prelude = `
local P, id = ARGV[1], ARGV[2]
` + Events.lua + Changes.lua + `
local record, live = SESSION .. id, P .. 'sessions'
local function parseRecord(v)
  local head = string.find(v, '\\n', 1, true)
  local legacy, cursor, length = string.match(string.sub(v, 1, head - 1), '^(%d) (%S+) (%d+)$')
  local subject = string.sub(v, head + 1, head + tonumber(length))
  return legacy, cursor, subject, string.sub(v, head + tonumber(length) + 1)
end
local function recordOf(legacy, cursor, subject, state)
  return legacy .. ' ' .. cursor .. ' ' .. #subject .. '\\n' .. subject .. state
end
-- The frames kept for a session's GET stream go, and leave the sum across sessions.
local function forgetPending(sid)
  local bytes = tonumber(redis.call('GET', P .. 'pending-bytes:' .. sid) or '0')
  redis.call('DEL', P .. 'pending:' .. sid, P .. 'pending-bytes:' .. sid)
  if bytes ~= 0 then redis.call('DECRBY', P .. 'pending:total', bytes) end
end
-- Expired sessions leave the live set, their events and frames with them (from the sums too): the
-- first 200 of them (the next calls take the rest; the live ones are counted by their expiry).
local function pruneLive(now)
  for _, gone in ipairs(redis.call('ZRANGEBYSCORE', live, '-inf', now, 'LIMIT', 0, 200)) do
    if redis.call('EXISTS', SESSION .. gone) == 0 then
      forgetEvents(gone)
      forgetPending(gone)
    end
    redis.call('ZREM', live, gone)
  end
end
-- The cursor moves to slack ms ago (never back): what changed before, the instance holding the stream told.
local function advance(now, slack)
  local v = redis.call('GET', record)
  if not v then return end
  local legacy, cursor, subject, state = parseRecord(v)
  local to = (now - slack) .. '-0'
  if idAfter(to, cursor) then redis.call('SET', record, recordOf(legacy, to, subject, state), 'KEEPTTL') end
end
`

const createScript: RedisConnection.Script = {
  name: "mcpSessionCreate",
  numberOfKeys: 0,
  // ARGV: prefix, id, legacy, subject, state, ttl, max.
  lua: prelude + `
local now = nowMillis()
pruneLive(now)
if redis.call('ZCOUNT', live, '(' .. now, '+inf') >= tonumber(ARGV[7]) then return 0 end
if redis.call('EXISTS', record) == 1 then return -1 end
redis.call('SET', record, recordOf(ARGV[3], now .. '-0', ARGV[4], ARGV[5]), 'PX', ARGV[6])
redis.call('ZADD', live, now + tonumber(ARGV[6]), id)
-- Events its initialize stream stored before it existed live as long as it now.
extendEvents(id, tonumber(ARGV[6]), now)
return 1`
}

const updateScript: RedisConnection.Script = {
  name: "mcpSessionUpdate",
  numberOfKeys: 0,
  // ARGV: prefix, id, state, ttl, channel, change.
  lua: prelude + `
local v = redis.call('GET', record)
if not v then return 0 end
local now = nowMillis()
local legacy, cursor, subject = parseRecord(v)
redis.call('SET', record, recordOf(legacy, cursor, subject, ARGV[3]), 'PX', ARGV[4])
redis.call('ZADD', live, now + tonumber(ARGV[4]), id)
extendEvents(id, tonumber(ARGV[4]), now)
redis.call('PUBLISH', ARGV[5], ARGV[6])
return 1`
}

const touchScript: RedisConnection.Script = {
  name: "mcpSessionTouch",
  numberOfKeys: 0,
  // ARGV: prefix, id, ttl, held here (1: the cursor moves), slack.
  lua: prelude + `
if redis.call('PEXPIRE', record, ARGV[3]) == 0 then
  -- Gone: what was still kept for it (events appended since it expired) goes too.
  redis.call('ZREM', live, id)
  forgetEvents(id)
  forgetPending(id)
  return 0
end
local now = nowMillis()
redis.call('ZADD', live, now + tonumber(ARGV[3]), id)
extendEvents(id, tonumber(ARGV[3]), now)
if ARGV[4] == '1' then advance(now, tonumber(ARGV[5])) end
return 1`
}

const removeScript: RedisConnection.Script = {
  name: "mcpSessionRemove",
  numberOfKeys: 0,
  // ARGV: prefix, id, channel, change.
  lua: prelude + `
redis.call('DEL', record)
redis.call('ZREM', live, id)
forgetPending(id)
forgetEvents(id)
redis.call('PUBLISH', ARGV[3], ARGV[4])
return 1`
}

const advanceScript: RedisConnection.Script = {
  name: "mcpSessionAdvance",
  numberOfKeys: 0,
  // ARGV: prefix, id, slack.
  lua: prelude + `
advance(nowMillis(), tonumber(ARGV[3]))
return 1`
}

/**
 * The changes logged after the session's cursor: their events, or 'all' when some were trimmed off
 * the log (or the session is gone: nothing then).
 */
const missedScript: RedisConnection.Script = {
  name: "mcpSessionMissed",
  numberOfKeys: 0,
  // ARGV: prefix, id.
  lua: prelude + `
local v = redis.call('GET', record)
if not v then return {} end
local _, cursor = parseRecord(v)
local cut = redis.call('GET', P .. 'changes:cut')
-- Entries after the cursor were trimmed off: which is not known any more.
if cut and idAfter(cut, cursor) then return 'all' end
local out = {}
for _, entry in ipairs(redis.call('XRANGE', P .. 'changes', '(' .. cursor, '+')) do
  local fields = entry[2]
  for i = 1, #fields, 2 do
    if fields[i] == 'e' then table.insert(out, fields[i + 1]) end
  end
end
return out`
}

const toStandaloneScript: RedisConnection.Script = {
  name: "mcpSessionToStandalone",
  numberOfKeys: 0,
  // ARGV: prefix, id, channel, frame, max, maxBytes, maxTotal. Kept while the session lives, for the next holder:
  // 1 when published, 0 when kept, -1 when not (the session is gone), -2 when not (the sum across sessions is full).
  lua: prelude + `
if redis.call('PUBLISH', ARGV[3], ARGV[4]) > 0 then return 1 end
if redis.call('EXISTS', record) == 0 then return -1 end
local size, total = #ARGV[4], P .. 'pending:total'
if tonumber(redis.call('GET', total) or '0') + size > tonumber(ARGV[7]) then return -2 end
local pending, bytes = P .. 'pending:' .. id, P .. 'pending-bytes:' .. id
redis.call('RPUSH', pending, ARGV[4])
local held = redis.call('INCRBY', bytes, size)
redis.call('INCRBY', total, size)
while redis.call('LLEN', pending) > tonumber(ARGV[5]) or held > tonumber(ARGV[6]) do
  local gone = redis.call('LPOP', pending)
  if not gone then break end
  held = redis.call('DECRBY', bytes, #gone)
  redis.call('DECRBY', total, #gone)
end
return 0`
}

const takePendingScript: RedisConnection.Script = {
  name: "mcpSessionTakePending",
  numberOfKeys: 0,
  // ARGV: prefix, id.
  lua: prelude + `
local frames = redis.call('LRANGE', P .. 'pending:' .. id, 0, -1)
forgetPending(id)
return frames`
}

const claimScript: RedisConnection.Script = {
  name: "mcpInstanceClaim",
  numberOfKeys: 1,
  // KEYS: the key's claim. ARGV: this instance's token, ttl. Claims it, or renews our claim.
  lua: `
local held = redis.call('GET', KEYS[1])
if held == false then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
if held == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0`
}

const claimTtl = 30_000
const maxKey = 2 ** 20 - 1

/** A record as stored (see `prelude`), or undefined when it is not one. */
const parseRecord = (value: Buffer): Omit<SessionStore.SessionRecord, "id"> | undefined => {
  const head = value.indexOf(0x0a)
  const header = head < 0 ? undefined : /^([01]) \S+ (\d+)$/.exec(value.subarray(0, head).toString("latin1"))
  if (header === undefined || header === null) return undefined
  const length = Number(header[2])
  const subject = value.subarray(head + 1, head + 1 + length).toString("utf8")
  let state: Record<string, unknown>
  try {
    state = JSON.parse(Zlib.inflateRawSync(value.subarray(head + 1 + length)).toString("utf8"))
  } catch {
    return undefined
  }
  return { legacy: header[1] === "1", subject: subject === "" ? undefined : subject, state }
}

/** A state as a record holds it: its JSON, deflated (a few hundred bytes, not a KB). */
const packState = (state: Readonly<Record<string, unknown>>): Buffer => Zlib.deflateRawSync(JSON.stringify(state))

const unavailable = (error: RedisConnection.RedisUnavailable) =>
  new SessionStore.SessionStoreUnavailable({ cause: error })

interface Envelope {
  readonly origin: number
  readonly sessionId: string
  readonly message: JsonRpc.Message
}

/**
 * The store, on the connection in context, for the scope's life: it claims this instance's key
 * first.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: Options = {}
): Effect.Effect<
  SessionStore.Service,
  RedisConnection.RedisUnavailable,
  RedisConnection.RedisConnection | Scope.Scope
> =>
  Effect.gen(function*() {
    const redis = yield* RedisConnection.RedisConnection
    const prefix = redis.prefix
    const maxPending = options.maxPendingFrames ?? 100
    const maxFrame = options.maxPendingFrameLength ?? 256 * 1024
    const maxPendingBytes = options.maxPendingBytes ?? 256 * 1024
    const maxPendingTotal = options.maxPendingTotalBytes ?? 16 * 1024 * 1024
    const sessionKey = (id: string) => `${prefix}${Format.session}${id}`
    const changesChannel = `${prefix}session-changes`
    const broadcastChannel = `${prefix}inbox`
    const inboxOf = (key: number) => `${prefix}inbox:${key}`
    const standaloneOf = (id: string) => `${prefix}standalone:${id}`

    // This instance's key: claimed, then renewed while the scope lasts.
    const token = crypto.randomUUID()
    let key = 0
    for (let attempt = 0; key === 0; attempt++) {
      const candidate = 1 + Math.floor(Math.random() * maxKey)
      const claimed = yield* redis.eval(claimScript, [`${prefix}instance:${candidate}`], [token, claimTtl])
      if (claimed === 1) key = candidate
      else if (attempt > 100) return yield* new RedisConnection.RedisUnavailable({ cause: "no instance key is free" })
    }
    const claimKey = `${prefix}instance:${key}`
    yield* redis.eval(claimScript, [claimKey], [token, claimTtl]).pipe(
      Effect.flatMap((renewed) =>
        renewed === 1
          ? Effect.void
          : Effect.logError(`effect-mcp: this instance's key ${key} was taken by another (it lapsed)`)
      ),
      Effect.catchAll((error) => Effect.logWarning("effect-mcp: could not renew this instance's key", error)),
      Effect.repeat(Schedule.spaced(claimTtl / 3)),
      Effect.delay(claimTtl / 3),
      Effect.interruptible,
      Effect.forkScoped
    )
    // Given back on the way out, if Redis answers in time (else it lapses after claimTtl).
    yield* Effect.addFinalizer(() =>
      redis.use((r) => r.del(claimKey)).pipe(
        Effect.interruptible,
        Effect.timeoutOption(redis.closeTimeout),
        Effect.ignore
      )
    )

    // One subscription each for changes and for this instance's messages, fanned out here.
    const changes = yield* Effect.acquireRelease(PubSub.unbounded<SessionStore.Change>(), PubSub.shutdown)
    const inbox = yield* Effect.acquireRelease(PubSub.sliding<SessionStore.Delivery>(10_000), PubSub.shutdown)
    /** Relays what `channel` carries into `into`: decoded (null: not for us; undefined: malformed). */
    const relay = <A>(
      channel: string,
      decode: (u: unknown) => A | null | undefined,
      into: PubSub.PubSub<A>
    ) =>
      Effect.gen(function*() {
        const deliveries = yield* redis.subscribe(channel)
        yield* Queue.take(deliveries).pipe(
          Effect.flatMap((delivery) => {
            if (delivery._tag !== "Message") return Effect.void
            let value: A | null | undefined
            try {
              value = decode(JSON.parse(delivery.payload))
            } catch {
              value = undefined
            }
            if (value === null) return Effect.void
            return value === undefined
              ? Effect.logWarning(`effect-mcp: a malformed message on ${channel} was skipped`)
              : PubSub.publish(into, value)
          }),
          Effect.forever,
          Effect.interruptible,
          Effect.forkScoped
        )
      })
    const asChange = (u: unknown): SessionStore.Change | undefined => {
      const c = u as { id?: unknown; state?: unknown; origin?: unknown }
      if (typeof c.id !== "string" || typeof c.origin !== "number") return undefined
      return {
        id: c.id,
        origin: c.origin,
        state: typeof c.state === "object" && c.state !== null ? c.state as Record<string, unknown> : undefined
      }
    }
    /** A delivery (null: one this instance broadcast itself). */
    const asDelivery = (u: unknown): SessionStore.Delivery | null | undefined => {
      const e = u as Partial<Envelope>
      if (typeof e.sessionId !== "string" || typeof e.message !== "object" || e.message === null) return undefined
      return e.origin === key ? null : { sessionId: e.sessionId, message: e.message }
    }
    yield* relay(changesChannel, asChange, changes)
    yield* relay(inboxOf(key), asDelivery, inbox)
    yield* relay(broadcastChannel, asDelivery, inbox)

    const change = (id: string, state: Readonly<Record<string, unknown>> | undefined) =>
      JSON.stringify({ id, state: state ?? null, origin: key })

    /** The sessions whose standalone stream this instance holds (how many holds each). */
    const held = new Map<string, number>()
    const cursorSlack = 5_000

    const service: SessionStore.Service = {
      ready: redis.isReady,
      key,
      create: (record, { maxSessions, ttlMillis }) =>
        Effect.mapError(
          Effect.map(
            redis.eval(createScript, [], [
              prefix,
              record.id,
              record.legacy ? "1" : "0",
              record.subject ?? "",
              packState(record.state),
              Math.max(1, Math.round(ttlMillis)),
              maxSessions
            ]),
            (created) => created === 1
          ),
          unavailable
        ),
      get: (id) =>
        Effect.mapError(
          Effect.map(redis.use((r) => r.getBuffer(sessionKey(id))), (value) => {
            const parsed = value === null ? undefined : parseRecord(value)
            return parsed === undefined ? Option.none() : Option.some({ id, ...parsed })
          }),
          unavailable
        ),
      update: (id, state, ttlMillis) =>
        Effect.mapError(
          Effect.map(
            redis.eval(updateScript, [], [
              prefix,
              id,
              packState(state),
              Math.max(1, Math.round(ttlMillis)),
              changesChannel,
              change(id, state)
            ]),
            (updated) => updated === 1
          ),
          unavailable
        ),
      touch: (id, ttlMillis) =>
        Effect.mapError(
          Effect.map(
            redis.eval(touchScript, [], [
              prefix,
              id,
              Math.max(1, Math.round(ttlMillis)),
              held.has(id) ? "1" : "0",
              cursorSlack
            ]),
            (alive) => alive === 1
          ),
          unavailable
        ),
      remove: (id) =>
        Effect.mapError(
          Effect.asVoid(redis.eval(removeScript, [], [prefix, id, changesChannel, change(id, undefined)])),
          unavailable
        ),
      changes: Stream.fromPubSub(changes),
      send: (target, delivery) =>
        Effect.mapError(
          Effect.asVoid(
            redis.use((r) =>
              r.publish(inboxOf(target), JSON.stringify({ ...delivery, origin: key } satisfies Envelope))
            )
          ),
          unavailable
        ),
      broadcast: (delivery) =>
        Effect.mapError(
          Effect.asVoid(
            redis.use((r) =>
              r.publish(broadcastChannel, JSON.stringify({ ...delivery, origin: key } satisfies Envelope))
            )
          ),
          unavailable
        ),
      inbox: Stream.fromPubSub(inbox),
      toStandalone: (sessionId, frame) =>
        // In bytes, as Redis holds it and as the script counts the session's frames (`#`).
        frame.length > maxFrame || Buffer.byteLength(frame, "utf8") > maxFrame
          ? Effect.logWarning("effect-mcp: a frame too long to keep for a stream elsewhere was dropped")
          : Effect.mapError(
            Effect.flatMap(
              redis.eval(toStandaloneScript, [], [
                prefix,
                sessionId,
                standaloneOf(sessionId),
                frame,
                maxPending,
                maxPendingBytes,
                maxPendingTotal
              ]),
              (kept) =>
                kept === -2
                  ? Effect.logDebug(
                    "effect-mcp: a frame for a stream nobody holds was not kept (the store's sum is full)"
                  )
                  : Effect.void
            ),
            unavailable
          ),
      holdStandalone: (sessionId) =>
        Effect.gen(function*() {
          const deliveries = yield* Effect.mapError(redis.subscribe(standaloneOf(sessionId)), unavailable)
          const frames = yield* Effect.acquireRelease(Queue.sliding<string>(1_000), Queue.shutdown)
          // Held here until the scope closes; then what changed until a moment ago, this instance told it.
          yield* Effect.acquireRelease(
            Effect.sync(() => held.set(sessionId, (held.get(sessionId) ?? 0) + 1)),
            () =>
              Effect.suspend(() => {
                const holds = (held.get(sessionId) ?? 1) - 1
                if (holds > 0) held.set(sessionId, holds)
                else held.delete(sessionId)
                return Effect.ignore(redis.eval(advanceScript, [], [prefix, sessionId, cursorSlack]))
              })
          )
          const kept = yield* Effect.mapError(redis.eval(takePendingScript, [], [prefix, sessionId]), unavailable)
          if (Array.isArray(kept)) {
            for (const frame of kept) if (typeof frame === "string") frames.unsafeOffer(frame)
          }
          yield* Queue.take(deliveries).pipe(
            Effect.flatMap((delivery) =>
              delivery._tag === "Message" ? Queue.offer(frames, delivery.payload) : Effect.void
            ),
            Effect.forever,
            Effect.interruptible,
            Effect.forkScoped
          )
          return frames
        }),
      missed: (sessionId) =>
        Effect.mapError(
          Effect.map(redis.eval(missedScript, [], [prefix, sessionId]), (reply) => {
            if (!Array.isArray(reply)) return "all" as const
            const events: Array<NotificationBus.Event> = []
            for (const payload of reply) {
              try {
                events.push(NotificationBus.decode(JSON.parse(String(payload))))
              } catch {
                // Not an event (a foreign publisher's): skipped, as the bus skips it.
              }
            }
            return events
          }),
          unavailable
        ),
      // The stream's holder subscribes to its channel (`holdStandalone`): one holds it while the
      // channel has a subscriber.
      holding: (sessionId) =>
        Effect.mapError(
          Effect.map(
            redis.use((r) => r.pubsub("NUMSUB", standaloneOf(sessionId))),
            (reply) => Array.isArray(reply) && Number(reply[1]) > 0
          ),
          unavailable
        ),
      toHolder: (sessionId, frame) =>
        Effect.mapError(
          Effect.map(redis.use((r) => r.publish(standaloneOf(sessionId), frame)), (received) => received > 0),
          unavailable
        )
    }
    return service
  })

/**
 * The store as a layer, on the connection in context.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options?: Options
): Layer.Layer<SessionStore.SessionStore, RedisConnection.RedisUnavailable, RedisConnection.RedisConnection> =>
  Layer.scoped(SessionStore.SessionStore, make(options))
