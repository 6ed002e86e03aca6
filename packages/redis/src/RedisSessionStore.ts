/**
 * Handshake sessions on Redis: a session begun on one instance is served by any other, behind a
 * load balancer with no affinity (the server's `SessionStore`).
 *
 * **What Redis holds, per session**: one small hash (`<prefix>session:<id>`: legacy or not, the
 * subject, the handshake's state as JSON), with a TTL of the idle timeout, refreshed by activity
 * (each instance touches a session it serves at most once a second); and one entry in a sorted
 * set of the live sessions by expiry (`<prefix>sessions`), which makes `maxSessions` hold over
 * the cluster: a session is counted from its creation until its record expires or is removed,
 * checked and added in one script, with Redis's own clock. A few hundred bytes per idle
 * session.
 *
 * **What travels**: changes to records (`<prefix>session-changes`, each instance refreshes its
 * replicas), messages for one instance (`<prefix>inbox:<key>`: a client's answer to a request
 * that instance sent) or for all (`<prefix>inbox`: a cancellation), and frames for a session's
 * standalone stream (`<prefix>standalone:<id>`), published to the instance holding it, or kept
 * (the newest 100, each at most 256 KiB, for the idle timeout) in `<prefix>pending:<id>` for the
 * next one when none does.
 *
 * **The instance key**: each instance claims a key of its own (`<prefix>instance:<key>`, renewed
 * every 10 seconds, lapsing 30 seconds after its instance died); the requests it sends to
 * clients carry ids in that key's range, which is how an answer finds its way back.
 *
 * **Redis down**: every operation fails with `SessionStoreUnavailable` (the request is answered
 * 503 with a JSON-RPC error); the connection comes back by itself. A Redis restart without
 * persistence loses every session (their clients get 404 and initialize again, as the
 * specification has them do); with AOF or RDB persistence, what Redis kept carries on.
 *
 * @since 0.1.0
 */
import type { JsonRpc } from "@effect-mcp/core"
import * as SessionStore from "@effect-mcp/server/SessionStore"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as RedisConnection from "./RedisConnection.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Frames kept for a standalone stream no instance holds (default 100, the newest). */
  readonly maxPendingFrames?: number
  /** Characters of one frame kept so (default 256 KiB; a longer one is not kept). */
  readonly maxPendingFrameLength?: number
}

const createScript: RedisConnection.Script = {
  name: "mcpSessionCreate",
  numberOfKeys: 2,
  // KEYS: the session's hash, the live set. ARGV: id, legacy, subject, state, ttl, max.
  lua: `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[6]) then return 0 end
if redis.call('EXISTS', KEYS[1]) == 1 then return -1 end
redis.call('HSET', KEYS[1], 'l', ARGV[2], 's', ARGV[3], 'st', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[5]), ARGV[1])
return 1`
}

const updateScript: RedisConnection.Script = {
  name: "mcpSessionUpdate",
  numberOfKeys: 2,
  // KEYS: the session's hash, the live set. ARGV: id, state, ttl, channel, change.
  lua: `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('HSET', KEYS[1], 'st', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PUBLISH', ARGV[4], ARGV[5])
return 1`
}

const touchScript: RedisConnection.Script = {
  name: "mcpSessionTouch",
  numberOfKeys: 2,
  // KEYS: the session's hash, the live set. ARGV: id, ttl.
  lua: `
if redis.call('PEXPIRE', KEYS[1], ARGV[2]) == 0 then
  redis.call('ZREM', KEYS[2], ARGV[1])
  return 0
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), ARGV[1])
return 1`
}

const removeScript: RedisConnection.Script = {
  name: "mcpSessionRemove",
  numberOfKeys: 3,
  // KEYS: the session's hash, the live set, its pending frames. ARGV: id, channel, change.
  lua: `
redis.call('DEL', KEYS[1], KEYS[3])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 1`
}

