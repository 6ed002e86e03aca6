/**
 * What the commands of `mcp` share: the target and its options, the client of a command, printing.
 */
import { AppView, McpClient } from "@effect-mcp/client"
import { Revision } from "@effect-mcp/core"
import { NodeMcpServer } from "@effect-mcp/platform-node"
import type { RedisUnavailable } from "@effect-mcp/redis/RedisConnection"
import type { McpServer } from "@effect-mcp/server"
import { Args, Options } from "@effect/cli"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { identity } from "effect/Function"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import { quote } from "shell-quote"
import * as Target from "../Target.js"

export const target = Args.text({ name: "target" }).pipe(
  Args.withDescription("stdio:<command> <args…> (split as a shell splits words) or an http(s):// URL")
)
/**
 * The target of a command that takes no other argument: its words may also come unquoted (`mcp tools
 * stdio:node dist/server.js`), each taken as one word of the command (a word that starts with `-` is
 * an option of mcp's: quote the whole target for that).
 */
export const lastTarget = Args.text({ name: "target" }).pipe(
  Args.atLeast(1),
  Args.map(([first, ...rest]) => rest.length === 0 ? first : `${first} ${quote(rest)}`),
  Args.withDescription(
    "stdio:<command> <args…> (quoted as one argument and split as a shell splits words, or unquoted) or an http(s):// URL"
  )
)
export const json = Options.boolean("json").pipe(Options.withDescription("print the results as JSON"))
export const era = Options.choice("era", ["auto", "handshake", "stateless"]).pipe(
  Options.withDefault("auto" as const),
  Options.withDescription("the era to speak (auto: probe with server/discover, then fall back)")
)
export const timeout = Options.integer("timeout").pipe(
  Options.withDefault(60),
  Options.withDescription("seconds one request may take, its progress notwithstanding")
)

/** How an HTTP target is authorized (the environment's `MCP_CLIENT_*` fill in what is not given). */
export const auth = {
  clientId: Options.text("client-id").pipe(
    Options.optional,
    Options.withDescription("a pre-registered OAuth client id (else MCP_CLIENT_ID; else dynamic registration)")
  ),
  clientSecret: Options.redacted("client-secret").pipe(
    Options.optional,
    Options.withDescription("its secret (else MCP_CLIENT_SECRET)")
  ),
  clientMetadataUrl: Options.text("client-metadata-url").pipe(
    Options.optional,
    Options.withDescription("the URL of this client's ID metadata document (else MCP_CLIENT_METADATA_URL)")
  ),
  clientCredentials: Options.boolean("client-credentials").pipe(
    Options.withDescription(
      "authorize as the client itself (client credentials grant, no user; MCP_CLIENT_CREDENTIALS=1)"
    )
  ),
  tokenStore: Options.text("token-store").pipe(
    Options.optional,
    Options.withDescription("the token file (else MCP_TOKEN_STORE, else ~/.config/effect-mcp/tokens.json)")
  ),
  allowInsecure: Options.boolean("allow-insecure").pipe(
    Options.withDescription(
      "OAuth endpoints over plain HTTP to hosts that are not loopback hosts (a LAN's authorization server); " +
        "never another scheme"
    )
  )
}

/** The authorization of a command's options. */
export const authOf = (o: {
  readonly clientId: Option.Option<string>
  readonly clientSecret: Option.Option<Redacted.Redacted<string>>
  readonly clientMetadataUrl: Option.Option<string>
  readonly clientCredentials: boolean
  readonly tokenStore: Option.Option<string>
  readonly allowInsecure: boolean
}, openBrowser = false): Target.Auth =>
  Target.withEnvironment({
    clientId: Option.getOrUndefined(o.clientId),
    clientSecret: Option.getOrUndefined(o.clientSecret),
    clientMetadataUrl: Option.getOrUndefined(o.clientMetadataUrl),
    clientCredentials: o.clientCredentials,
    tokenStore: Option.getOrUndefined(o.tokenStore),
    allowInsecure: o.allowInsecure,
    openBrowser
  })

