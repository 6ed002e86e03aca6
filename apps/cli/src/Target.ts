/**
 * Where a server is, as the command line names it: `stdio:<command> <args…>` (a child process; the
 * words split as a shell splits them: quotes, backslashes and `$VARIABLES`, but no pipes or other
 * operators) or an `http://` / `https://` URL (Streamable HTTP), authorized with OAuth where the
 * server asks: the registrations and tokens kept in the token file, a user sent to authorize
 * through a redirect to 127.0.0.1 (the URL on stderr), or the client credentials given.
 *
 * @since 0.1.0
 */
import { McpAuth, McpClientTransport } from "@effect-mcp/client"
import { NodeMcpClient, NodeMcpServer, NodeOAuth, NodeTokenStore } from "@effect-mcp/platform-node"
import * as Data from "effect/Data"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { parse } from "shell-quote"

/**
 * How an HTTP target is authorized, from the command line and the environment.
 *
 * @since 0.1.0
 * @category models
 */
export interface Auth {
  readonly clientId?: string | undefined
  readonly clientSecret?: Redacted.Redacted<string> | undefined
  readonly clientMetadataUrl?: string | undefined
  /** The client credentials grant (no user): `clientId` and `clientSecret` are the client's own. */
  readonly clientCredentials?: boolean | undefined
  /** Open the authorization URL in a browser, besides printing it. */
  readonly openBrowser?: boolean | undefined
  /** The token file (default `MCP_TOKEN_STORE`, else `NodeTokenStore.defaultPath()`). */
  readonly tokenStore?: string | undefined
  /** How long one request to an OAuth endpoint may take (the command's `--timeout`). */
  readonly timeout?: Duration.DurationInput | undefined
  /** Plain HTTP to OAuth endpoints on any host (`McpAuth`'s `allowInsecure`; never another scheme). */
  readonly allowInsecure?: boolean | undefined
}

/** The token file in use. */
export const tokenStorePath = (auth: Auth) =>
  auth.tokenStore ?? process.env.MCP_TOKEN_STORE ?? NodeTokenStore.defaultPath()

/** What the token file says of itself (kept aside, its directory made private): a line on stderr. */
export const tokenStoreOptions: NodeTokenStore.FileOptions = {
  onNotice: (message) => Effect.sync(() => process.stderr.write(`mcp: ${message}\n`))
}

/** The `McpAuth` options of `auth`. */
const optionsOf = (auth: Auth): McpAuth.Options => ({
  ...(auth.timeout !== undefined ? { timeout: auth.timeout } : {}),
  ...(auth.allowInsecure === true ? { allowInsecure: true } : {}),
  ...(auth.clientCredentials === true && auth.clientId !== undefined
    ? { grant: { type: "client_credentials", clientId: auth.clientId, clientSecret: auth.clientSecret } }
    : {
      clientName: "mcp (effect-mcp)",
      ...(auth.clientId !== undefined ? { clientId: auth.clientId } : {}),
      ...(auth.clientSecret !== undefined ? { clientSecret: auth.clientSecret } : {}),
      ...(auth.clientMetadataUrl !== undefined ? { clientMetadataUrl: auth.clientMetadataUrl } : {})
    })
})

/**
 * The HTTP client of an HTTP target: authorized with `auth`, its tokens in the token file (the
 * authorization URL a user opens is said on stderr, after `label`), on a pool of at most
 * `connections` connections per origin (default `NodeMcpClient.defaultConnections`, 64).
 *
 * @since 0.1.0
 * @category constructors
 */
export const httpClient = (auth: Auth, label = "mcp", connections?: number) =>
  McpAuth.layer(optionsOf(auth)).pipe(
    // On undici's keep-alive pool, not Node's `fetch` (a gateway's calls to an HTTP upstream cost
    // several times the CPU through `fetch`), bounded per origin. Its POST without a fiber
    // (`McpClientTransport.HttpPoster`) is kept for raw calls; the `HttpClient` is `McpAuth`'s.
    Layer.provideMerge(NodeMcpClient.layerHttpClientWith({ connections })),
    Layer.provide(NodeTokenStore.layerFile(tokenStorePath(auth), tokenStoreOptions)),
    Layer.provide(NodeOAuth.layerLoopback({
      openBrowser: auth.openBrowser === true,
      onUrl: (url) => Effect.sync(() => process.stderr.write(`${label}: to authorize, open ${url}\n`))
    }))
  )

/** `--client-secret` and the environment: what a command's options leave out, from `MCP_CLIENT_*`. */
export const withEnvironment = (auth: Auth): Auth => {
  const env = process.env
  const secret = auth.clientSecret ?? (env.MCP_CLIENT_SECRET ? Redacted.make(env.MCP_CLIENT_SECRET) : undefined)
  return {
    ...auth,
    clientId: auth.clientId ?? (env.MCP_CLIENT_ID || undefined),
    clientSecret: secret,
    clientMetadataUrl: auth.clientMetadataUrl ?? (env.MCP_CLIENT_METADATA_URL || undefined),
    clientCredentials: auth.clientCredentials === true || env.MCP_CLIENT_CREDENTIALS === "1"
  }
}

