/**
 * The mirror of one upstream on a server: its tools, prompts, resources and templates registered as
 * they are listed (definitions verbatim), forwarded through the relay, kept in step with the
 * upstream's list changes and resource updates; what it registered is removed when its scope ends
 * (an upstream gone loses only its own entries). `Proxy` mirrors onto a server of its own;
 * `Gateway` mirrors each upstream onto its part of one mounted server (`Mount.under`).
 */
import { type ClientError, McpClient } from "@effect-mcp/client"
import { type JsonRpc, McpError, Meta, type Peer, Schema as McpSchema } from "@effect-mcp/core"
import { McpRequest, type McpServer, Prompt, Resource, Tool } from "@effect-mcp/server"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import type { Relay } from "../Proxy.js"
import * as Policy from "./policy.js"
import * as RawLane from "./rawLane.js"
import * as UpstreamLogs from "./upstreamLogs.js"
import * as UpstreamTasks from "./upstreamTasks.js"

/**
 * An upstream failure as the downstream client sees it: the upstream's own error, or a -32603. An upstream
 * that went away is said without its reason: how a stdio upstream ended carries the last lines of its
 * stderr, which are the operator's to read, not the clients'.
 */
export const toMcpError = (error: ClientError.ClientError | McpRequest.ClientRequestError): McpError.McpError =>
  McpError.isMcpError(error) ? error : new McpError.InternalError({
    message: `proxy: ${
      error._tag === "TransportClosed"
        ? `the upstream server closed before ${error.method} was answered`
        : error.message
    }`
  })

/** The most log messages of one upstream call not yet logged downstream (more are dropped). */
const maxCallLogs = 256

const isLevel = (level: string): level is McpSchema.Base.LoggingLevel =>
  (McpSchema.Logging.levels as ReadonlyArray<string>).includes(level)

/**
 * An upstream's result as the gateway's own: without the upstream's `serverInfo` in its `_meta`
 * (a 2026-07-28 upstream names itself on every result; the server serving it names itself, and a
 * handshake client must not read the upstream's name as the gateway's). Other `_meta` passes on.
 */
const asOwn = <A>(result: A): A => {
  const meta = (result as { readonly _meta?: Record<string, unknown> })._meta
  if (meta === undefined || !(Meta.serverInfo in meta)) return result
  const { [Meta.serverInfo]: _upstream, ...rest } = meta
  const own: Record<string, unknown> = Object.assign({}, result)
  if (Object.keys(rest).length === 0) delete own._meta
  else own._meta = rest
  return own as A
}

/**
 * Makes an upstream call for the downstream request, through the relay: with its progress, asked
 * upstream only when the downstream request asked for it (a progress token makes many servers
 * answer on a stream); with its log level (a 2026-07-28 upstream logs for a call only at the level
 * the call asks; a handshake one at its session's); and with the log messages the upstream sends
 * on the call's own stream logged on the downstream request (its own stream too; the logger under
 * `prefix`), in order, the last of them before the call's answer is handed on. They reach no other
 * client, and none twice (the client takes them off its `notifications`).
 */
