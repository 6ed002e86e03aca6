/**
 * A gateway: many upstream MCP servers behind one server, each mounted under its name (`Mount`):
 * tools and prompts `name_tool`, resources and templates `name+uri`. It is the proxy's mirroring,
 * once per upstream, onto that upstream's part of one server:
 *
 * - **Upstreams** come from the configuration hosts already use: `{"mcpServers": {"name":
 *   {"command", "args", "env"} | {"url", "headers"}}}`, each connected with our client in the era
 *   it speaks (over stdio, or Streamable HTTP / legacy SSE as `McpClient` finds); an HTTP upstream
 *   that asks for authorization is authorized with `McpAuth`, its tokens in the token file (`auth`).
 * - **Asks** (sampling, elicitation, roots) go to the downstream client whose request caused them,
 *   through the upstream's own relay; an upstream's `roots/list` with no request in flight is
 *   answered from `roots` (default: none; never another client's). Cancellation and progress follow the
 *   request, as through the proxy.
 * - **Tasks**: a task call of an upstream's task tool is a task of the gateway's own once the
 *   upstream made one, followed there (status messages, asks, result or error, cancel): clients
 *   see only the gateway's ids, each reached by its own owner alone, as any task of a server's; an
 *   upstream gone loses its tasks with -32603 saying so (see `internal/upstreamTasks.ts`).
 * - **Logs**: an upstream's `notifications/message` outside any call reaches every handshake
 *   session whose level admits it, its logger under the upstream's name (`name`, or `name/logger`);
 *   the upstreams are told the most verbose level any client set (`logging/setLevel`). One that
 *   comes on a call's own stream (an upstream over Streamable HTTP) belongs to the downstream
 *   request that caused the call: it is logged on that request alone (its stream; a 2026-07-28
 *   client hears it when its request asked for logs, at its level), once. A 2026-07-28 upstream is
 *   asked, per call, for the downstream request's level.
 * - **Policy**, per upstream (`"tools"` beside its command or URL): tools included or excluded by
 *   name or annotation (`excludeHints`), read-only mode (only tools annotated `readOnlyHint`),
 *   renamed, described anew, arguments fixed or given defaults (see `ToolPolicy`).
 * - **Isolation**: each upstream lives in a fiber of its own. One that fails to start, exits or
 *   stops answering a ping loses only its own entries (the clients are told the lists changed) and
 *   is started again after a backoff that doubles up to `maxBackoff`; a call to its tools
 *   meanwhile is the server's JSON-RPC error for an unknown tool, and a call in flight when it went
 *   away is answered at once with -32603 naming it. A slow upstream holds nobody else's requests.
 *
 * Why it lives in `apps/cli`: it is a client and a server at once (as the proxy, whose relay and
 * mirror it uses), and `server` and `client` never import each other; it needs Node to spawn stdio
 * upstreams. A package of its own would be this module and its tests, for no user yet who wants it
 * without the `mcp` command.
 *
 * @since 0.1.0
 */
import { McpClient, McpClientTransport } from "@effect-mcp/client"
import type { Revision, Schema as McpSchema } from "@effect-mcp/core"
import { NodeMcpClient, type NodeMcpServer } from "@effect-mcp/platform-node"
import { McpServer, Mount } from "@effect-mcp/server"
import * as RelayTable from "@effect-mcp/server/RelayTable"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import { randomBytes } from "node:crypto"
import * as Mirror from "./internal/mirror.js"
import * as Policy from "./internal/policy.js"
import * as UpstreamLogs from "./internal/upstreamLogs.js"
import * as Proxy from "./Proxy.js"
import * as Target from "./Target.js"

/**
 * An upstream over stdio: the command spawned, its arguments and environment (added to the few
 * variables of the gateway's own that a program needs, `defaultEnvironment`: never its secrets).
 *
 * @since 0.1.0
 * @category models
 */
export const StdioUpstream = Schema.Struct({
  command: Schema.String,
  args: Schema.optional(Schema.Array(Schema.String)),
  env: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  tools: Schema.optional(Policy.ToolPolicy)
})