/**
 * A target the command line cannot use.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidTarget extends Data.TaggedError("InvalidTarget")<{
  readonly target: string
  /** What is wrong with a `stdio:` command, when that is it. */
  readonly reason?: string
}> {
  override get message(): string {
    return this.reason !== undefined
      ? `cannot run ${JSON.stringify(this.target)}: ${this.reason}`
      : `cannot reach ${JSON.stringify(this.target)}: give stdio:<command> or an http(s):// URL`
  }
}

/** The words of a `stdio:` command, split as a shell would (no operators: there is no shell). */
const words = (target: string, command: string): Either.Either<ReadonlyArray<string>, InvalidTarget> => {
  const out: Array<string> = []
  for (const entry of parse(command, process.env)) {
    if (typeof entry === "string") out.push(entry)
    else if ("comment" in entry) break
    else if (entry.op === "glob") out.push(entry.pattern)
    else {
      return Either.left(
        new InvalidTarget({
          target,
          reason: `${entry.op} is a shell operator, and the command is run without a shell: ` +
            `quote it, or run a script (stdio:sh -c '…' runs one)`
        })
      )
    }
  }
  return Either.right(out)
}

/** The variables of this process's environment a spawned server inherits (those of the official SDK). */
const inherited = process.platform === "win32"
  ? [
    "APPDATA",
    "HOMEDRIVE",
    "HOMEPATH",
    "LOCALAPPDATA",
    "PATH",
    "PROCESSOR_ARCHITECTURE",
    "SYSTEMDRIVE",
    "SYSTEMROOT",
    "TEMP",
    "USERNAME",
    "USERPROFILE",
    "PROGRAMFILES"
  ]
  : ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"]

/**
 * What a server spawned by `mcp proxy` or `mcp gateway` inherits of their environment: `HOME`,
 * `LOGNAME`, `PATH`, `SHELL`, `TERM` and `USER` (on Windows `APPDATA`, `PATH`, `SYSTEMROOT`, `TEMP`,
 * `USERPROFILE`, …), as the official SDK's `getDefaultEnvironment`; nothing else (no token, no
 * `MCP_REQUEST_STATE_KEY`): what else it needs is given by name (`--env`, or an upstream's `env`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const defaultEnvironment = (): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const key of inherited) {
    const value = process.env[key]
    // A shell function exported as a variable is not passed on (a security risk, says the SDK).
    if (value !== undefined && !value.startsWith("()")) env[key] = value
  }
  return env
}

/**
 * The variables of `--env`, each `KEY=VALUE` (that value) or `KEY` (its value in this process's
 * environment); one line saying which is wrong (a `KEY` not set here, an empty name).
 *
 * @since 0.1.0
 * @category constructors
 */
export const environmentOf = (given: ReadonlyArray<string>): Either.Either<Record<string, string>, Error> => {
  const env: Record<string, string> = {}
  for (const entry of given) {
    const equals = entry.indexOf("=")
    const key = equals < 0 ? entry : entry.slice(0, equals)
    if (key.length === 0) return Either.left(new Error(`--env ${entry}: give KEY=VALUE, or KEY to pass on its value`))
    const value = equals < 0 ? process.env[key] : entry.slice(equals + 1)
    if (value === undefined) return Either.left(new Error(`--env ${key}: ${key} is not set in this environment`))
    env[key] = value
  }
  return Either.right(env)
}

/**
 * How a target is reached: a `stdio:` target's environment (default: this process's, whole), the
 * largest message taken from it, in bytes (default the client's: 32 MiB over stdio, 16 MiB over
 * HTTP), and the most connections open at once to an HTTP target (default
 * `NodeMcpClient.defaultConnections`, 64; requests beyond them wait for one).
 *
 * @since 0.1.0
 * @category models
 */
export interface Reach {
  readonly env?: Readonly<Record<string, string>> | undefined
  readonly maxMessageBytes?: number | undefined
  readonly connections?: number | undefined
}

/**
 * The client transport of a target.
 *
 * @since 0.1.0
 * @category constructors
 */
export const transport = (
  target: string,
  auth: Auth = {},
  reach: Reach = {}
): Either.Either<
  Layer.Layer<McpClientTransport.McpClientTransport, NodeMcpClient.SpawnError | NodeMcpServer.ListenError>,
  InvalidTarget
> => {
  if (target.startsWith("stdio:")) {
    return Either.flatMap(
      words(target, target.slice("stdio:".length)),
      ([command, ...args]) =>
        command === undefined || command.length === 0
          ? Either.left(new InvalidTarget({ target }))
          : Either.right(NodeMcpClient.layerStdio({
            command,
            args,
            stderr: "ignore",
            ...(reach.env !== undefined ? { env: reach.env } : {}),
            ...(reach.maxMessageBytes !== undefined ? { maxMessageLength: reach.maxMessageBytes } : {})
          }))
    )
  }
  if (/^https?:\/\//.test(target)) {
    return Either.right(
      McpClientTransport.layerHttp({
        url: target,
        ...(reach.maxMessageBytes !== undefined ? { maxMessageSize: reach.maxMessageBytes } : {})
      }).pipe(Layer.provide(httpClient(auth, "mcp", reach.connections)))
    )
  }
  return Either.left(new InvalidTarget({ target }))
}