const toStandaloneScript: RedisConnection.Script = {
  name: "mcpSessionToStandalone",
  numberOfKeys: 1,
  // KEYS: the pending frames. ARGV: channel, frame, max, ttl.
  lua: `
if redis.call('PUBLISH', ARGV[1], ARGV[2]) > 0 then return 1 end
redis.call('RPUSH', KEYS[1], ARGV[2])
redis.call('LTRIM', KEYS[1], -tonumber(ARGV[3]), -1)
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 0`
}

const takePendingScript: RedisConnection.Script = {
  name: "mcpSessionTakePending",
  numberOfKeys: 1,
  lua: `
local frames = redis.call('LRANGE', KEYS[1], 0, -1)
redis.call('DEL', KEYS[1])
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
    const sessionKey = (id: string) => `${prefix}session:${id}`
    const live = `${prefix}sessions`
    const changesChannel = `${prefix}session-changes`
    const broadcastChannel = `${prefix}inbox`
    const inboxOf = (key: number) => `${prefix}inbox:${key}`
    const standaloneOf = (id: string) => `${prefix}standalone:${id}`
    const pendingOf = (id: string) => `${prefix}pending:${id}`

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
    yield* Effect.addFinalizer(() => Effect.ignore(redis.use((r) => r.del(claimKey))))

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

    const service: SessionStore.Service = {
      ready: redis.isReady,
      key,
      create: (record, { maxSessions, ttlMillis }) =>
        Effect.mapError(
          Effect.map(
            redis.eval(createScript, [sessionKey(record.id), live], [
              record.id,
              record.legacy ? "1" : "0",
              record.subject ?? "",
              JSON.stringify(record.state),
              Math.max(1, Math.round(ttlMillis)),
              maxSessions
            ]),
            (created) => created === 1
          ),
          unavailable
        ),
      get: (id) =>
        Effect.mapError(
          Effect.map(redis.use((r) => r.hgetall(sessionKey(id))), (hash) => {
            if (hash.st === undefined) return Option.none()
            let state: Record<string, unknown>
            try {
              state = JSON.parse(hash.st)
            } catch {
              return Option.none()
            }
            return Option.some<SessionStore.SessionRecord>({
              id,
              legacy: hash.l === "1",
              subject: hash.s === undefined || hash.s === "" ? undefined : hash.s,
              state
            })
          }),
          unavailable
        ),
      update: (id, state, ttlMillis) =>
        Effect.mapError(
          Effect.map(
            redis.eval(updateScript, [sessionKey(id), live], [
              id,
              JSON.stringify(state),
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
            redis.eval(touchScript, [sessionKey(id), live], [id, Math.max(1, Math.round(ttlMillis))]),
            (alive) => alive === 1
          ),
          unavailable
        ),
      remove: (id) =>
        Effect.mapError(
          Effect.asVoid(
            redis.eval(removeScript, [sessionKey(id), live, pendingOf(id)], [id, changesChannel, change(id, undefined)])
          ),
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
        frame.length > maxFrame
          ? Effect.logWarning("effect-mcp: a frame too long to keep for a stream elsewhere was dropped")
          : Effect.mapError(
            Effect.asVoid(
              redis.eval(toStandaloneScript, [pendingOf(sessionId)], [
                standaloneOf(sessionId),
                frame,
                maxPending,
                // Kept as long as a session lives idle: the longest a next holder may take to come.
                30 * 60_000
              ])
            ),
            unavailable
          ),
      holdStandalone: (sessionId) =>
        Effect.gen(function*() {
          const deliveries = yield* Effect.mapError(redis.subscribe(standaloneOf(sessionId)), unavailable)
          const frames = yield* Effect.acquireRelease(Queue.sliding<string>(1_000), Queue.shutdown)
          const kept = yield* Effect.mapError(redis.eval(takePendingScript, [pendingOf(sessionId)], []), unavailable)
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
        })
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