/**
 * How an HTTP upstream that asks for authorization is authorized (OAuth, as `mcp` authorizes its
 * HTTP targets), all optional: the client registered beforehand (`clientId`, `clientSecret`), or
 * named by the URL of its metadata document (`clientMetadataUrl`), else registered dynamically;
 * `clientCredentials` for the client credentials grant (no user: `clientId` and `clientSecret` are
 * the gateway's own); the token file (`tokenStore`, default `MCP_TOKEN_STORE`, else the file of
 * `mcp login`). Without tokens, and without `clientCredentials`, a user is asked to authorize: the
 * URL to open is said on stderr (`mcp gateway: <name>: to authorize, open <url>`), and the upstream
 * is up once they did.
 *
 * @since 0.1.0
 * @category models
 */
export const UpstreamAuth = Schema.Struct({
  clientId: Schema.optional(Schema.String),
  clientSecret: Schema.optional(Schema.Redacted(Schema.String)),
  clientMetadataUrl: Schema.optional(Schema.String),
  clientCredentials: Schema.optional(Schema.Boolean),
  tokenStore: Schema.optional(Schema.String)
})

/**
 * An upstream over HTTP: its URL, the headers sent with every request, and how it is authorized
 * where it asks (`auth`, see `UpstreamAuth`).
 *
 * @since 0.1.0
 * @category models
 */
export const HttpUpstream = Schema.Struct({
  url: Schema.String,
  headers: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  auth: Schema.optional(UpstreamAuth),
  tools: Schema.optional(Policy.ToolPolicy)
})

/**
 * What of an upstream's tools is served, and how: `include` / `exclude` (names), `excludeHints`
 * (annotations), `readOnly`, `rename`, `descriptions`, `fixed` and `defaults` (arguments, by tool).
 * Names are the upstream's own.
 *
 * @since 0.1.0
 * @category models
 */
export const ToolPolicy = Policy.ToolPolicy

/**
 * The configuration file: the upstreams by name (each name a `Mount` prefix: a letter, then
 * letters, digits, `-` or `.`).
 *
 * @since 0.1.0
 * @category models
 */
export const Config = Schema.Struct({
  mcpServers: Schema.Record({ key: Schema.String, value: Schema.Union(StdioUpstream, HttpUpstream) })
})

/**
 * @since 0.1.0
 * @category models
 */
export type Config = typeof Config.Type

/**
 * How one upstream stands: `starting` (never connected yet), `up`, or `down` (waiting to be
 * started again), how many times it was started again, and why it went down last.
 *
 * @since 0.1.0
 * @category models
 */
export interface Status {
  readonly name: string
  readonly state: "starting" | "up" | "down"
  readonly restarts: number
  readonly error?: string | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** Each upstream's status, in the configuration's order. */
  readonly status: Effect.Effect<ReadonlyArray<Status>>
  /**
   * A readiness check per upstream, `upstream:<name>`, true while it is up (for `readyChecks` of
   * the HTTP transport: `/readyz` names each upstream that is down).
   */
  readonly readyChecks: ReadonlyArray<readonly [string, Effect.Effect<boolean>]>
}

/**
 * @since 0.1.0
 * @category tags
 */
export class McpGateway extends Context.Tag("mcp/Gateway")<McpGateway, Service>() {}

