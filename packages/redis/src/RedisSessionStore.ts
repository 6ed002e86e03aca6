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
 * **What is read back** is decoded with a schema (the record, a change, a message for this
 * instance, the frames kept, the change log): one that does not decode is lost alone (a record:
 * its session is unknown here, 404), logged (at most one warning every 10 seconds) and counted
 * (`RedisConnection.recordsLost`).
 *
 * **Redis down**: every operation fails with `SessionStoreUnavailable` (the request is answered
 * 503 with a JSON-RPC error); the connection comes back by itself. A Redis restart without
 * persistence loses every session (their clients get 404 and initialize again, as the
 * specification has them do); with AOF or RDB persistence, what Redis kept carries on.
 *
 * @since 0.1.0
 */
import * as NotificationBus from "@effect-mcp/server/NotificationBus"
import * as SessionStore from "@effect-mcp/server/SessionStore"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Mailbox from "effect/Mailbox"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Queue from "effect/Queue"
import * as Random from "effect/Random"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Format from "./internal/format.js"
import * as Loss from "./internal/loss.js"
import * as SessionChanges from "./internal/sessionChanges.js"
import * as Records from "./internal/sessionRecord.js"
import * as Scripts from "./internal/sessionScripts.js"
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
  /**
   * Other instances' changes (a session's new state, or its end) a follower of `changes` (this
   * instance's replicas) has not taken yet, with their state (default 10,000), and their bytes as
   * they came over the channel (default 16 MiB). A newer change of a session replaces the one not
   * taken; past either bound the oldest session's state is let go and its record read again from
   * Redis when the follower comes to it, so no state is lost. Ten times as many sessions may wait
   * so; past that the oldest is lost (logged, at most once every 10 seconds), its replica stale
   * until its next change.
   */
  readonly maxPendingChanges?: number
  readonly maxPendingChangeBytes?: number
}

const claimTtl = Duration.seconds(30)
/** A claim is renewed this often (a third of its TTL). */
const renewEvery = Duration.seconds(10)
const maxKey = 2 ** 20 - 1
/** The cursor in the change log moves to this long ago when the holder of a GET stream touches its record. */
const cursorSlack = Duration.seconds(5)

const decodeRecord = Schema.decodeUnknownEither(Records.StoredRecord)
const encodeState = (state: Readonly<Record<string, unknown>>) =>
  Effect.orDie(Schema.encode(Records.PackedState)(state))
const encodeChange = (change: SessionStore.Change) => Effect.orDie(Schema.encode(Records.ChangeJson)(change))
const decodeChange = Schema.decodeUnknownEither(Records.ChangeJson)
const encodeEnvelope = Schema.encode(Records.EnvelopeJson)
const decodeEnvelope = Schema.decodeUnknownEither(Records.EnvelopeJson)
const decodeEvent = Schema.decodeUnknownEither(Schema.parseJson(NotificationBus.Event))
const decodeFrames = Schema.decodeUnknownEither(Schema.Array(Schema.String))
/** The reply of `PUBSUB NUMSUB <channel>`. */
const decodeNumsub = Schema.decodeUnknownEither(Schema.Tuple(Schema.String, Schema.Number))

const unavailable = (error: RedisConnection.RedisUnavailable) =>
  new SessionStore.SessionStoreUnavailable({ cause: error })

const ttlOf = (ttlMillis: number) => Math.max(1, Math.round(ttlMillis))

/**
 * This instance's key, claimed (a free one, at random) for the scope's life: renewed every third
 * of its TTL, given back on the way out if Redis answers in time (else it lapses).
 */
