/**
 * A proxy: one server's features served to clients of another era or transport (a 2026-07-28
 * HTTP endpoint in front of a handshake-only stdio server, say). It is a client and a server at
 * once, on the same catalog:
 *
 * - **Mirroring**: the upstream's tools, resources, templates and prompts are registered on an
 *   `McpServer` as they are listed (definitions verbatim: input and output schemas, annotations,
 *   icons), and listed again when the upstream says a list changed; the server then tells its own
 *   clients and subscriptions.
 * - **Forwarding**: a call, read or prompt is the same request upstream. Its progress is the
 *   downstream request's progress; interrupting it (the downstream client cancelled, or closed
 *   its 2026 stream) cancels it upstream. Upstream errors are passed through as they came.
 * - **Updates**: the proxy subscribes upstream to every listed resource and to list changes;
 *   `notifications/resources/updated` becomes the server's `resourceUpdated`, which reaches the
 *   downstream sessions and `subscriptions/listen` streams that asked.
 * - **Asks**: the upstream's sampling, elicitation and roots requests are asked of the downstream
 *   client whose request they belong to: a 2026-07-28 upstream's are rounds of that very call; a
 *   handshake upstream's over Streamable HTTP come on that call's own stream; over stdio or legacy
 *   SSE they are the one request in flight's (refused when several are: nothing says which one
 *   it asks for, and a guess could hand one client's prompt to another), in its own era: a
 *   session's request is asked at once, a 2026-07-28 request gets an `input_required` round, whose
 *   retry calls upstream again and answers the same ask (keyed by its content) from the retry.
 *
 * @since 0.1.0
 */
import { type ClientError, McpClient } from "@effect-mcp/client"
import { McpError, type Revision, type Schema as McpSchema } from "@effect-mcp/core"
import { McpRequest, McpServer, Prompt, Resource, Tool } from "@effect-mcp/server"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import { createHash, randomBytes } from "node:crypto"

/**
 * An upstream failure as the downstream client sees it: the upstream's own error, or a -32603. An upstream
 * that went away is said without its reason: how a stdio upstream ended carries the last lines of its
 * stderr, which are the operator's to read, not the clients'.
 */
const toMcpError = (error: ClientError.ClientError | McpRequest.ClientRequestError): McpError.McpError =>
  McpError.isMcpError(error) ? error : new McpError.InternalError({
    message: `proxy: ${
      error._tag === "TransportClosed"
        ? `the upstream server closed before ${error.method} was answered`
        : error.message
    }`
  })

/** One ask of the upstream, handed to the downstream request it is asked of. */
interface Ask {
  readonly key: string
  readonly run: (request: McpRequest.Service, key: string) => Effect.Effect<unknown, McpRequest.ClientRequestError>
  readonly reply: Deferred.Deferred<unknown, McpError.McpError>
}

/** A downstream request in flight, the asks waiting for it, and every reply still owed upstream. */
interface Inflight {
  readonly request: McpRequest.Service
  readonly asks: Queue.Queue<Ask>
  readonly replies: Set<Deferred.Deferred<unknown, McpError.McpError>>
}

/**
 * Where the upstream's asks go: the downstream requests in flight. The client's handlers ask
 * through it; every forwarded request runs `forward`, which serves the asks meant for it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Relay {
  readonly handlers: McpClient.Handlers
  readonly forward: <A, E>(call: Effect.Effect<A, E>) => Effect.Effect<A, E, McpRequest.McpRequest>
}

/**
 * @since 0.1.0
 * @category tags
 */
export class ProxyRelay extends Context.Tag("mcp/Proxy/Relay")<ProxyRelay, Relay>() {}

/** The key of an ask: the same ask in a retry gets the same key, whatever order it comes in. */
const keyOf = (kind: string, params: unknown) =>
  `${kind}-${createHash("sha256").update(JSON.stringify(params ?? null)).digest("base64url").slice(0, 16)}`

/**
 * Options of the relay.
 *
 * @since 0.1.0
 * @category models
 */