/**
 * Options of the gateway.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly config: Config
  /** The gateway's name and version (default `mcp-gateway` 0.1.0). */
  readonly serverInfo?: McpSchema.Base.Implementation
  /** What it serves (default: both eras, as `McpServer`). */
  readonly revisions?: ReadonlyArray<Revision.Revision>
  /** The key sealing 2026-07-28 `requestState` (default: a random key of this process). */
  readonly requestStateKey?: Redacted.Redacted<string>
  /**
   * The roots told to an upstream that asks with no client's request in flight (default: none: the
   * roots a client gave last would tell it another client's).
   */
  readonly roots?: ReadonlyArray<McpSchema.Roots.Root>
  /**
   * How long a request to an upstream may take (default 60 seconds, restarted by its progress, as
   * `McpClient`'s `timeout`): one it never answers (its answer too long to take, say) is then
   * answered with an error.
   */
  readonly timeout?: Duration.DurationInput
  /**
   * The largest message taken from an upstream, in bytes (default {@link defaultMaxMessageLength},
   * 16 MiB): a longer stdio line is let go as it passes the bound, never decoded, and an HTTP body
   * or event is not read; the request it answers fails.
   */
  readonly maxMessageLength?: number
  /**
   * The most connections open at once for requests to one HTTP upstream (default
   * `NodeMcpClient.defaultConnections`, 64): its requests beyond them wait for one to be free. A
   * call answered over a stream holds its connection until its answer; GET streams (the
   * upstream's own, held while it is up) take as many again, and the answers to its asks and
   * notifications 4 more, on connections of their own (so no bound deadlocks).
   */
  readonly connections?: number
  /** The first wait before an upstream is started again (default 500 millis), doubled each time. */
  readonly backoff?: Duration.DurationInput
  /** The longest wait before an upstream is started again (default 30 seconds). */
  readonly maxBackoff?: Duration.DurationInput
  /** How often each upstream is pinged (default 5 seconds); one that does not answer within it is down. */
  readonly pingInterval?: Duration.DurationInput
  /**
   * How long the gateway waits, when it starts, for its upstreams' first connections (default 10
   * seconds, together): those not up by then come as they come (their tools then appear with a
   * list change).
   */
  readonly startTimeout?: Duration.DurationInput
  /**
   * The most entries (tools, prompts, resources and templates together) mirrored from every
   * upstream at once (default {@link defaultMaxMirroredEntries}); each upstream's own kinds are
   * bounded apart too (1,000 each). An upstream's listing that would take them past it is not
   * served, with a warning naming the bound: that upstream keeps what it had, the others go on.
   */
  readonly maxMirroredEntries?: number
}

/**
 * The default `maxMirroredEntries`: 10,000 entries from every upstream together.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxMirroredEntries = 10_000

const clientInfo = { name: "mcp-gateway", version: "0.1.0" }

/** Why a connection ended, in one line. */
const reasonOf = (error: unknown): string =>
  (error instanceof Error || (typeof error === "object" && error !== null && "message" in error)
    ? String((error as { readonly message: unknown }).message)
    : String(error)).split("\n")[0]!

/**
 * What a stdio upstream inherits of the gateway's environment: `HOME`, `LOGNAME`, `PATH`, `SHELL`,
 * `TERM` and `USER` (on Windows `APPDATA`, `PATH`, `SYSTEMROOT`, `TEMP`, `USERPROFILE`, …), as the
 * official SDK's `getDefaultEnvironment`; nothing else (no token, no `MCP_REQUEST_STATE_KEY`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const defaultEnvironment: () => Record<string, string> = Target.defaultEnvironment

/**
 * The largest message taken from an upstream by default: 16 MiB, what our client takes over HTTP
 * (`maxMessageSize`), so one bound whatever the transport (a stdio server's client takes 32 MiB). An
 * unfinished stdio line is held as bytes outside the heap, so a gateway of n upstreams holds at most
 * n × 16 MiB of them; a message within the bound is decoded and encoded again on its way, several
 * times its size in the heap for a moment.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxMessageLength = 16 * 1024 * 1024

/** The transport of one upstream. */
const transportOf = (
  name: string,
  upstream: Config["mcpServers"][string],
  options: Options
): Layer.Layer<McpClientTransport.McpClientTransport, NodeMcpClient.SpawnError | NodeMcpServer.ListenError> =>
  "command" in upstream
    ? NodeMcpClient.layerStdio({
      command: upstream.command,
      args: upstream.args ?? [],
      maxMessageLength: options.maxMessageLength ?? defaultMaxMessageLength,
      env: { ...defaultEnvironment(), ...upstream.env },
      // Its stderr is the operator's: on ours, each line named.
      stderr: (line) => process.stderr.write(`mcp gateway: ${name}: ${line}\n`)
    })
    : McpClientTransport.layerHttp({
      url: upstream.url,
      maxMessageSize: options.maxMessageLength ?? defaultMaxMessageLength,
      ...(upstream.headers !== undefined ? { headers: upstream.headers } : {})
    }).pipe(Layer.provide(Target.httpClient(
      { ...upstream.auth, timeout: options.timeout ?? "60 seconds" },
      `mcp gateway: ${name}`,
      options.connections
    )))

/**
 * Makes the gateway: its server (every upstream's entries under its name) and its upstreams'
 * status. A name that is not a prefix fails it when it is built, in one line.
 *
 * @since 0.1.0
 * @category constructors
 */