const claimKey = (
  redis: RedisConnection.Service
): Effect.Effect<number, RedisConnection.RedisUnavailable, Scope.Scope> =>
  Effect.gen(function*() {
    const token = crypto.randomUUID()
    const ttl = Duration.toMillis(claimTtl)
    const claimOf = (key: number) => `${redis.prefix}instance:${key}`
    const attempt = Effect.flatMap(Random.nextIntBetween(1, maxKey + 1), (candidate) =>
      Effect.map(
        redis.eval(Scripts.claim, [claimOf(candidate)], [token, ttl]),
        (claimed) => claimed === 1 ? Option.some(candidate) : Option.none()
      ))
    const key = yield* attempt.pipe(
      Effect.repeat({ until: Option.isSome, times: 100 }),
      Effect.flatMap(Option.match({
        onNone: () => new RedisConnection.RedisUnavailable({ cause: "no instance key is free" }),
        onSome: Effect.succeed
      }))
    )
    yield* redis.eval(Scripts.claim, [claimOf(key)], [token, ttl]).pipe(
      Effect.flatMap((renewed) =>
        renewed === 1
          ? Effect.void
          : Effect.logError(`effect-mcp: this instance's key ${key} was taken by another (it lapsed)`)
      ),
      Effect.catchAll((error) => Effect.logWarning("effect-mcp: could not renew this instance's key", error)),
      Effect.repeat(Schedule.spaced(renewEvery)),
      Effect.delay(renewEvery),
      Effect.interruptible,
      Effect.forkScoped
    )
    yield* Effect.addFinalizer(() =>
      redis.use((r) => r.del(claimOf(key))).pipe(
        Effect.interruptible,
        Effect.timeoutOption(redis.closeTimeout),
        Effect.ignore
      )
    )
    return key
  })

/**
 * Relays what `channel` carries to `into`, for the scope's life: each message decoded (none: not
 * for this instance; a message that does not decode is lost).
 */
const relay = <A>(
  redis: RedisConnection.Service,
  channel: string,
  decode: (payload: string) => Either.Either<Option.Option<A>, unknown>,
  into: (value: A, payload: string) => Effect.Effect<unknown>,
  lose: (cause: unknown) => Effect.Effect<void>
): Effect.Effect<void, RedisConnection.RedisUnavailable, Scope.Scope> =>
  Effect.flatMap(
    redis.subscribe(channel),
    (deliveries) =>
      Effect.forkScoped(Stream.runForEach(Mailbox.toStream(deliveries), (delivery) => {
        if (delivery._tag !== "Message") return Effect.void
        return Either.match(decode(delivery.payload), {
          onLeft: lose,
          onRight: Option.match({ onNone: () => Effect.void, onSome: (value) => into(value, delivery.payload) })
        })
      }))
  )

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
    const lose = yield* Loss.make
    const changesChannel = `${prefix}session-changes`
    const broadcastChannel = `${prefix}inbox`
    const inboxOf = (key: number) => `${prefix}inbox:${key}`
    const key = yield* claimKey(redis)

    const stored = yield* sessions({ redis, key, lose, changesChannel, options })
    // One subscription each for changes and for this instance's messages, fanned out here.
    const fellBehind = yield* Loss.throttled()
    const changes = SessionChanges.make({
      maxCount: options.maxPendingChanges ?? 10_000,
      maxBytes: options.maxPendingChangeBytes ?? 16 * 1024 * 1024,
      reread: (id) => stored.get(id),
      lose: (id) =>
        fellBehind(
          `a follower of the session store's changes fell behind by more sessions than 10 × maxPendingChanges: ` +
            `the change of session ${id} was dropped (its replica is stale until its next change)`
        )
    })
    const inbox = yield* Effect.acquireRelease(PubSub.sliding<SessionStore.Delivery>(10_000), PubSub.shutdown)
    /** A delivery (none: one this instance broadcast itself). */
    const delivery = (payload: string) =>
      Either.map(
        decodeEnvelope(payload),
        ({ message, origin, sessionId }) => origin === key ? Option.none() : Option.some({ sessionId, message })
      )
    yield* relay(
      redis,
      changesChannel,
      (payload) => Either.map(decodeChange(payload), Option.some),
      (change, payload) => changes.publish(change, payload.length),
      (cause) => lose("session-change", `the channel ${changesChannel}`, cause)
    )
    for (const channel of [inboxOf(key), broadcastChannel]) {
      yield* relay(
        redis,
        channel,
        delivery,
        (value, _) => PubSub.publish(inbox, value),
        (cause) => lose("session-delivery", `the channel ${channel}`, cause)
      )
    }

    return {
      ...stored,
      ready: redis.isReady,
      key,
      changes: changes.stream,
      send: (target, delivery) => publishEnvelope(redis, inboxOf(target), key, delivery),
      broadcast: (delivery) => publishEnvelope(redis, broadcastChannel, key, delivery),
      inbox: Stream.fromPubSub(inbox)
    } satisfies SessionStore.Service
  })

