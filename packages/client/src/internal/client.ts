/**
 * The client, wired: the engine on the transport, the era picked (probed, or pinned), the era's
 * request path (the stateless driver behind the response cache, or the session), and every named
 * call derived from the one typed `request`.
 */
import {
  type JsonRpc,
  McpError,
  Meta,
  Peer,
  Revision,
  type Schema as McpSchema,
  Telemetry,
  type Wire
} from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import * as MetricLabel from "effect/MetricLabel"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as ClientError from "../ClientError.js"
import type { Options, RequestParams, RequestResult, Requests, Service } from "../McpClient.js"
import { McpClientTransport } from "../McpClientTransport.js"
import * as ResponseCache from "../ResponseCache.js"
import * as Asks from "./asks.js"
import * as Backlog from "./backlog.js"
import * as Cache from "./cache.js"
import * as Era from "./era.js"
import * as Listing from "./listing.js"
import * as Raw from "./raw.js"
import { currentCaller, decoded, decodedUnknown, engineOptions, eraOf, server } from "./request.js"
import * as Session from "./session.js"
import * as Stateless from "./stateless.js"
import * as Subscriptions from "./subscriptions.js"
import * as Tasks from "./tasks.js"
import { callToolWith } from "./typed.js"

type Implementation = McpSchema.Base.Implementation
type ServerCapabilities = McpSchema.Capabilities.ServerCapabilities

/**
 * What the client takes from the server (the engine's `keep`: what the transport delivers, and
 * what comes on a request's channel besides its answer): a frame that is not JSON-RPC, or a batch
 * item that is not, is logged and dropped (answering a hostile server's garbage is a loop it
 * drives); in the stateless era, where the server asks in `input_required` results, a request is
 * dropped too. What is kept of `inbound` (undefined: nothing).
 */
const kept = (
  inbound: Wire.Inbound,
  stateless: boolean,
  dropped: (what: string) => void
): Wire.Inbound | undefined => {
  if (inbound._tag === "Invalid") return void dropped(`an invalid frame (${inbound.error.message})`)
  if (inbound._tag === "Batch") {
    const items = inbound.items.filter((item) => {
      if (item._tag === "Invalid") dropped(`an invalid batch item (${item.error.message})`)
      return item._tag !== "Invalid"
    })
    return items.length > 0 ? { _tag: "Batch", items } : undefined
  }
  const message = inbound.message
  if (stateless && "method" in message && "id" in message) {
    return void dropped(`a ${message.method} request, which the stateless era has none of`)
  }
  return inbound
}

/** The connection as it stands: the era picked (none yet) and the revision spoken. */
interface Connection {
  spoken: Revision.Revision
  era: Revision.Era | undefined
}

/**
 * What the engine tells apart: the callers (`currentCaller`) of the session's requests in flight
 * that set one, by id; the request each published notification came related to, if any
 * (`notificationsReceived`); the progress handlers of 2025-11-25 task calls, for their tasks' lives.
 */
interface Told {
  readonly callers: Map<JsonRpc.RequestId, unknown>
  readonly relatedOf: WeakMap<JsonRpc.Notification, JsonRpc.RequestId>
  readonly taskProgress: Tasks.TaskProgress
}

/**
 * Every notification the server sends, bounded in count and bytes: a subscriber that falls this far behind loses the
 * oldest (a flooding server cannot grow a slow reader's backlog without end).
 */
const notificationsOf = <R>(options: Options<R>) =>
  Backlog.make(
    options.maxQueuedNotifications ?? 10_000,
    options.maxQueuedNotificationBytes ?? 16 * 1024 * 1024
  )