const forwarded = <A>(
  relay: Relay,
  prefix: string | undefined,
  call: (options: McpClient.CallOptions) => Effect.Effect<A, ClientError.ClientError>
): Effect.Effect<A, McpError.McpError, McpRequest.McpRequest> =>
  Effect.flatMap(McpRequest.McpRequest, (request) =>
    Effect.flatMap(request.logLevel, (level) => {
      // The last message's turn (each waits for the one before it), and how many are waiting.
      let last: Deferred.Deferred<void> | undefined
      let waiting = 0
      // Counted and released uninterrupted (`relay.callLogs`): only the wait is interruptible.
      const onLog = (message: Peer.LogMessage) =>
        Effect.uninterruptibleMask((restore) =>
          Effect.suspend(() => {
            if (!isLevel(message.level) || waiting >= maxCallLogs) return Effect.void
            // Each at most 64 KiB of JSON while it waits (as an upstream's broadcast logs), and all
            // calls' together at most `maxCallLogBytes`.
            const { bytes, data } = UpstreamLogs.sized(message.data)
            if (relay.callLogs.bytes + bytes > UpstreamLogs.maxCallLogBytes) return Effect.void
            relay.callLogs.bytes += bytes
            waiting++
            const before = last
            const mine = (last = Deferred.unsafeMake<void>(FiberId.none))
            const logger = typeof message.logger === "string" ? message.logger : undefined
            const logged = request.log(
              message.level,
              data,
              prefix === undefined ? logger : logger === undefined ? prefix : `${prefix}/${logger}`
            )
            return Effect.ensuring(
              restore(before === undefined ? logged : Effect.zipRight(Deferred.await(before), logged)),
              Effect.sync(() => {
                waiting--
                relay.callLogs.bytes -= bytes
                Deferred.unsafeDone(mine, Exit.void)
              })
            )
          })
        )
      const options: McpClient.CallOptions = {
        onLog,
        ...(Option.isSome(level) ? { logLevel: level.value } : {}),
        ...(Option.isNone(request.progressToken) ? {} : {
          onProgress: (p: { readonly progress: number; readonly total?: number; readonly message?: string }) =>
            request.progress(p.progress, p.total, p.message)
        })
      }
      // Told as they came (the client hands them on before the answer): each logged before the answer.
      const settled = Effect.suspend(() => last === undefined ? Effect.void : Deferred.await(last))
      return relay.forward(
        call(options).pipe(
          Effect.map(asOwn),
          Effect.onExit((exit) => Exit.isInterrupted(exit) ? Effect.void : settled),
          Effect.mapError(toMcpError)
        )
      )
    }))

const toolOf = (
  client: McpClient.Service,
  relay: Relay,
  upstream: McpSchema.Tool.Tool,
  policy: Policy.ToolPolicy | undefined,
  prefix: string | undefined
) => {
  const { inputSchema, name, outputSchema, ...rest } = Policy.served(policy, upstream)
  const task = UpstreamTasks.supportOf(client, upstream)
  return Tool.make(
    name,
    {
      ...rest,
      inputSchema,
      ...(outputSchema !== undefined ? { outputSchema } : {}),
      ...(task !== undefined ? { task } : {})
    } as Tool.Options<undefined, undefined, undefined, typeof inputSchema>,
    (args) =>
      forwarded(
        relay,
        prefix,
        (call) => client.callTool(upstream.name, Policy.argsOf(policy, upstream.name, args) as never, call)
      ).pipe(
        // A task upstream when the client can take one here (see `UpstreamTasks`).
        UpstreamTasks.orTask(client, relay, upstream.name, Policy.argsOf(policy, upstream.name, args) as never)
      )
  )
}

/** Completions of one argument or variable, asked upstream. */
const completer = (
  client: McpClient.Service,
  ref: McpSchema.Completion.CompleteRequestParams["ref"],
  argument: string
) =>
(value: string, context: Readonly<Record<string, string>>) =>
  client.complete({
    ref,
    argument: { name: argument, value },
    ...(Object.keys(context).length > 0 ? { context: { arguments: context } } : {})
  }).pipe(
    Effect.map((result) => result.completion.values),
    Effect.orElseSucceed((): ReadonlyArray<string> => [])
  )

const promptOf = (
  client: McpClient.Service,
  relay: Relay,
  definition: McpSchema.Prompt.Prompt,
  complete: boolean,
  prefix: string | undefined
) => {
  const args = definition.arguments ?? []
  const fields = Object.fromEntries(args.map((a) => {
    const base = a.description !== undefined ? Schema.String.annotations({ description: a.description }) : Schema.String
    return [a.name, a.required === true ? base : Schema.optional(base)] as const
  })) as Schema.Struct.Fields
  const get = (given: Record<string, string>) =>
    forwarded(relay, prefix, (call) => client.getPrompt(definition.name, given, call))
  return Prompt.make<McpRequest.McpRequest, McpError.McpError, Schema.Struct.Fields>(definition.name, {
    ...(definition.title !== undefined ? { title: definition.title } : {}),
    ...(definition.description !== undefined ? { description: definition.description } : {}),
    ...(definition.icons !== undefined ? { icons: definition.icons } : {}),
    arguments: Schema.Struct(fields),
    ...(complete
      ? {
        complete: Object.fromEntries(
          args.map((a) => [a.name, completer(client, { type: "ref/prompt", name: definition.name }, a.name)])
        )
      }
      : {})
  }, (given) => get(given as Record<string, string>))
}

const read = (client: McpClient.Service, relay: Relay, uri: string, prefix: string | undefined) =>
  forwarded(relay, prefix, (call) => client.readResource(uri, call))