/** Publishes a message of a session for another instance (or all, `inbox`), from this one (`origin`). */
const publishEnvelope = (
  redis: RedisConnection.Service,
  channel: string,
  origin: number,
  delivery: SessionStore.Delivery
): Effect.Effect<void, SessionStore.SessionStoreUnavailable> =>
  encodeEnvelope({ origin, sessionId: delivery.sessionId, message: delivery.message }).pipe(
    // A message of ours that does not encode is a bug.
    Effect.orDie,
    Effect.flatMap((text) => Effect.mapError(redis.use((r) => r.publish(channel, text)), unavailable)),
    Effect.asVoid
  )

/** What the records' and the standalone streams' methods need. */
interface Context {
  readonly redis: RedisConnection.Service
  readonly key: number
  readonly lose: (kind: Loss.Kind, where: string, cause: unknown) => Effect.Effect<void>
  readonly changesChannel: string
  readonly options: Options
}

/** The records' methods, and the standalone streams'. */
const sessions = (
  context: Context
): Effect.Effect<
  Omit<SessionStore.Service, "ready" | "key" | "changes" | "send" | "broadcast" | "inbox">,
  never,
  Scope.Scope
> =>
  Effect.sync(() => {
    const { changesChannel, key, lose, redis } = context
    const prefix = redis.prefix
    const run = (script: RedisConnection.Script, args: ReadonlyArray<string | number | Buffer>) =>
      Effect.mapError(redis.eval(script, [], [prefix, ...args]), unavailable)
    const change = (id: string, state: Readonly<Record<string, unknown>> | undefined) =>
      encodeChange({ id, state, origin: key })
    const slack = Duration.toMillis(cursorSlack)
    /** The sessions whose standalone stream this instance holds (how many holds each). */
    const held = new Map<string, number>()
    return {
      create: (record, { maxSessions, ttlMillis }) =>
        Effect.gen(function*() {
          const created = yield* run(Scripts.create, [
            record.id,
            record.legacy ? "1" : "0",
            record.subject ?? "",
            yield* encodeState(record.state),
            ttlOf(ttlMillis),
            maxSessions
          ])
          return created === 1
        }),
      get: (id) =>
        Effect.gen(function*() {
          const where = `${prefix}${Format.session}${id}`
          const value = yield* Effect.mapError(redis.use((r) => r.getBuffer(where)), unavailable)
          if (value === null) return Option.none()
          const decoded = decodeRecord(value)
          if (Either.isLeft(decoded)) return yield* Effect.as(lose("session", where, decoded.left), Option.none())
          return Option.some({ id, ...decoded.right })
        }),
      update: (id, state, ttlMillis) =>
        Effect.gen(function*() {
          const updated = yield* run(Scripts.update, [
            id,
            yield* encodeState(state),
            ttlOf(ttlMillis),
            changesChannel,
            yield* change(id, state)
          ])
          return updated === 1
        }),
      touch: (id, ttlMillis) =>
        Effect.map(
          run(Scripts.touch, [id, ttlOf(ttlMillis), held.has(id) ? "1" : "0", slack]),
          (alive) => alive === 1
        ),
      remove: (id) =>
        Effect.flatMap(change(id, undefined), (text) => Effect.asVoid(run(Scripts.remove, [id, changesChannel, text]))),
      ...standalone(context, run, held)
    }
  })