/** The engine on the transport, what it takes filtered (`kept`): the server's asks served by the handlers, its notifications published. */
const engine = <R>(
  options: Options<R>,
  transport: McpClientTransport["Type"],
  asks: Asks.Asks,
  store: ResponseCache.Store | undefined,
  notifications: Backlog.Backlog,
  connection: Connection,
  { callers, relatedOf, taskProgress }: Told
) =>
  Effect.flatMap(Effect.runtime<never>(), (runtime) => {
    const runFork = Runtime.runFork(runtime)
    const dropped = (what: string) =>
      void runFork(Effect.logWarning(`effect-mcp client: the server sent ${what}; dropped`))
    /** The server's requests being answered now, at most `maxServerRequests`. */
    const maxServing = options.maxServerRequests ?? 100
    let serving = 0
    const done = Effect.sync(() => void serving--)
    return Peer.make<never, ClientError.TransportFailure>({
      protocol: transport.protocol,
      keep: (inbound) => kept(inbound, connection.era === "stateless", dropped),
      ...(options.timeout !== undefined ? { timeout: options.timeout } : {}),
      ...(options.maxTimeout !== undefined ? { maxTimeout: options.maxTimeout } : {}),
      revision: () => Effect.succeed(connection.spoken),
      onRequest: (_client, request, received) => {
        // Counted while it runs: past the bound, refused at once (its id answered with the error).
        const served = Effect.suspend(() => {
          // A ping is answered at once and holds nothing: never refused.
          if (serving >= maxServing && request.method !== "ping") {
            return Effect.fail(
              new McpError.InternalError({
                message: `the client answers ${maxServing} of the server's requests already (maxServerRequests); ` +
                  `${request.method} refused`
              })
            )
          }
          serving++
          return Effect.ensuring(asks.serve(connection.spoken, request.method, request.params), done)
        })
        // Raised on the stream of one of our requests: its handler sees that request's caller.
        const caller = received?.related === undefined ? undefined : callers.get(received.related)
        return caller === undefined ? served : Effect.locally(served, currentCaller, caller)
      },
      onNotification: (_client, notification, received) => {
        // The progress of a 2025-11-25 task call, past its answer: told to that call's handler.
        const told = notification.method === "notifications/progress"
          ? taskProgress.told(notification.params)
          : undefined
        if (told !== undefined) return told
        // Came on the stream of one of our requests: told with it (`notificationsReceived`).
        if (received?.related !== undefined) relatedOf.set(notification, received.related)
        // What it makes stale is dropped before anyone hears of it.
        const stale = store === undefined
          ? undefined
          : ResponseCache.staleAfter(notification.method, notification.params)
        return Effect.zipRight(
          stale === undefined || store === undefined ? Effect.void : store.invalidate(stale),
          notifications.publish(notification)
        )
      }
    })
  })

/** The era: pinned, or probed (see `Era.pick`). */
const pick = <R>(
  options: Options<R>,
  peer: Peer.Peer<ClientError.TransportFailure>,
  capabilities: McpSchema.Capabilities.ClientCapabilities,
  discoverNow: Effect.Effect<RequestResult<"server/discover">, ClientError.ClientError>,
  transport: McpClientTransport["Type"]
) =>
  Era.pick({
    choice: options.era ?? "auto",
    discover: discoverNow,
    initialize: Session.request({
      peer,
      // 2025-11-25, when asked: tasks (this client runs none of its own: none to list or cancel).
      capabilities: options.declareTasks === true
        ? { ...capabilities, tasks: { list: {}, cancel: {} } }
        : capabilities,
      clientInfo: options.clientInfo,
      pinned: options.era === "handshake"
    }),
    confirm: Session.confirm(peer),
    probeTimeout: options.probeTimeout,
    started: transport.started
  })

/** `mcp.client.session.duration`, when the session ends with the client's scope. */
const sessionDuration = (transport: McpClientTransport["Type"], revision: Revision.Revision) =>
  Effect.suspend(() => {
    const opened = performance.now()
    const labels = [MetricLabel.make(Telemetry.attributes.protocolVersion, revision)]
    const described = transport.protocol.telemetry
    if (described !== undefined) {
      labels.push(MetricLabel.make(Telemetry.attributes.networkTransport, described.transport))
    }
    return Effect.addFinalizer(() =>
      Effect.sync(() => Telemetry.clientSessionDuration.unsafeUpdate((performance.now() - opened) / 1000, labels))
    )
  })

/**
 * A session's request. A caller that set `currentCaller` is remembered while it is in flight,
 * for the asks that arrive on its stream (stateless asks run in the caller's own fibers).
 */
const sessionRequestOf = (
  peer: Peer.Peer<ClientError.TransportFailure>,
  callers: Map<JsonRpc.RequestId, unknown>
) =>
(method: string, params: object | undefined, call: Parameters<Service["request"]>[2]) =>
  Effect.withFiberRuntime<unknown, ClientError.ClientError>((fiber) => {
    const caller = fiber.getFiberRef(currentCaller)
    if (caller === undefined) return peer.request(server, method, params, engineOptions(call))
    let id: JsonRpc.RequestId | undefined
    return Effect.ensuring(
      peer.request(server, method, params, {
        ...engineOptions(call),
        onId: (assigned) => {
          id = assigned
          callers.set(assigned, caller)
        }
      }),
      Effect.sync(() => id !== undefined && callers.delete(id))
    )
  })