/** A map without `key`'s entry (a copy). */
const without = (key: string) => <A>(all: ReadonlyMap<string, A>): Map<string, A> => {
  const left = new Map(all)
  left.delete(key)
  return left
}

export const make = (options: Options) =>
  Effect.gen(function*() {
    const names = Object.keys(options.config.mcpServers)
    const bad = Mount.entries(names.map((prefix) => ({ prefix })))
    if (typeof bad === "string") return yield* Effect.dieMessage(bad.replace(/^Mount: prefix/, "mcp gateway: name"))
    /** Each upstream's hook for the server's subscriptions, while it is up. */
    const hooks = yield* Ref.make(new Map<string, (uri: string) => Effect.Effect<void>>())
    /** The most verbose log level a client set (handshake era), and each upstream's client while it is up. */
    const logLevel = yield* Ref.make<McpSchema.Base.LoggingLevel | undefined>(undefined)
    const clients = yield* Ref.make(new Map<string, McpClient.Service>())
    const levelLock = yield* Effect.makeSemaphore(1)
    /** Passes `level` on to an upstream (one in the 2026-07-28 era has no session level: nothing to tell). */
    const tellLevel = (client: McpClient.Service, level: McpSchema.Base.LoggingLevel | undefined) =>
      level === undefined || client.revision === "2026-07-28" ? Effect.void : Effect.ignore(client.setLogLevel(level))
    /** The upstreams' tools a call is relayed to raw when it needs nothing more (`RelayTable`). */
    const relayTable = RelayTable.make()
    const server = yield* McpServer.make({
      serverInfo: options.serverInfo ?? clientInfo,
      relay: relayTable,
      ...(options.revisions !== undefined ? { revisions: options.revisions } : {}),
      requestStateKey: options.requestStateKey ?? Redacted.make(randomBytes(32).toString("base64url")),
      // Tasks up front: an upstream's task tools may come after a client's handshake.
      capabilities: { tools: true, prompts: true, resources: true, completions: true, tasks: true },
      // The most verbose level a client set, passed on to every upstream that is up (and to each as
      // it comes up); each session hears of their messages what its own level admits.
      // One change at a time, told before the next: two clients' levels told at once could reach an
      // upstream in the wrong order (left at `info` where the gateway holds `debug`).
      onLogLevel: (level) =>
        levelLock.withPermits(1)(Effect.flatMap(
          Ref.modify(logLevel, (before) => {
            const now = UpstreamLogs.lowest(before, level)
            return [now === before ? undefined : now, now]
          }),
          (changed) =>
            changed === undefined ? Effect.void : Effect.flatMap(
              Ref.get(clients),
              (all) => Effect.forEach(all.values(), (client) => tellLevel(client, changed), { discard: true })
            )
        )),
      onResourceSubscribe: (uri) =>
        Effect.flatMap(Ref.get(hooks), (all) => {
          for (const [name, hook] of all) {
            const own = Mount.unmountUri(name, uri)
            if (own !== undefined) return hook(own)
          }
          return Effect.void
        })
    })
    const statuses = yield* Ref.make(
      new Map<string, Status>(names.map((name) => [name, { name, state: "starting", restarts: 0 }]))
    )
    const setStatus = (name: string, f: (s: Status) => Status) =>
      Ref.update(statuses, (all) => new Map(all).set(name, f(all.get(name)!)))
    const pingEvery = options.pingInterval ?? "5 seconds"
    /** The entries every upstream's mirror holds, together (`maxMirroredEntries`). */
    const mirroredTotal: Mirror.Total = { max: options.maxMirroredEntries ?? defaultMaxMirroredEntries, used: 0 }

    /** One connection of an upstream, until it ends (it exits, or stops answering). */
    const connection = (name: string, upstream: Config["mcpServers"][string], first: Deferred.Deferred<void>) =>
      Effect.scoped(Effect.gen(function*() {
        const relay = yield* Proxy.makeRelayWith({ roots: options.roots ?? [] })
        const context = yield* Layer.build(
          McpClient.layer({
            clientInfo,
            handlers: relay.handlers,
            ...(options.timeout !== undefined ? { timeout: options.timeout } : {})
          }).pipe(Layer.provide(transportOf(name, upstream, options)))
        )
        const client = Context.get(context, McpClient.McpClient)
        const mirror = yield* Mirror.make(client, relay, {
          label: `mcp gateway: ${name}`,
          total: mirroredTotal,
          tools: upstream.tools,
          logPrefix: name,
          lane: { table: relayTable, prefix: name }
        })
        yield* Ref.update(hooks, (all) => new Map(all).set(name, mirror.onResourceSubscribe))
        yield* Ref.update(clients, (all) => new Map(all).set(name, client))
        yield* Effect.addFinalizer(() =>
          Effect.zipRight(Ref.update(hooks, without(name)), Ref.update(clients, without(name)))
        )
        yield* Effect.flatMap(Ref.get(logLevel), (level) => tellLevel(client, level))
        // Its entries under its name, removed when this connection ends. Every link or embedded
        // resource in its results is its own (a client reads it through the gateway, under its name).
        const part = Mount.under(server, name, () => true)
        // Its log messages, under its name, to the clients whose level admits them.
        yield* UpstreamLogs.follow(client, part)
        yield* mirror.start(part, true)
        yield* setStatus(name, (s) => ({ ...s, state: "up", error: undefined }))
        yield* Deferred.succeed(first, void 0)
        yield* Effect.logInfo(`mcp gateway: ${name} is up (${client.revision})`)
        // Up while it answers a ping within the interval.
        return yield* client.ping.pipe(
          Effect.timeoutFail({
            duration: pingEvery,
            onTimeout: () => new Error(`it did not answer a ping within ${Duration.format(pingEvery)}`)
          }),
          Effect.repeat(Schedule.spaced(pingEvery)),
          Effect.zipRight(Effect.never)
        )
      }))

    const initial = Duration.decode(options.backoff ?? "500 millis")
    const longest = Duration.decode(options.maxBackoff ?? "30 seconds")

    /** An upstream, started again after each end, with a backoff (reset once it stayed up that long). */
    const supervise = (name: string, upstream: Config["mcpServers"][string], first: Deferred.Deferred<void>) =>
      // A loop, not a recursion: no frame kept per restart, however many.
      Effect.iterate(initial, {
        while: () => true,
        body: (wait) =>
          Effect.gen(function*() {
            const began = yield* Clock.currentTimeMillis
            const exit = yield* Effect.exit(connection(name, upstream, first))
            const reason = Exit.isFailure(exit) ? reasonOf(Cause.squash(exit.cause)) : "it ended"
            yield* setStatus(name, (s) => ({ ...s, state: "down", error: reason }))
            yield* Deferred.succeed(first, void 0)
            const upFor = (yield* Clock.currentTimeMillis) - began
            const next = upFor > Duration.toMillis(longest) ? initial : wait
            yield* Effect.logWarning(
              `mcp gateway: ${name} is down (${reason}); started again in ${Duration.format(next)}`
            )
            yield* Effect.sleep(next)
            yield* setStatus(name, (s) => ({ ...s, restarts: s.restarts + 1 }))
            return Duration.min(Duration.times(next, 2), longest)
          })
      }).pipe(Effect.zipRight(Effect.never))

    const firsts = yield* Effect.forEach(names, () => Deferred.make<void>())
    yield* Effect.forEach(
      names,
      (name, i) => Effect.forkScoped(supervise(name, options.config.mcpServers[name]!, firsts[i]!)),
      { discard: true }
    )
    yield* Effect.forEach(firsts, Deferred.await, { concurrency: "unbounded", discard: true }).pipe(
      Effect.timeout(options.startTimeout ?? "10 seconds"),
      Effect.ignore
    )
    const gateway: Service = {
      status: Effect.map(Ref.get(statuses), (all) => names.map((name) => all.get(name)!)),
      readyChecks: names.map((name) =>
        [`upstream:${name}`, Effect.map(Ref.get(statuses), (all) => all.get(name)?.state === "up")] as const
      )
    }
    return { server, gateway }
  })

/**
 * The gateway as a Layer: the server (`McpServer`, to serve over any transport) and its status.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<McpServer.McpServer | McpGateway> =>
  Layer.scopedContext(
    Effect.map(make(options), ({ gateway, server }) =>
      Context.make(McpServer.McpServer, server).pipe(Context.add(McpGateway, gateway)))
  )