/** The standalone streams' methods: frames to the instance holding one, or kept for the next. */
const standalone = (
  context: Context,
  run: (
    script: RedisConnection.Script,
    args: ReadonlyArray<string | number | Buffer>
  ) => Effect.Effect<unknown, SessionStore.SessionStoreUnavailable>,
  held: Map<string, number>
): Pick<SessionStore.Service, "toStandalone" | "holdStandalone" | "missed" | "holding" | "toHolder"> => {
  const { lose, options, redis } = context
  const standaloneOf = (id: string) => `${redis.prefix}standalone:${id}`
  const maxFrame = options.maxPendingFrameLength ?? 256 * 1024
  const slack = Duration.toMillis(cursorSlack)
  return {
    toStandalone: (sessionId, frame) =>
      // In bytes, as Redis holds it and as the script counts the session's frames (`#`).
      frame.length > maxFrame || Buffer.byteLength(frame, "utf8") > maxFrame
        ? Effect.logWarning("effect-mcp: a frame too long to keep for a stream elsewhere was dropped")
        : Effect.flatMap(
          run(Scripts.toStandalone, [
            sessionId,
            standaloneOf(sessionId),
            frame,
            options.maxPendingFrames ?? 100,
            options.maxPendingBytes ?? 256 * 1024,
            options.maxPendingTotalBytes ?? 16 * 1024 * 1024
          ]),
          (kept) =>
            kept === -2
              ? Effect.logDebug("effect-mcp: a frame for a stream nobody holds was not kept (the store's sum is full)")
              : Effect.void
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
              return Effect.ignore(run(Scripts.advance, [sessionId, slack]))
            })
        )
        const kept = decodeFrames(yield* run(Scripts.takePending, [sessionId]))
        if (Either.isLeft(kept)) yield* lose("pending-frames", `${redis.prefix}pending:${sessionId}`, kept.left)
        else yield* Queue.offerAll(frames, kept.right)
        yield* Effect.forkScoped(Stream.runForEach(
          Mailbox.toStream(deliveries),
          (delivery) => delivery._tag === "Message" ? Queue.offer(frames, delivery.payload) : Effect.void
        ))
        return frames
      }),
    missed: (sessionId) =>
      Effect.flatMap(
        run(Scripts.missed, [sessionId]),
        (reply): Effect.Effect<ReadonlyArray<NotificationBus.Event> | "all"> => {
          if (!Array.isArray(reply)) return Effect.succeed("all" as const)
          // An entry that is not an event (a foreign publisher's) is lost, as the bus loses it.
          return Effect.map(
            Effect.forEach(reply, (payload) =>
              Either.match(decodeEvent(payload), {
                onLeft: (error) => Effect.as(lose("bus-event", `${redis.prefix}changes`, error), Option.none()),
                onRight: (event) => Effect.succeed(Option.some(event))
              })),
            (events) => events.flatMap(Option.toArray)
          )
        }
      ),
    // The stream's holder subscribes to its channel (`holdStandalone`): one holds it while the
    // channel has a subscriber.
    holding: (sessionId) =>
      Effect.flatMap(
        Effect.mapError(redis.use((r) => r.pubsub("NUMSUB", standaloneOf(sessionId))), unavailable),
        (reply) =>
          Either.match(decodeNumsub(reply), {
            onLeft: (error) => Effect.as(lose("reply", `PUBSUB NUMSUB ${standaloneOf(sessionId)}`, error), false),
            onRight: ([, count]) => Effect.succeed(count > 0)
          })
      ),
    toHolder: (sessionId, frame) =>
      Effect.mapError(
        Effect.map(redis.use((r) => r.publish(standaloneOf(sessionId), frame)), (received) => received > 0),
        unavailable
      )
  }
}

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