/** Every page of a listing, within the client's bounds (`Listing.all`). */
const listing = (bounds: Listing.Bounds) =>
<A>(
  method: string,
  page: (params: { readonly cursor?: string }) => Effect.Effect<Listing.Listed<A>, ClientError.ClientError>
): Effect.Effect<ReadonlyArray<A>, ClientError.ClientError> =>
  Listing.all(method, bounds, (cursor) => page(cursor === undefined ? {} : { cursor }))

/** The tools that may be offered (2026-07-28 HTTP: those whose `x-mcp-header` annotations hold), the others said. */
const offered = (
  transport: McpClientTransport["Type"],
  era: Revision.Era,
  listed: ReadonlyArray<McpSchema.Tool.Tool>
) => {
  const shown = transport.tools === undefined || era === "handshake" ? listed : transport.tools(listed)
  const hidden = listed.filter((tool) => !shown.includes(tool)).map((tool) => tool.name)
  return hidden.length === 0 ? Effect.succeed(shown) : Effect.as(
    Effect.logWarning(`effect-mcp: tools with invalid x-mcp-header annotations are not offered: ${hidden.join(", ")}`),
    shown
  )
}

/** A session's subscription is refused when nothing the server raises could reach this client. */
const eventStreamOpen = (transport: McpClientTransport["Type"]): Effect.Effect<void, ClientError.ClientError> =>
  transport.eventStream === undefined ? Effect.void : Effect.flatMap(
    transport.eventStream,
    (stream) => stream.open ? Effect.void : Effect.fail(new ClientError.NoEventStream({ reason: stream.reason }))
  )

/** The response cache's store: none, the in-memory one (the default), or the user's. */
const storeOf = (cache: Options["cache"]): Effect.Effect<ResponseCache.Store | undefined> =>
  cache === false
    ? Effect.succeed(undefined)
    : cache === undefined || cache === true
    ? ResponseCache.memory
    : Effect.succeed(cache)

/** The listings of resources, resource templates and prompts, every page. */
const listings = (
  listAll: ReturnType<typeof listing>,
  request: Service["request"]
): Pick<Service, "listResources" | "listResourceTemplates" | "listPrompts"> => ({
  listResources: listAll(
    "resources/list",
    (params) => Effect.map(request("resources/list", params), (r) => ({ items: r.resources, next: r.nextCursor }))
  ),
  listResourceTemplates: listAll("resources/templates/list", (params) =>
    Effect.map(
      request("resources/templates/list", params),
      (r) => ({ items: r.resourceTemplates, next: r.nextCursor })
    )),
  listPrompts: listAll(
    "prompts/list",
    (params) => Effect.map(request("prompts/list", params), (r) => ({ items: r.prompts, next: r.nextCursor }))
  )
})