/** The variables of a URI template (`{name}`, `{+name}`, `{?a,b}`, …). */
const variablesOf = (uriTemplate: string) =>
  Array.from(uriTemplate.matchAll(/\{[+#./;?&]?([^}]+)\}/g)).flatMap((m) =>
    m[1]!.split(",").map((v) => v.replace(/[*]|:\d+$/g, ""))
  )

const templateOf = (
  client: McpClient.Service,
  relay: Relay,
  definition: McpSchema.Resource.ResourceTemplate,
  complete: boolean,
  prefix: string | undefined
) =>
  Resource.template(definition.uriTemplate, {
    ...definition,
    ...(complete
      ? {
        complete: Object.fromEntries(
          variablesOf(definition.uriTemplate).map((v) => [
            v,
            completer(client, { type: "ref/resource", uri: definition.uriTemplate }, v)
          ])
        )
      }
      : {})
  }, (_variables, uri) => read(client, relay, uri, prefix))

/** Options of a mirror. */
export interface Options {
  /** The most URIs subscribed upstream that the upstream does not list (default 1,000). */
  readonly maxUnlistedSubscriptions?: number | undefined
  /**
   * The most tools (and prompts, resources, templates: each kind alone) mirrored of the upstream
   * (default 1,000): a listing past it is not served (a warning says so), the mirror keeps what it
   * had. Each entry added is a copy of the server's registry: 10,000 tools took minutes, 100,000
   * ran a 64 MiB gateway out of memory.
   */
  readonly maxEntries?: number | undefined
  /** The bound this mirror shares with others (`Total`: a gateway's upstreams together; default none). */
  readonly total?: Total | undefined
  /** What of the upstream's tools is served, and how (default: all, as they are). */
  readonly tools?: Policy.ToolPolicy | undefined
  /** How its logs begin (default `mcp proxy`). */
  readonly label?: string | undefined
  /** The logger the upstream's log messages for a call are under (`prefix/logger`; default: theirs as they are). */
  readonly logPrefix?: string | undefined
  /**
   * The server's relay table, where the upstream's tools are relayed raw when a call needs nothing
   * more (`rawLane.ts`; default: every call served by the server). Only a client in a session has a
   * raw lane; a task tool is always served.
   */
  readonly lane?: RawLane.Lane | undefined
}

/** One upstream's mirror: its hook for the server's subscriptions, and what mirrors it onto a server. */
export interface Mirror {
  /** For the server's `onResourceSubscribe`, with the upstream's own URI. */
  readonly onResourceSubscribe: (uri: string) => Effect.Effect<void>
  /**
   * Mirrors the upstream onto `server` until the scope ends; then, with `removeAtEnd`, removes
   * what it registered (the server's clients are told the lists changed).
   */
  readonly start: (server: McpServer.Service, removeAtEnd?: boolean) => Effect.Effect<void, never, Scope.Scope>
}

/** What is mirrored now, by kind: each name, URI or URI template, with its definition as JSON. */
type Mirrored = Ref.Ref<{
  readonly tools: Map<string, string>
  readonly prompts: Map<string, string>
  readonly resources: Map<string, string>
  readonly templates: Map<string, string>
}>

/**
 * The most entries mirrored by every mirror sharing it (a gateway's upstreams together), all kinds
 * counted: a listing that would take them past `max` is not served (a warning says so), its mirror
 * keeps what it had. `used` is what the mirrors hold now (each gives its own back when it ends).
 */
export interface Total {
  readonly max: number
  used: number
}

/** The default `maxEntries` of a mirror: each kind of one upstream. */
export const defaultMaxEntries = 1_000

/**
 * Registers what is listed anew or changed, and drops what no longer is (so a change upstream
 * is one change downstream), in one `update` of the server (its list copied once, however many
 * entries change); a definition that cannot be served is skipped with a warning.
 */
const syncOf = (mirrored: Mirrored, label: string, maxEntries: number, total: Total | undefined) =>
<D, E>(
  kind: "tools" | "prompts" | "resources" | "templates",
  listed: ReadonlyArray<D>,
  keyOf: (d: D) => string,
  entryOf: (d: D) => E,
  apply: (added: ReadonlyArray<readonly [D, E]>, removed: ReadonlyArray<string>) => Effect.Effect<void>
) =>
  Effect.gen(function*() {
    if (listed.length > maxEntries) {
      return yield* Effect.logWarning(
        `${label}: the upstream lists ${listed.length} ${kind}, more than the ${maxEntries} mirrored (maxEntries); ` +
          "this listing is not served"
      )
    }
    const before = (yield* Ref.get(mirrored))[kind]
    const now = new Map<string, string>()
    const added: Array<readonly [D, E]> = []
    for (const d of listed) {
      const key = keyOf(d)
      const json = JSON.stringify(d)
      if (before.get(key) === json) {
        now.set(key, json)
        continue
      }
      try {
        added.push([d, entryOf(d)])
        now.set(key, json)
      } catch (error) {
        yield* Effect.logWarning(`${label}: ${kind} ${key} is not served: ${(error as Error).message}`)
      }
    }
    if (total !== undefined && now.size > before.size && total.used + now.size - before.size > total.max) {
      return yield* Effect.logWarning(
        `${label}: its ${now.size} ${kind} would take the entries mirrored from every upstream to ` +
          `${total.used + now.size - before.size}, more than ${total.max} (maxMirroredEntries); ` +
          "this listing is not served"
      )
    }
    // Taken before the update, which yields: another upstream's sync meanwhile sees it taken.
    if (total !== undefined) total.used += now.size - before.size
    const removed = [...before.keys()].filter((key) => !now.has(key))
    if (added.length > 0 || removed.length > 0) yield* apply(added, removed)
    yield* Ref.update(mirrored, (m) => ({ ...m, [kind]: now }))
  })

const listOf = (label: string) => <A>(what: string, effect: Effect.Effect<ReadonlyArray<A>, ClientError.ClientError>) =>
  effect.pipe(
    Effect.tapError((error) => Effect.logWarning(`${label}: listing ${what} failed: ${error.message}`)),
    Effect.orElseSucceed((): ReadonlyArray<A> => [])
  )

/** How long a 2026-07-28 listen replaced by another is read on before it is closed. */
const overlap = Duration.seconds(1)

/** One subscription to everything followed, as the follower reads it. */
interface Listening {
  readonly uris: ReadonlyArray<string>
  /** Its notifications; `false` once it ended without being retired (the follower starts again). */
  readonly notifications: Stream.Stream<JsonRpc.Notification | false, ClientError.ClientError>
  /** No longer read, then closed. */
  readonly retire: Effect.Effect<void>
}

/** What following the upstream needs of its mirror. */
interface Following {
  readonly client: McpClient.Service
  readonly server: McpServer.Service
  readonly label: string
  readonly covered: SubscriptionRef.SubscriptionRef<ReadonlySet<string>>
  readonly wake: Queue.Queue<void>
  readonly subscribedUris: Effect.Effect<ReadonlyArray<string>>
  /** Of those, the URIs clients subscribed to that no list names (a template's), oldest first. */
  readonly unlistedUris: Effect.Effect<ReadonlyArray<string>>
  /** A URI the upstream refused to subscribe (its own bound, say): no longer asked for. */
  readonly refused: (uri: string) => Effect.Effect<void>
  readonly syncTools: Effect.Effect<void>
  readonly syncPrompts: Effect.Effect<void>
  readonly syncResources: Effect.Effect<void>
  readonly syncAll: Effect.Effect<void>
}

const followOf = (
  {
    client,
    covered,
    label,
    refused,
    server,
    subscribedUris,
    syncAll,
    syncPrompts,
    syncResources,
    syncTools,
    unlistedUris,
    wake
  }: Following
): Effect.Effect<void> => {
  const caps = client.serverCapabilities
  /**
   * One subscription to everything followed. A filter the upstream refuses as invalid params
   * (-32602: past its own bound on the URIs of one listen, say) loses the newest URI a client added
   * that no list names, with a warning, and is asked again at once; with none left to drop, the
   * refusal is the follower's. Before, a 2026-07-28 upstream refused the same filter every 5
   * seconds for ever, with nothing followed meanwhile.
   */
  const subscribeAll: Effect.Effect<
    { readonly uris: ReadonlyArray<string>; readonly subscription: McpClient.Subscription },
    ClientError.ClientError,
    Scope.Scope
  > = Effect.gen(function*() {
    const uris = yield* subscribedUris
    const result = yield* Effect.either(client.subscribe({
      ...(caps.tools?.listChanged === true ? { toolsListChanged: true } : {}),
      ...(caps.prompts?.listChanged === true ? { promptsListChanged: true } : {}),
      ...(caps.resources?.listChanged === true ? { resourcesListChanged: true } : {}),
      ...(uris.length > 0 ? { resourceSubscriptions: uris } : {})
    }))
    if (result._tag === "Right") return { uris, subscription: result.right }
    const error = result.left
    const asked = new Set(uris)
    const newest = (yield* unlistedUris).filter((uri) => asked.has(uri)).at(-1)
    if (!McpError.isMcpError(error) || error._tag !== "InvalidParams" || newest === undefined) {
      return yield* Effect.fail(error)
    }
    yield* refused(newest)
    yield* Effect.logWarning(`${label}: the upstream refused a subscription to ${newest}: ${error.message}`)
    return yield* subscribeAll
  })
  /**
   * `subscribeAll` in a scope of its own under `scope`: its notifications, which end quietly once
   * it is retired (its listen then closed), and say `false` (start again) if it ends otherwise.
   */
  const listenIn = (scope: Scope.Scope): Effect.Effect<Listening, ClientError.ClientError> =>
    Effect.gen(function*() {
      const own = yield* Scope.fork(scope, ExecutionStrategy.sequential)
      const { subscription, uris } = yield* Effect.onError(
        Scope.extend(subscribeAll, own),
        (cause) => Scope.close(own, Exit.failCause(cause))
      )
      const retired = yield* Deferred.make<void>()
      const ended = Stream.unwrap(
        Effect.map(Deferred.isDone(retired), (done) => done ? Stream.empty : Stream.make(false as const))
      )
      return {
        uris,
        notifications: Stream.concat(
          subscription.notifications.pipe(
            Stream.interruptWhen(Deferred.await(retired)),
            // Closing a retired listen may fail what is left of its stream: it is no longer read.
            Stream.catchAllCause((cause) =>
              Stream.unwrap(
                Effect.map(Deferred.isDone(retired), (done) => done ? Stream.empty : Stream.failCause(cause))
              )
            )
          ),
          ended
        ),
        retire: Effect.zipRight(Deferred.succeed(retired, void 0), Scope.close(own, Exit.void))
      }
    })
  /**
   * Follows the upstream: list changes are listed again, resource updates passed on. It
   * subscribes first and then lists everything again, so that nothing changed in between is
   * missed; a change of the subscribed URIs (listed anew, or a client's) subscribes again: in a
   * session the URIs added, by `resources/subscribe` each; in the 2026-07-28 era a new listen for
   * them all, acknowledged before the one it replaces is closed, so no update in between is lost
   * and nothing is listed again (before, the listen was closed, and 100 ms later a new one opened
   * and every list listed again, for each URI a client added: updates in that gap were lost).
   */
  const once = Effect.gen(function*() {
    const scope = yield* Effect.scope
    const first = yield* listenIn(scope)
    /** The listens read: the current one, and for a moment while it is replaced, the one before. */
    const listens = yield* Queue.bounded<Listening>(2)
    yield* Queue.offer(listens, first)
    let current = first
    yield* SubscriptionRef.set(covered, new Set(first.uris))
    yield* Effect.addFinalizer(() => SubscriptionRef.set(covered, new Set()))
    /** The URIs subscribed: those of the listen, and in a session those added after it (`later`). */
    const covers = new Set(first.uris)
    /**
     * In a session, a URI a client subscribed to later is subscribed upstream alone (one request),
     * not with every URI again (two per URI each time: a client subscribing to n template
     * instances cost n² upstream requests); its updates come on the client's notifications.
     */
    const later = new Set<string>()
    const session = client.era === "handshake"
    yield* Effect.addFinalizer(() =>
      Effect.forEach(later, (uri) => client.request("resources/unsubscribe", { uri }), { discard: true }).pipe(
        Effect.interruptible,
        Effect.timeout("2 seconds"),
        Effect.ignore
      )
    )
    /**
     * 2026-07-28: a listen of every URI followed now replaces the current one. Its URIs are
     * followed (and their subscribers acknowledged) from its acknowledgement, and the old listen is
     * read on for a second before it is closed: an update the upstream sent on it just before it
     * took the new one may still be on its way (over HTTP the two are separate streams). A client's
     * update may then come twice. At most two listens are open: the next replacement waits for the
     * old one's end, and takes every URI added meanwhile.
     */
    let closing: Deferred.Deferred<void> | undefined
    const replace = Effect.gen(function*() {
      if (closing !== undefined) yield* Deferred.await(closing)
      const next = yield* listenIn(scope)
      for (const uri of next.uris) covers.add(uri)
      yield* Queue.offer(listens, next)
      yield* SubscriptionRef.set(covered, new Set(covers))
      const old = current
      current = next
      const closed = yield* Deferred.make<void>()
      closing = closed
      yield* Effect.forkIn(
        Effect.sleep(overlap).pipe(
          Effect.zipRight(old.retire),
          Effect.zipRight(Effect.suspend(() => {
            covers.clear()
            for (const uri of next.uris) covers.add(uri)
            return SubscriptionRef.set(covered, new Set(covers))
          })),
          Effect.ensuring(Deferred.succeed(closed, void 0))
        ),
        scope
      )
    })
    /** Goes on with the URIs to subscribe now (false: subscribed anew, some are no longer). */
    const grow = (now: ReadonlyArray<string>): Effect.Effect<boolean, ClientError.ClientError> => {
      const wanted = new Set(now)
      if (!session) {
        const listened = new Set(current.uris)
        const same = listened.size === wanted.size && now.every((uri) => listened.has(uri))
        return same ? Effect.succeed(true) : Effect.as(replace, true)
      }
      const added = now.filter((uri) => !covers.has(uri))
      if ([...covers].some((uri) => !wanted.has(uri))) return Effect.succeed(false)
      if (added.length === 0) return Effect.succeed(true)
      return Effect.as(
        Effect.zipRight(
          Effect.forEach(added, (uri) =>
            Effect.matchEffect(client.request("resources/subscribe", { uri }), {
              onSuccess: () =>
                Effect.sync(() => {
                  covers.add(uri)
                  later.add(uri)
                }),
              // Refused by the upstream (its own bound on a session's subscriptions, a URI it does not
              // serve): that URI is no longer asked for, and the rest are followed as before. Failing
              // here restarted the follower, which subscribed every URI again and was refused again,
              // every 5 seconds for ever (about 1,000 upstream requests each time), with no URI
              // followed meanwhile.
              onFailure: (error) =>
                McpError.isMcpError(error)
                  ? Effect.zipRight(
                    refused(uri),
                    Effect.logWarning(`${label}: the upstream refused a subscription to ${uri}: ${error.message}`)
                  )
                  : Effect.fail(error)
            }), { discard: true }),
          Effect.suspend(() => SubscriptionRef.set(covered, new Set(covers)))
        ),
        true
      )
    }
    // Taken from the subscription as they come, into what is to be done (lists to sync, URIs
    // updated: at most those subscribed): an upstream that floods while a sync waits on it, or
    // while an update waits on a slow client, is held to that, not to its notifications.
    const due = { tools: false, prompts: false, resources: false, updated: new Set<string>() }
    const ready = yield* Queue.sliding<void>(1)
    const note = (n: JsonRpc.Notification): Effect.Effect<unknown> => {
      switch (n.method) {
        case "notifications/tools/list_changed":
          due.tools = true
          break
        case "notifications/prompts/list_changed":
          due.prompts = true
          break
        case "notifications/resources/list_changed":
          due.resources = true
          break
        case "notifications/resources/updated": {
          const uri = (n.params as { readonly uri?: unknown } | undefined)?.uri
          if (typeof uri !== "string" || !covers.has(uri)) return Effect.void
          due.updated.add(uri)
          break
        }
        default:
          return Effect.void
      }
      return Queue.offer(ready, void 0)
    }
    const work = Effect.gen(function*() {
      const { prompts, resources, tools } = due
      const updated = Array.from(due.updated)
      due.tools = due.prompts = due.resources = false
      due.updated.clear()
      if (tools) yield* syncTools
      if (prompts) yield* syncPrompts
      const goOn = resources ? yield* Effect.zipRight(syncResources, Effect.flatMap(subscribedUris, grow)) : true
      yield* Effect.forEach(updated, server.resourceUpdated, { discard: true })
      return goOn
    })
    // The subscription drained from the start; everything listed again, then what comes is done.
    yield* Stream.mergeAll([
      Stream.flatMap(
        Stream.fromQueue(listens),
        (listening) =>
          Stream.mapEffect(
            listening.notifications,
            (n) => n === false ? Effect.succeed(false) : Effect.as(note(n), true)
          ),
        { concurrency: "unbounded" }
      ),
      // The updates of the URIs added later (the subscription's own filter has not got them).
      session
        ? Stream.drain(Stream.mapEffect(client.notifications, (n) =>
          n.method === "notifications/resources/updated" &&
            later.has((n.params as { readonly uri?: unknown } | undefined)?.uri as string)
            ? note(n)
            : Effect.void))
        : Stream.empty,
      Stream.concat(
        Stream.fromEffect(Effect.as(syncAll, true)),
        Stream.repeatEffect(Effect.zipRight(Queue.take(ready), work))
      ),
      Stream.mapEffect(Stream.fromQueue(wake), () => Effect.flatMap(subscribedUris, grow))
    ], { concurrency: "unbounded" })
      .pipe(
        Stream.takeWhile((goOn) => goOn),
        Stream.runDrain
      )
  })

  // Subscribed again after an end or a failure (the upstream may be restarting); not once
  // the upstream is gone.
  const follow: Effect.Effect<void> = Effect.suspend(() =>
    Effect.matchEffect(Effect.scoped(once), {
      onFailure: (error) =>
        error._tag === "TransportClosed"
          ? Effect.logWarning(`${label}: the upstream closed; no longer following it: ${error.message}`)
          // Nothing it raises could arrive (a GET answered 405): said once, not tried again.
          : error._tag === "NoEventStream"
          ? Effect.logWarning(`${label}: the upstream's changes are not followed: ${error.message}`)
          : Effect.zipRight(
            Effect.logWarning(`${label}: following the upstream: ${error.message}`),
            Effect.zipRight(Effect.sleep("5 seconds"), follow)
          ),
      onSuccess: () => Effect.zipRight(Effect.sleep("100 millis"), follow)
    })
  )
  return follow
}

/** The mirror of the upstream `client` reaches, its calls forwarded through `relay`. */
export const make = (client: McpClient.Service, relay: Relay, options: Options = {}): Effect.Effect<Mirror> =>
  Effect.gen(function*() {
    const label = options.label ?? "mcp proxy"
    const prefix = options.logPrefix
    const caps = client.serverCapabilities
    const completes = caps.completions !== undefined
    const subscribes = caps.resources?.subscribe === true

    const mirrored: Mirrored = yield* Ref.make({
      tools: new Map<string, string>(),
      prompts: new Map<string, string>(),
      resources: new Map<string, string>(),
      templates: new Map<string, string>()
    })
    /** The URIs clients subscribed to that no list names (a template's), oldest first. */
    const unlisted = yield* Ref.make<ReadonlyArray<string>>([])
    const maxUnlisted = options.maxUnlistedSubscriptions ?? 1_000
    /** The URIs the upstream subscription covers now. */
    const covered = yield* SubscriptionRef.make<ReadonlySet<string>>(new Set())
    /** Wakes the follower when a URI is to be subscribed upstream. */
    const wake = yield* Queue.sliding<void>(1)

    /**
     * A client subscribed to `uri`: a URI the upstream does not list is subscribed upstream too
     * (the follower subscribes again), and the client is acknowledged once it is (or after a
     * few seconds: an upstream that is not followed never will), so no update after it is missed.
     * A listed URI is waited for too: the follower may not have subscribed to it yet (it was
     * acknowledged at once, and an update while the follower was starting never came).
     */
    const onResourceSubscribe = (uri: string): Effect.Effect<void> =>
      Effect.gen(function*() {
        if (!subscribes) return
        if (!(yield* Ref.get(mirrored)).resources.has(uri)) {
          const added = yield* Ref.modify(
            unlisted,
            (uris) => uris.includes(uri) ? [false, uris] : [true, [...uris, uri].slice(-maxUnlisted)]
          )
          if (added) yield* Queue.offer(wake, void 0)
        }
        yield* covered.changes.pipe(
          Stream.takeUntil((uris) => uris.has(uri)),
          Stream.runDrain,
          Effect.timeout("5 seconds"),
          Effect.ignore
        )
      })

    const start = (server: McpServer.Service, removeAtEnd = false): Effect.Effect<void, never, Scope.Scope> =>
      Effect.gen(function*() {
        // What it registered goes with it (an upstream gone loses only its own entries).
        yield* Effect.addFinalizer(() =>
          Effect.flatMap(Ref.get(mirrored), (m) => {
            if (options.total !== undefined) {
              options.total.used -= m.tools.size + m.prompts.size + m.resources.size + m.templates.size
            }
            return removeAtEnd
              ? server.update<never>({
                removeTools: [...m.tools.keys()],
                removePrompts: [...m.prompts.keys()],
                removeResources: [...m.resources.keys(), ...m.templates.keys()]
              })
              : Effect.void
          })
        )

        // Its tools relayed raw when a call needs nothing more (`rawLane.ts`).
        const { relayed, unrelayed } = yield* RawLane.mirrored(
          options.lane,
          client,
          relay,
          options.tools,
          prefix,
          Effect.map(Ref.get(mirrored), (m) => m.tools.keys())
        )

        const sync = syncOf(mirrored, label, options.maxEntries ?? defaultMaxEntries, options.total)
        const list = listOf(label)
        const entries = <E>(added: ReadonlyArray<readonly [unknown, E]>) => added.map(([, e]) => e)
        const syncTools = Effect.flatMap(
          list("tools", client.listTools),
          (listed) =>
            sync(
              "tools",
              listed.filter((t) => Policy.admits(options.tools, t)),
              (t) => Policy.served(options.tools, t).name,
              (t) => toolOf(client, relay, t, options.tools, prefix),
              (added, removed) =>
                Effect.zipRight(
                  server.update({ tools: entries(added), removeTools: removed }),
                  Effect.zipRight(
                    Effect.forEach(removed, unrelayed, { discard: true }),
                    Effect.forEach(added, ([t]) => relayed(t), { discard: true })
                  )
                )
            )
        )
        const syncPrompts = Effect.flatMap(list("prompts", client.listPrompts), (listed) =>
          sync(
            "prompts",
            listed,
            (p) => p.name,
            (p) => promptOf(client, relay, p, completes, prefix),
            (added, removed) => server.update({ prompts: entries(added), removePrompts: removed })
          ))
        const syncResources = Effect.gen(function*() {
          const listed = yield* list("resources", client.listResources)
          yield* sync(
            "resources",
            listed,
            (r) => r.uri,
            (r) => Resource.make(r.uri, r, read(client, relay, r.uri, prefix)),
            (added, removed) => server.update({ resources: entries(added), removeResources: removed })
          )
          const templates = yield* list("resource templates", client.listResourceTemplates)
          yield* sync(
            "templates",
            templates,
            (t) => t.uriTemplate,
            (t) => templateOf(client, relay, t, completes, prefix),
            (added, removed) => server.update({ resources: entries(added), removeResources: removed })
          )
        })

        if (caps.tools !== undefined) yield* syncTools
        if (caps.prompts !== undefined) yield* syncPrompts
        if (caps.resources !== undefined) yield* syncResources

        /** Everything listed again, as the capabilities allow. */
        const syncAll = Effect.all([
          caps.tools !== undefined ? syncTools : Effect.void,
          caps.prompts !== undefined ? syncPrompts : Effect.void,
          caps.resources !== undefined ? syncResources : Effect.void
        ], { discard: true })
        const subscribedUris = Effect.map(
          Effect.zip(Ref.get(mirrored), Ref.get(unlisted)),
          ([m, more]) => subscribes ? [...m.resources.keys(), ...more.filter((uri) => !m.resources.has(uri))] : []
        )

        const follow = followOf({
          client,
          server,
          label,
          covered,
          wake,
          subscribedUris,
          unlistedUris: Ref.get(unlisted),
          // Its subscriber is acknowledged at once (`covered` is what a subscriber waits for: here
          // settled, not subscribed), not after the 5 seconds it waits for an upstream not followed.
          refused: (uri) =>
            Effect.zipRight(
              Ref.update(unlisted, (uris) => uris.filter((u) => u !== uri)),
              SubscriptionRef.update(covered, (uris) => new Set([...uris, uri]))
            ),
          syncTools,
          syncPrompts,
          syncResources,
          syncAll
        })
        const followed = caps.tools?.listChanged === true || caps.prompts?.listChanged === true ||
          caps.resources?.listChanged === true || subscribes
        if (followed) yield* Effect.forkScoped(follow)
      })

    return { onResourceSubscribe, start }
  })