/** Runs `use` with a client of `target`. */
export const withClient = <A, E>(
  where: string,
  connection: {
    readonly era: McpClient.EraChoice
    readonly timeout: number
    readonly auth: Target.Auth
    /** Declare the MCP Apps extension (a host of views: `mcp app`). */
    readonly apps?: boolean
  },
  use: (client: McpClient.Service) => Effect.Effect<A, E>
) =>
  connection.timeout < 1 ?
    Effect.fail(new Error(`--timeout is in whole seconds, at least 1 (got ${connection.timeout})`)) :
    Effect.flatMap(
      // Every OAuth request gets the command's timeout too.
      Target.transport(where, { ...connection.auth, timeout: Duration.seconds(connection.timeout) }),
      (transport) =>
        Effect.flatMap(McpClient.McpClient, use).pipe(
          Effect.provide(
            McpClient.layer(
              (connection.apps === true ? AppView.declare : identity)({
                clientInfo: { name: "mcp", version: "0.1.0" },
                era: connection.era,
                // The whole of one request: progress restarts its timeout, never past this.
                timeout: Duration.seconds(connection.timeout),
                maxTimeout: Duration.seconds(connection.timeout),
                probeTimeout: Duration.seconds(Math.min(5, connection.timeout))
              })
            ).pipe(Layer.provide(transport))
          )
        )
    )

/** Aligned columns, the first padded. */
export const columns = (rows: ReadonlyArray<readonly [string, string]>) => {
  const width = Math.max(0, ...rows.map(([a]) => a.length))
  return rows.map(([a, b]) => `${a.padEnd(width)}  ${b}`).join("\n")
}