export const make = <R>(
  options: Options<R>
): Effect.Effect<Service, ClientError.ClientError, McpClientTransport | Scope.Scope | R> =>
  Effect.gen(function*() {
    const transport = yield* McpClientTransport
    const handlers = options.handlers ?? {}
    const telemetry = yield* Telemetry.enabled
    const capabilities = options.capabilities ?? Asks.capabilitiesOf(handlers)
    const asks = Asks.make(handlers, capabilities, yield* Effect.context<R>())
    const bounds = Listing.boundsOf(options)
    const notifications = yield* notificationsOf(options)
    const store = yield* storeOf(options.cache)
    /** The connection as it stands: the revision spoken (server requests are decoded with it). */
    const connection: Connection = { spoken: Revision.latestHandshake, era: undefined }
    const told: Told = { callers: new Map(), relatedOf: new WeakMap(), taskProgress: new Tasks.TaskProgress() }
    const { callers, relatedOf, taskProgress } = told
    const peer = yield* engine(options, transport, asks, store, notifications, connection, told)

    const stateless = Stateless.make({
      peer,
      asks,
      capabilities,
      clientInfo: options.clientInfo,
      logLevel: options.logLevel,
      maxRoundTrips: options.maxRoundTrips ?? 8,
      spans: telemetry.spans,
      pinned: options.era === "stateless"
    })
    const cache = yield* Cache.make(store, options.cachePartition ?? "", stateless.request)
    const discoverNow = Effect.flatMap(
      stateless.request("server/discover", {}, undefined),
      (result) => decoded(Stateless.revision, "server/discover", result)
    )
    const picked = yield* pick(options, peer, capabilities, discoverNow, transport)
    const era: Revision.Era = picked.era
    connection.era = era
    const discovered = picked.era === "stateless" ? picked.discovered : undefined
    const initialized = picked.era === "handshake" ? picked.initialized : undefined
    if (initialized === undefined) {
      connection.spoken = Stateless.revision
    } else {
      connection.spoken = initialized.revision
      if (telemetry.metrics) yield* sessionDuration(transport, initialized.revision)
    }
    const spoken = connection.spoken

    /** The wire result of any request, in the era spoken. */
    const send = (method: string, params: object | undefined, call: Parameters<Service["request"]>[2]) => {
      const other = eraOf(method, era)
      if (other !== undefined) return Effect.fail(other)
      // A request the cache never answers goes straight to the stateless driver.
      return era === "stateless"
        ? ResponseCache.cacheable.has(method)
          ? cache.request(method, params, call)
          : stateless.request(method, params, call)
        : sessionRequest(method, params, call)
    }

    const sessionRequest = sessionRequestOf(peer, callers)

    const request: Service["request"] = <M extends Requests>(
      method: M,
      params: RequestParams<M>,
      call?: Parameters<Service["request"]>[2]
    ): Effect.Effect<RequestResult<M>, ClientError.ClientError> =>
      Effect.flatMap(send(method, params, call), (result) => decoded(spoken, method, result))

    const requestUnknown: Service["requestUnknown"] = (method, params, call) =>
      Effect.flatMap(send(method, params, call), (result) => decodedUnknown(spoken, method, result))

    const listAll = listing(bounds)

    const serverInfo: Option.Option<Implementation> = initialized !== undefined
      ? Option.some(initialized.result.serverInfo)
      : Meta.getServerInfo(discovered?._meta)
    const serverCapabilities: ServerCapabilities = initialized?.result.capabilities ?? discovered?.capabilities ?? {}

    const listTools = Effect.flatMap(
      listAll("tools/list", (params) =>
        Effect.map(request("tools/list", params), (r) => ({ items: r.tools, next: r.nextCursor }))),
      (listed) =>
        offered(transport, era, listed)
    )

    const tasks = Tasks.make({
      era,
      revision: spoken,
      serverCapabilities,
      asks,
      notifications,
      bounds,
      taskProgress,
      // The tasks methods (and a task call): in the stateless era declaring the extension, past the cache.
      send: (method, params, call) => {
        const other = eraOf(method, era)
        if (other !== undefined) return Effect.fail(other)
        return era === "stateless"
          ? stateless.request(method, params, call, undefined, stateless.tasksMeta)
          : sessionRequest(method, params, call)
      },
      listen: (filter) => Subscriptions.listen({ peer, notifications, stateless, meta: stateless.tasksMeta }, filter)
    })

    const callTool = ((name, args, call) =>
      call !== undefined && "task" in call && call.task === true
        ? tasks.callTool(name, args, call)
        : request("tools/call", args === undefined ? { name } : { name, arguments: args }, call)) as Service["callTool"]

    const service = {
      era,
      revision: spoken,
      serverInfo,
      serverCapabilities,
      instructions: Option.fromNullable(initialized?.result.instructions ?? discovered?.instructions),
      request,
      requestUnknown,
      // 2026-07-28 has no ping: a discover is the cheapest request that proves the server answers.
      ping: Effect.asVoid(era === "stateless" ? discoverNow : request("ping", {})),
      discover: era === "stateless"
        ? discoverNow
        : Effect.fail(new ClientError.EraMismatch({ method: "server/discover", era })),
      listTools,
      callTool,
      tasks: tasks.tasks,
      callToolWith: callToolWith(request),
      ...listings(listAll, request),
      readResource: (uri, call) => request("resources/read", { uri }, call),
      getPrompt: (name, args, call) =>
        request("prompts/get", args === undefined ? { name } : { name, arguments: args }, call),
      complete: (params) => request("completion/complete", params),
      setLogLevel: (level) => Effect.asVoid(request("logging/setLevel", { level })),
      notifications: notifications.stream,
      notificationsReceived: Stream.map(
        notifications.stream,
        (notification) => ({ notification, related: relatedOf.get(notification) })
      ),
      cacheStats: cache.stats,
      rootsChanged: era === "handshake" ? peer.notify(server, "notifications/roots/list_changed", {}) : Effect.void,
      subscribe: (filter) =>
        era === "stateless"
          ? Subscriptions.listen({ peer, notifications, stateless }, filter)
          : Effect.zipRight(
            eventStreamOpen(transport),
            Subscriptions.session({
              notifications,
              capabilities: serverCapabilities,
              toggle: (method, uri) => request(method, { uri })
            }, filter)
          )
    } satisfies Service
    return Raw.withLane(service, era, spoken, (method, params, handlers) => peer.raw(server, method, params, handlers))
  })