export interface RelayOptions {
  /**
   * The roots told to the upstream when it asks (`roots/list`) with no request of a client in
   * flight, as a server does when it starts. Default: the roots a client gave last (the upstream
   * asked for them before), else none (an empty list).
   */
  readonly roots?: ReadonlyArray<McpSchema.Roots.Root>
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const makeRelayWith = (options: RelayOptions): Effect.Effect<Relay> =>
  Effect.gen(function*() {
    const inflight = yield* Ref.make<ReadonlyArray<Inflight>>([])
    /** The roots a client gave last, for an ask of nobody's request. */
    const lastRoots = yield* Ref.make<ReadonlyArray<McpSchema.Roots.Root>>([])

    const ask = (
      kind: string,
      params: unknown,
      run: Ask["run"],
      unasked?: Effect.Effect<unknown>
    ): Effect.Effect<unknown, McpError.McpError> =>
      Effect.flatMap(Effect.zip(FiberRef.get(McpClient.currentCaller), Ref.get(inflight)), ([caller, all]) => {
        // The call it asks for, when the client knows (see `McpClient.currentCaller`). Otherwise
        // (a handshake upstream over stdio): with one in flight it is that one; with several,
        // guessing could hand one client's prompt to another: refused. With none, an ask that has
        // an answer of its own (roots) gets it.
        const mine = all.find((entry) => entry === caller)
        if (mine === undefined && all.length === 0 && unasked !== undefined) return unasked
        if (mine === undefined && all.length !== 1) {
          return Effect.fail(
            new McpError.InternalError({
              message: all.length === 0
                ? `proxy: no request of a client is in flight to ask (${kind})`
                : `proxy: ${all.length} requests are in flight; the upstream's ${kind} cannot be told apart`
            })
          )
        }
        const target = mine ?? all[0]!
        return Effect.flatMap(Deferred.make<unknown, McpError.McpError>(), (reply) => {
          target.replies.add(reply)
          return Effect.zipRight(
            Queue.offer(target.asks, { key: keyOf(kind, params), run, reply }),
            Effect.ensuring(Deferred.await(reply), Effect.sync(() => target.replies.delete(reply)))
          )
        })
      })

    const handlers: McpClient.Handlers = {
      sampling: (params) =>
        ask("sampling", params, (request, key) => request.sample(key, params)) as Effect.Effect<
          McpSchema.Sampling.CreateMessageResult,
          McpError.McpError
        >,
      elicitation: (params) =>
        ask("elicitation", params, (request, key) => request.elicit(key, params as never)) as Effect.Effect<
          McpSchema.Elicitation.ElicitResult,
          McpError.McpError
        >,
      roots: ask(
        "roots",
        {},
        (request, key) => Effect.tap(request.roots(key), (roots) => Ref.set(lastRoots, roots)),
        Effect.tap(
          options.roots !== undefined ? Effect.succeed(options.roots) : Ref.get(lastRoots),
          (roots) =>
            Effect.logInfo(
              `mcp proxy: the upstream asked for roots with no client's request in flight; told it ${roots.length} ` +
                `root(s) (${options.roots !== undefined ? "configured" : "a client's last"})`
            )
        )
      ) as Effect.Effect<
        ReadonlyArray<McpSchema.Roots.Root>,
        McpError.McpError
      >
    }

    /**
     * Serves the asks meant for this request while `call` runs. The asks that arrive together are
     * asked together; an ask that stops the handler (a 2026-07-28 `input_required`) stops `call`
     * with every such signal of the batch, so one round carries them all.
     */
    const serveAsks = (entry: Inflight): Effect.Effect<never> =>
      Effect.forever(
        Effect.gen(function*() {
          const first = yield* Queue.take(entry.asks)
          const rest = yield* Queue.takeAll(entry.asks)
          const batch = [first, ...rest]
          const exits = yield* Effect.forEach(batch, (a) => Effect.exit(a.run(entry.request, a.key)), {
            concurrency: "unbounded"
          })
          const stopped: Array<Cause.Cause<never>> = []
          yield* Effect.forEach(batch, (a, i) => {
            const exit = exits[i]!
            if (Exit.isSuccess(exit)) return Deferred.succeed(a.reply, exit.value)
            const failure = Cause.failureOption(exit.cause)
            if (Option.isSome(failure)) return Deferred.fail(a.reply, toMcpError(failure.value))
            // Asked of a stateless client as input_required: the retry asks again, and is answered.
            stopped.push(exit.cause as Cause.Cause<never>)
            return Deferred.fail(
              a.reply,
              new McpError.InternalError({ message: "proxy: asked of the client as input_required; its retry answers" })
            )
          }, { discard: true })
          if (stopped.length > 0) return yield* Effect.failCause(stopped.reduce(Cause.parallel))
        })
      )

    const forward = <A, E>(call: Effect.Effect<A, E>): Effect.Effect<A, E, McpRequest.McpRequest> =>
      Effect.gen(function*() {
        const request = yield* McpRequest.McpRequest
        const entry: Inflight = { request, asks: yield* Queue.unbounded<Ask>(), replies: new Set() }
        yield* Ref.update(inflight, (all) => [...all, entry])
        // Whatever ends the request, nothing the upstream asked of it is left waiting.
        const ended = Effect.suspend(() =>
          Effect.forEach(
            Array.from(entry.replies),
            (reply) =>
              Deferred.fail(
                reply,
                new McpError.InternalError({ message: "proxy: the request it was asked for ended" })
              ),
            { discard: true }
          )
        )
        // The call runs as this request's: its asks are routed to it (see `McpClient.currentCaller`).
        return yield* Effect.raceFirst(Effect.locally(call, McpClient.currentCaller, entry), serveAsks(entry)).pipe(
          Effect.ensuring(Effect.zipRight(Ref.update(inflight, (all) => all.filter((e) => e !== entry)), ended))
        )
      })

    return { handlers, forward }
  })

/**
 * @since 0.1.0
 * @category constructors
 */
export const makeRelay: Effect.Effect<Relay> = makeRelayWith({})

/**
 * @since 0.1.0
 * @category layers
 */
export const layerRelay = (options: RelayOptions = {}): Layer.Layer<ProxyRelay> =>
  Layer.effect(ProxyRelay, makeRelayWith(options))

/** The progress of an upstream call, as the downstream request's. */
const progressOf = (request: McpRequest.Service) => ({
  onProgress: (p: { readonly progress: number; readonly total?: number; readonly message?: string }) =>
    request.progress(p.progress, p.total, p.message)
})

const toolOf = (client: McpClient.Service, relay: Relay, definition: McpSchema.Tool.Tool) => {
  const { inputSchema, name, outputSchema, ...rest } = definition
  return Tool.make(
    name,
    {
      ...rest,
      inputSchema,
      ...(outputSchema !== undefined ? { outputSchema } : {})
    } as Tool.Options<undefined, undefined, undefined, typeof inputSchema>,
    (args) =>
      Effect.flatMap(McpRequest.McpRequest, (request) =>
        relay.forward(
          client.callTool(name, args, progressOf(request)).pipe(Effect.mapError(toMcpError))
        ))
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

const promptOf = (client: McpClient.Service, relay: Relay, definition: McpSchema.Prompt.Prompt, complete: boolean) => {
  const args = definition.arguments ?? []
  const fields = Object.fromEntries(args.map((a) => {
    const base = a.description !== undefined ? Schema.String.annotations({ description: a.description }) : Schema.String
    return [a.name, a.required === true ? base : Schema.optional(base)] as const
  })) as Schema.Struct.Fields
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
  }, (given) =>
    Effect.flatMap(McpRequest.McpRequest, (request) =>
      relay.forward(
        client.getPrompt(definition.name, given as Record<string, string>, progressOf(request)).pipe(
          Effect.mapError(toMcpError)
        )
      )))
}

const read = (client: McpClient.Service, relay: Relay, uri: string) =>
  Effect.flatMap(
    McpRequest.McpRequest,
    (request) => relay.forward(client.readResource(uri, progressOf(request)).pipe(Effect.mapError(toMcpError)))
  )

/** The variables of a URI template (`{name}`, `{+name}`, `{?a,b}`, …). */
const variablesOf = (uriTemplate: string) =>
  Array.from(uriTemplate.matchAll(/\{[+#./;?&]?([^}]+)\}/g)).flatMap((m) =>
    m[1]!.split(",").map((v) => v.replace(/[*]|:\d+$/g, ""))
  )

const templateOf = (
  client: McpClient.Service,
  relay: Relay,
  definition: McpSchema.Resource.ResourceTemplate,
  complete: boolean
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
  }, (_variables, uri) => read(client, relay, uri))

/**
 * Options of the proxy: its server's, and its relay's (`layerFrom`).
 *
 * @since 0.1.0
 * @category models
 */
export interface Options extends RelayOptions {
  /** What the proxy serves (default: the handshake era's revisions, as `McpServer`). */
  readonly revisions?: ReadonlyArray<Revision.Revision>
  /**
   * The key sealing 2026-07-28 `requestState`, for proxies behind one load balancer (default: a
   * random key of this process, which is enough for one proxy).
   */
  readonly requestStateKey?: Redacted.Redacted<string>
  /**
   * The most URIs subscribed upstream that the upstream does not list (default 1,000): URIs of its
   * templates, which a client subscribed to. Past it, the oldest is no longer followed.
   */
  readonly maxUnlistedSubscriptions?: number
}

/**
 * The proxy's server: an `McpServer` mirroring the upstream `McpClient` (the one the relay's
 * handlers were given to), kept in step for the lifetime of the layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options = {}
): Layer.Layer<McpServer.McpServer, never, McpClient.McpClient | ProxyRelay> =>
  Layer.scoped(
    McpServer.McpServer,
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const relay = yield* ProxyRelay
      const caps = client.serverCapabilities
      const completes = caps.completions !== undefined
      const subscribes = caps.resources?.subscribe === true

      /** What is mirrored now, by kind: each name, URI or URI template, with its definition as JSON. */
      const mirrored = yield* Ref.make({
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
       */
      const onResourceSubscribe = (uri: string): Effect.Effect<void> =>
        Effect.gen(function*() {
          if (!subscribes || (yield* Ref.get(mirrored)).resources.has(uri)) return
          const added = yield* Ref.modify(
            unlisted,
            (uris) => uris.includes(uri) ? [false, uris] : [true, [...uris, uri].slice(-maxUnlisted)]
          )
          if (added) yield* Queue.offer(wake, void 0)
          yield* covered.changes.pipe(
            Stream.takeUntil((uris) => uris.has(uri)),
            Stream.runDrain,
            Effect.timeout("5 seconds"),
            Effect.ignore
          )
        })

      const server = yield* McpServer.make({
        serverInfo: Option.getOrElse(client.serverInfo, () => ({ name: "mcp-proxy", version: "0.1.0" })),
        ...Option.match(client.instructions, { onNone: () => ({}), onSome: (instructions) => ({ instructions }) }),
        ...(options.revisions !== undefined ? { revisions: options.revisions } : {}),
        requestStateKey: options.requestStateKey ?? Redacted.make(randomBytes(32).toString("base64url")),
        onResourceSubscribe,
        capabilities: {
          tools: caps.tools !== undefined,
          prompts: caps.prompts !== undefined,
          resources: caps.resources !== undefined,
          completions: completes
        }
      })

      /**
       * Registers what is listed anew or changed, and drops what no longer is (so a change upstream
       * is one change downstream); a definition that cannot be served is skipped with a warning.
       */
      const sync = <D>(
        kind: "tools" | "prompts" | "resources" | "templates",
        listed: ReadonlyArray<D>,
        keyOf: (d: D) => string,
        add: (d: D) => Effect.Effect<void>,
        remove: (key: string) => Effect.Effect<boolean>
      ) =>
        Effect.gen(function*() {
          const before = (yield* Ref.get(mirrored))[kind]
          const now = new Map<string, string>()
          for (const d of listed) {
            const key = keyOf(d)
            const json = JSON.stringify(d)
            if (before.get(key) === json) {
              now.set(key, json)
              continue
            }
            const added = yield* Effect.either(Effect.try(() => add(d)).pipe(Effect.flatten))
            if (added._tag === "Left") {
              yield* Effect.logWarning(`mcp proxy: ${kind} ${key} is not served: ${added.left.message}`)
            } else now.set(key, json)
          }
          for (const key of before.keys()) if (!now.has(key)) yield* remove(key)
          yield* Ref.update(mirrored, (m) => ({ ...m, [kind]: now }))
        })

      const list = <A>(what: string, effect: Effect.Effect<ReadonlyArray<A>, ClientError.ClientError>) =>
        effect.pipe(
          Effect.tapError((error) => Effect.logWarning(`mcp proxy: listing ${what} failed: ${error.message}`)),
          Effect.orElseSucceed((): ReadonlyArray<A> => [])
        )

      const syncTools = Effect.flatMap(
        list("tools", client.listTools),
        (listed) =>
          sync("tools", listed, (t) => t.name, (t) => server.addTool(toolOf(client, relay, t)), server.removeTool)
      )
      const syncPrompts = Effect.flatMap(list("prompts", client.listPrompts), (listed) =>
        sync(
          "prompts",
          listed,
          (p) => p.name,
          (p) => server.addPrompt(promptOf(client, relay, p, completes)),
          server.removePrompt
        ))
      const syncResources = Effect.gen(function*() {
        const listed = yield* list("resources", client.listResources)
        yield* sync(
          "resources",
          listed,
          (r) => r.uri,
          (r) => server.addResource(Resource.make(r.uri, r, read(client, relay, r.uri))),
          server.removeResource
        )
        const templates = yield* list("resource templates", client.listResourceTemplates)
        yield* sync(
          "templates",
          templates,
          (t) => t.uriTemplate,
          (t) => server.addResource(templateOf(client, relay, t, completes)),
          server.removeResource
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

      /**
       * Follows the upstream: list changes are listed again, resource updates passed on. It
       * subscribes first and then lists everything again, so that nothing changed in between is
       * missed; a change of the subscribed URIs (listed anew, or a client's) subscribes again.
       */
      const once = Effect.gen(function*() {
        const uris = yield* subscribedUris
        const subscription = yield* client.subscribe({
          ...(caps.tools?.listChanged === true ? { toolsListChanged: true } : {}),
          ...(caps.prompts?.listChanged === true ? { promptsListChanged: true } : {}),
          ...(caps.resources?.listChanged === true ? { resourcesListChanged: true } : {}),
          ...(uris.length > 0 ? { resourceSubscriptions: uris } : {})
        })
        yield* SubscriptionRef.set(covered, new Set(uris))
        yield* Effect.addFinalizer(() => SubscriptionRef.set(covered, new Set()))
        yield* syncAll
        const same = (now: ReadonlyArray<string>) =>
          now.length === uris.length && now.every((uri) => uris.includes(uri))
        const followed = subscription.notifications.pipe(
          Stream.mapEffect((n) => {
            switch (n.method) {
              case "notifications/tools/list_changed":
                return Effect.as(syncTools, true)
              case "notifications/prompts/list_changed":
                return Effect.as(syncPrompts, true)
              case "notifications/resources/list_changed":
                return Effect.zipRight(syncResources, Effect.map(subscribedUris, same))
              case "notifications/resources/updated": {
                const uri = (n.params as { readonly uri?: unknown } | undefined)?.uri
                return Effect.as(typeof uri === "string" ? server.resourceUpdated(uri) : Effect.void, true)
              }
              default:
                return Effect.succeed(true)
            }
          })
        )
        yield* Stream.merge(followed, Stream.mapEffect(Stream.fromQueue(wake), () => Effect.map(subscribedUris, same)))
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
              ? Effect.logWarning(`mcp proxy: the upstream closed; no longer following it: ${error.message}`)
              // Nothing it raises could arrive (a GET answered 405): said once, not tried again.
              : error._tag === "NoEventStream"
              ? Effect.logWarning(`mcp proxy: the upstream's changes are not followed: ${error.message}`)
              : Effect.zipRight(
                Effect.logWarning(`mcp proxy: following the upstream: ${error.message}`),
                Effect.zipRight(Effect.sleep("5 seconds"), follow)
              ),
          onSuccess: () => Effect.zipRight(Effect.sleep("100 millis"), follow)
        })
      )
      const followed = caps.tools?.listChanged === true || caps.prompts?.listChanged === true ||
        caps.resources?.listChanged === true || subscribes
      if (followed) yield* Effect.forkScoped(follow)
      return server
    })
  )

/**
 * A proxy of the upstream the client transport reaches, as a server: the client (`era` chosen
 * as `McpClient` does) and the relay, wired.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerFrom = (
  clientOptions: Omit<McpClient.Options, "handlers">,
  options: Options = {}
) =>
  layer(options).pipe(
    Layer.provideMerge(
      Layer.unwrapEffect(
        Effect.map(ProxyRelay, (relay) => McpClient.layer({ ...clientOptions, handlers: relay.handlers }))
      )
    ),
    Layer.provideMerge(layerRelay(options))
  )