export const oneLine = (text: string | undefined, max = 100) => {
  const flat = (text ?? "").replace(/\s+/g, " ").trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

export const print = (asJson: boolean, value: unknown, readable: () => string) =>
  Console.log(asJson ? JSON.stringify(value, null, 2) : readable())

/** The three server capabilities a command lists or uses. */
export type Feature = "tools" | "resources" | "prompts"

/** What is said of `feature` when the server did not declare it (only what was negotiated is used). */
export const noneOf = (feature: Feature) => `the server has no ${feature} (it declares no ${feature} capability)`

/**
 * A listing of `feature`: `list` when the server declared it; otherwise nothing is asked, one line
 * on stderr says so, and `--json` prints `empty` (exit 0: an empty list is the answer).
 */
export const listing = <A, E>(
  client: McpClient.Service,
  feature: Feature,
  json: boolean,
  empty: unknown,
  list: Effect.Effect<A, E>
): Effect.Effect<A | void, E> =>
  client.serverCapabilities[feature] !== undefined
    ? list
    : Effect.zipRight(Console.error(`mcp: ${noneOf(feature)}`), json ? print(true, empty, () => "") : Effect.void)

/** A use of `feature` (a call, a read, a prompt): refused, without asking, when the server did not declare it. */
export const declared = (client: McpClient.Service, feature: Feature): Effect.Effect<void, Error> =>
  client.serverCapabilities[feature] !== undefined ? Effect.void : Effect.fail(new Error(noneOf(feature)))

/** `--args`: a JSON object. */
export const parseArgs = (given: Option.Option<string>) =>
  Effect.try({
    try: () => {
      if (Option.isNone(given)) return undefined
      const value = JSON.parse(given.value)
      if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error("not an object")
      return value as Record<string, unknown>
    },
    catch: () => new Error(`--args must be a JSON object, got ${Option.getOrElse(given, () => "")}`)
  })

/** The text of content blocks, as a terminal shows it. */
export const contentText = (content: ReadonlyArray<{ readonly type: string; readonly text?: string }>) =>
  content.map((block) => block.type === "text" ? block.text ?? "" : `[${block.type}]`).join("\n")

export const spinner = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

/**
 * A call's progress on stderr: on a terminal, a bar when the total is known and a spinner when
 * it is not, redrawn in place and cleared at the end; elsewhere, one line per report.
 */
export const progressMeter = (tool: string) => {
  const tty = process.stderr.isTTY === true
  let drawn = false
  let frame = 0
  const update = (p: { readonly progress: number; readonly total?: number; readonly message?: string }) =>
    Effect.sync(() => {
      const message = p.message !== undefined ? ` ${oneLine(p.message, 40)}` : ""
      if (!tty) {
        process.stderr.write(`${tool}: ${p.progress}${p.total !== undefined ? `/${p.total}` : ""}${message}\n`)
        return
      }
      const width = Math.max(10, Math.min(30, (process.stderr.columns ?? 80) - 60))
      const line = p.total !== undefined && p.total > 0
        ? (() => {
          const ratio = Math.max(0, Math.min(1, p.progress / p.total))
          const filled = Math.round(ratio * width)
          return `${tool} [${"█".repeat(filled)}${"░".repeat(width - filled)}] ${Math.round(ratio * 100)}%${message}`
        })()
        : `${spinner[frame++ % spinner.length]} ${tool} ${p.progress}${message}`
      process.stderr.write(`\r\x1b[K${line}`)
      drawn = true
    })
  const done = Effect.sync(() => {
    if (drawn) process.stderr.write("\r\x1b[K")
  })
  return { update, done }
}

/**
 * `--env`: what a server spawned by a proxy or a gateway is given beyond the few variables a program
 * needs (`Target.defaultEnvironment`).
 */
export const env = Options.text("env").pipe(
  Options.repeated,
  Options.withDescription(
    "KEY=VALUE, or KEY to pass on its value here: a variable given to a stdio server, which inherits only " +
      "HOME, LOGNAME, PATH, SHELL, TERM and USER of this environment (repeatable)"
  )
)

/** `--max-message-bytes`: the largest message a proxy or a gateway takes from a server it reaches. */
export const maxMessageBytes = Options.integer("max-message-bytes").pipe(
  Options.optional,
  Options.withDescription(
    "the largest message taken from an upstream, in bytes (a stdio line, an HTTP body or event): a larger one " +
      "fails its request, unread (default: the gateway 16 MiB; the proxy 32 MiB over stdio, 16 MiB over HTTP)"
  )
)

/** `--max-message-bytes`, checked: at least 1 KiB (a smaller bound refuses the handshake's own answer). */
export const maxMessageBytesOf = (given: Option.Option<number>): Effect.Effect<number | undefined, Error> =>
  Option.match(given, {
    onNone: () => Effect.succeed(undefined),
    onSome: (bytes) =>
      bytes >= 1024
        ? Effect.succeed(bytes)
        : Effect.fail(new Error(`--max-message-bytes is at least 1024 (got ${bytes})`))
  })

/** `--max-connections`: the most connections a proxy or a gateway opens to one HTTP server it reaches. */
export const maxConnections = Options.integer("max-connections").pipe(
  Options.optional,
  Options.withDescription(
    "the most connections open at once for requests to an HTTP upstream (per upstream, per origin): requests " +
      "beyond them wait for one to be free; a call answered over a stream holds one until its answer; GET " +
      "streams take as many again, answers and notifications 4 more (default 64)"
  )
)

/** `--max-connections`, checked: a whole number, at least 1. */
export const maxConnectionsOf = (given: Option.Option<number>): Effect.Effect<number | undefined, Error> =>
  Option.match(given, {
    onNone: () => Effect.succeed(undefined),
    onSome: (n) => n >= 1 ? Effect.succeed(n) : Effect.fail(new Error(`--max-connections is at least 1 (got ${n})`))
  })

/** `--redis`: the Redis that instances of a proxy or a gateway share (else `MCP_REDIS_URL`). */
export const redis = Options.text("redis").pipe(
  Options.optional,
  Options.withDescription(
    "redis://[user:password@]host:port[/db] (else MCP_REDIS_URL): instances behind one load balancer share their " +
      "handshake sessions, event streams, tasks and notifications there (MCP_REQUEST_STATE_KEY required, the same on each; " +
      "a URL with a password is best in MCP_REDIS_URL, which ps does not show)"
  )
)

/** `--redis-prefix`: what the keys and channels of these instances begin with on that Redis (else `MCP_REDIS_PREFIX`). */
export const redisPrefix = Options.text("redis-prefix").pipe(
  Options.optional,
  Options.withDescription(
    "what every key and channel of these instances begins with on the Redis of --redis (else MCP_REDIS_PREFIX; " +
      "default mcp:): deployments with prefixes of their own share one Redis and never see each other's sessions"
  )
)

/**
 * The prefix of `--redis-prefix`, else `MCP_REDIS_PREFIX`: undefined without one (the Redis
 * layer's own, `mcp:`), one line if it is empty, or given without a Redis to put it on.
 */
export const redisPrefixOf = (
  given: Option.Option<string>,
  url: string | undefined
): Effect.Effect<string | undefined, Error> => {
  const prefix = Option.getOrUndefined(given) ?? process.env.MCP_REDIS_PREFIX
  if (prefix === undefined) return Effect.succeed(undefined)
  const where = Option.isSome(given) ? "--redis-prefix" : "MCP_REDIS_PREFIX"
  if (prefix.length === 0) return Effect.fail(new Error(`${where} is empty: give a prefix, such as app1:`))
  return url === undefined && Option.isSome(given)
    ? Effect.fail(new Error("--redis-prefix needs --redis (or MCP_REDIS_URL)"))
    : Effect.succeed(prefix)
}

/**
 * `url` with what comes before its host's `@` (a user and a password, or a password alone, as Redis
 * URLs have them) as `***`: what may be shown of a URL given.
 */
const masked = (url: string): string => {
  const at = url.lastIndexOf("@")
  if (at < 0) return url
  const scheme = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.exec(url)?.[0] ?? ""
  return at < scheme.length ? url : `${scheme}***${url.slice(at)}`
}

/**
 * The URL of `--redis`, else `MCP_REDIS_URL`, checked: undefined without one, one line if it is not
 * redis:// (the URL shown without its password), or if `MCP_REQUEST_STATE_KEY` is not set (each
 * instance would seal 2026-07-28 `requestState` with a random key of its own, which no other opens).
 */
export const redisOf = (given: Option.Option<string>): Effect.Effect<string | undefined, Error> => {
  const url = Option.getOrUndefined(given) ?? (process.env.MCP_REDIS_URL || undefined)
  if (url === undefined) return Effect.succeed(undefined)
  const where = Option.isSome(given) ? "--redis" : "MCP_REDIS_URL"
  if (!(URL.canParse(url) && /^rediss?:$/.test(new URL(url).protocol))) {
    return Effect.fail(new Error(`${where} must be a redis:// or rediss:// URL, not ${JSON.stringify(masked(url))}`))
  }
  return process.env.MCP_REQUEST_STATE_KEY === undefined
    ? Effect.fail(
      new Error(
        `${where} needs MCP_REQUEST_STATE_KEY, the same on every instance (else a requestState sealed by one ` +
          "cannot be opened by another): make one with openssl rand -base64 32"
      )
    )
    : Effect.succeed(url)
}

/**
 * `layer` with every part that crosses instances on the Redis at `url` (the notification bus, the
 * event store, handshake sessions, tasks), their keys and channels under `prefix` (default the
 * Redis layer's, `mcp:`), under it and beside it (the HTTP layer takes its own from there); the
 * Redis client loaded only then. `layer` itself without a URL.
 */
export const withSharedState = <A, E, R>(
  url: string | undefined,
  layer: Layer.Layer<A, E, R>,
  prefix?: string | undefined
): Layer.Layer<A, E | RedisUnavailable, R> =>
  url === undefined ? layer : layer.pipe(Layer.provideMerge(Layer.unwrapEffect(
    Effect.map(
      Effect.promise(() => import("@effect-mcp/redis")),
      ({ RedisState }) => RedisState.layer({ url, ...(prefix !== undefined ? { prefix } : {}) })
    )
  )))

/** `--serve`, `--port`, `--host`, `--path`: how a proxy or a gateway serves its clients. */
export const serveOptions = {
  serve: Options.choice("serve", ["dual", "handshake", "stateless"]).pipe(
    Options.withDefault("dual" as const),
    Options.withDescription("the era(s) served to the clients")
  ),
  port: Options.integer("port").pipe(
    Options.optional,
    Options.withDescription("serve Streamable HTTP on this port (default: serve stdio)")
  ),
  host: Options.text("host").pipe(Options.withDefault("127.0.0.1")),
  path: Options.text("path").pipe(Options.withDefault("/mcp"))
}

/** The revisions of `--serve`. */
export const revisionsOf = (serve: "dual" | "handshake" | "stateless"): ReadonlyArray<Revision.Revision> =>
  serve === "stateless"
    ? Revision.stateless
    : serve === "handshake"
    ? Revision.handshake
    : [...Revision.handshake, ...Revision.stateless]

/**
 * Serves the server `R` provides over stdio, or over Streamable HTTP with `--port` (`serves`, then
 * where, as one line on stderr); logs go to stderr (nothing but protocol bytes on stdout).
 */
export const serving = <E, R>(
  serves: string,
  o: { readonly port: Option.Option<number>; readonly host: string; readonly path: string },
  server: Layer.Layer<McpServer.McpServer | R, E>,
  http: Effect.Effect<Omit<NodeMcpServer.HttpOptions, "port" | "host" | "path">, never, R> = Effect.succeed({})
) =>
  Option.match(o.port, {
    onNone: () => NodeMcpServer.serveStdio,
    onSome: (port) =>
      Layer.launch(
        Layer.effectDiscard(
          Effect.sync(() => process.stderr.write(`${serves} at http://${o.host}:${port}${o.path}\n`))
        ).pipe(
          Layer.provideMerge(
            Layer.unwrapEffect(
              Effect.map(
                http,
                (options) => NodeMcpServer.layerHttp({ ...options, port, host: o.host, path: o.path as `/${string}` })
              )
            )
          )
        )
      )
  }).pipe(Effect.provide(server), Effect.provide(NodeMcpServer.layerStderrLogger))
