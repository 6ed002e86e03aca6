/**
 * `node apps/everything/dist/main.js stdio` serves the demo server over stdin and stdout
 * until stdin closes; `… http` serves it over Streamable HTTP. Both speak both eras by default
 * (`--era dual`). With `--auth-issuer` and `--resource` (or `MCP_AUTH_ISSUER` and `MCP_RESOURCE`)
 * the HTTP server is an OAuth 2.1 resource server: every request needs a valid access token of that
 * issuer for that resource, and the tools `whoami` and `admin_echo` are added; any JWT `typ` is
 * taken (Keycloak, Auth0 and Entra issue `JWT`) unless `--token-type at+jwt` asks for RFC 9068
 * access tokens only. Both modes serve the
 * skills of `apps/everything/skills` (the skills extension), or of `--skills <dir>`. Nothing but
 * protocol bytes goes to stdout: logs go to stderr.
 *
 * @since 0.1.0
 */
import { NodeMcpServer, NodeSkills, NodeTelemetry } from "@effect-mcp/platform-node"
import type { HttpTransport, McpServer, Skills } from "@effect-mcp/server"
import { TokenVerifier } from "@effect-mcp/server"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as fs from "node:fs"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"
import * as Everything from "./Everything.js"

const usage = `usage: node apps/everything/dist/main.js <mode> [--era handshake|stateless|dual] [--skills DIR]

modes:
  stdio   serve MCP over stdin/stdout (newline-delimited JSON-RPC) until stdin closes
  http [--port N] [--host H] [--max-sessions N] [--idle-timeout SECONDS] [--max-request SECONDS]
       [--trusted-proxies N]
       [--auth-issuer URL --resource URL [--token-type at+jwt]] [--redis URL [--redis-prefix P]]
       [--task-lease SECONDS]
          Streamable HTTP on http://H:N/mcp (default 127.0.0.1:3000; --port 0: a free port,
          said on stderr as every port is: listening on http://H:N/mcp), and the legacy
          HTTP+SSE endpoints /sse and /messages (2024-11-05); at most --max-sessions
          handshake sessions at once (default 10000), each ending after --idle-timeout
          seconds without activity (default 300), requests interrupted after --max-request
          seconds (default 3600); 2026-07-28 requests are POSTs of their own, no session.
          One client holds at most a tenth of the sessions, listens and tasks: a client
          without a token is known by its address; behind N reverse proxies that append to
          X-Forwarded-For, give --trusted-proxies N (default 0: the header is not read)
          With --auth-issuer (the authorization server's issuer) and --resource (the
          canonical URL of this /mcp, as clients reach it): every request needs a bearer
          token (a JWT of that issuer, verified with the keys of its metadata's jwks_uri)
          whose audience is the resource; tools whoami and admin_echo (scope mcp:admin).
          Tokens of any typ are taken (Keycloak, Auth0 and Entra issue JWT); with
          --token-type at+jwt only RFC 9068 access tokens (typ at+jwt)
          With --redis (redis://[user:password@]host:port[/db]): every part shared between
          instances lives in that Redis (change notifications, handshake sessions and their
          events, tasks), so that N instances behind a load balancer serve one set of
          clients with no sticky sessions (give them one MCP_REQUEST_STATE_KEY); a task
          whose instance died fails once its lease lapses, --task-lease seconds (default 30);
          every key and channel begins with --redis-prefix (default mcp:), so deployments
          with prefixes of their own share one Redis without seeing each other's sessions
          Liveness at /healthz, readiness at /readyz (503 while a shared store is down).

--era (both modes):
  handshake  2024-11-05 … 2025-11-25: initialize, then a session
  stateless  2026-07-28: every request carries its version and capabilities in _meta
  dual       both at once, each request served by the era it speaks (default)

--skills DIR (both modes): serve the skills of DIR (each directory with a SKILL.md), with
  skills/list, skills/get and resources/directory/read; default apps/everything/skills, served
  when it is there

environment:
  MCP_REQUEST_STATE_KEY  the key sealing 2026-07-28 requestState (multi-round trips), so that
                         a retry may reach any process that has it; unset, each process makes
                         a random one (said once on stderr)
  MCP_AUTH_ISSUER        http: --auth-issuer, when the flag is not given
  MCP_RESOURCE           http: --resource, when the flag is not given
  MCP_REDIS_URL          http: --redis, when the flag is not given
  MCP_REDIS_PREFIX       http: --redis-prefix, when the flag is not given
  OTEL_EXPORTER_OTLP_ENDPOINT  traces and metrics as OTLP over HTTP to this collector (both
                         modes; also OTEL_EXPORTER_OTLP_PROTOCOL http/protobuf|http/json,
                         OTEL_SERVICE_NAME, OTEL_EXPORTER_OTLP_HEADERS, OTEL_RESOURCE_ATTRIBUTES,
                         OTEL_TRACES_EXPORTER / OTEL_METRICS_EXPORTER=none); unset, none
`

/** The flags of each mode (`--era` is both modes'). */
const flags = {
  stdio: ["era", "skills"],
  http: [
    "era",
    "skills",
    "port",
    "host",
    "max-sessions",
    "idle-timeout",
    "max-request",
    "trusted-proxies",
    "auth-issuer",
    "resource",
    "token-type",
    "redis",
    "redis-prefix",
    "task-lease"
  ]
} as const

/** The command line read strictly: a mode, its flags, nothing else; or what is wrong with it. */
const commandLine = (argv: ReadonlyArray<string>) => {
  let parsed: ReturnType<typeof readArgs>
  try {
    parsed = readArgs(argv)
  } catch (error) {
    // node:util's own words: "Unknown option '--prot'", "Option '--port <value>' argument missing".
    const message = error instanceof Error ? error.message : String(error)
    return { error: message.split(". ")[0] } as const
  }
  const [mode, ...extra] = parsed.positionals
  if (mode === undefined) return { error: undefined } as const
  if (mode !== "stdio" && mode !== "http") return { error: `unknown mode: ${mode}` } as const
  if (extra.length > 0) return { error: `unexpected argument: ${extra[0]}` } as const
  const given = Object.keys(parsed.values) as ReadonlyArray<string>
  const foreign = given.find((name) => !(flags[mode] as ReadonlyArray<string>).includes(name))
  if (foreign !== undefined) return { error: `--${foreign} is not an option of ${mode}` } as const
  return { mode, values: parsed.values as Partial<Record<string, string>> } as const
}

const readArgs = (argv: ReadonlyArray<string>) =>
  parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: Object.fromEntries(flags.http.map((name) => [name, { type: "string" as const }]))
  })

/** A whole number of at least `min`, or what is wrong with it. */
const count = (name: string, text: string | undefined, fallback: number, min: number): number | string => {
  if (text === undefined) return fallback
  const n = Number(text)
  return Number.isInteger(n) && n >= min ? n : `--${name} must be a whole number of at least ${min}, not ${text}`
}

const isLoopback = (url: URL) =>
  url.hostname === "localhost" || url.hostname === "127.0.0.1" || url.hostname === "[::1]"

/** An absolute http(s) URL without a fragment (https unless on loopback, when `secure`), or what is wrong with it. */
const absoluteUrl = (name: string, text: string, secure: boolean): URL | string => {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return `${name} must be an absolute URL, not ${JSON.stringify(text)}`
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return `${name} must be an http(s) URL, not ${text}`
  if (url.hash !== "" || text.includes("#")) return `${name} must have no fragment (#): ${text}`
  if (secure && url.protocol !== "https:" && !isLoopback(url)) {
    return `${name} must be https (http only on loopback), not ${text}`
  }
  return url
}

/**
 * Authorization: `--auth-issuer` and `--resource` (else `MCP_AUTH_ISSUER` and `MCP_RESOURCE`),
 * both or neither; the transport's `auth` option, undefined without them, or what is wrong.
 */
const authorization = (
  values: Partial<Record<string, string>>,
  env: NodeJS.ProcessEnv
): HttpTransport.AuthOptions | undefined | string => {
  const read = (flag: string, variable: string) =>
    values[flag] !== undefined
      ? { name: `--${flag}`, value: values[flag] }
      : env[variable] !== undefined
      ? { name: variable, value: env[variable] }
      : undefined
  const issuer = read("auth-issuer", "MCP_AUTH_ISSUER")
  const resource = read("resource", "MCP_RESOURCE")
  if (issuer === undefined && resource === undefined) return undefined
  if (issuer === undefined) {
    return `${resource!.name} needs --auth-issuer (or MCP_AUTH_ISSUER): the issuer of the authorization server ` +
      "whose tokens are taken"
  }
  if (resource === undefined) {
    return `${issuer.name} needs --resource (or MCP_RESOURCE): the canonical URL of this server's /mcp, ` +
      "the audience its tokens name"
  }
  const issuerUrl = absoluteUrl(issuer.name, issuer.value, true)
  if (typeof issuerUrl === "string") return issuerUrl
  const resourceUrl = absoluteUrl(resource.name, resource.value, false)
  if (typeof resourceUrl === "string") return resourceUrl
  // As given: the issuer is compared with the tokens' `iss` and the metadata's `issuer` exactly.
  return { resource: resource.value, authorizationServers: [issuer.value] }
}

/**
 * `--token-type`: the `typ` every access token must have (`at+jwt`: RFC 9068 only), undefined
 * without it (any `typ`), or what is wrong. Only with authorization on.
 */
const tokenType = (
  values: Partial<Record<string, string>>,
  auth: HttpTransport.AuthOptions | undefined | string
): string | undefined | { readonly error: string } => {
  const type = values["token-type"]
  if (type === undefined) return undefined
  if (auth === undefined) return { error: "--token-type needs --auth-issuer and --resource" }
  return /^(application\/)?[a-z0-9!#$&^_.+-]+$/i.test(type)
    ? type
    : { error: `--token-type must be a JWT typ (at+jwt, say), not ${JSON.stringify(type)}` }
}

/** `--redis` (else `MCP_REDIS_URL`): a redis:// or rediss:// URL, undefined without it, or what is wrong. */
const redisUrl = (values: Partial<Record<string, string>>, env: NodeJS.ProcessEnv): URL | string | undefined => {
  const given = values.redis ?? env.MCP_REDIS_URL
  if (given === undefined || given === "") return undefined
  let url: URL
  try {
    url = new URL(given)
  } catch {
    return `${values.redis !== undefined ? "--redis" : "MCP_REDIS_URL"} must be a redis:// URL, not ${
      JSON.stringify(given)
    }`
  }
  return url.protocol === "redis:" || url.protocol === "rediss:"
    ? url
    : `${values.redis !== undefined ? "--redis" : "MCP_REDIS_URL"} must be a redis:// or rediss:// URL, not ${given}`
}

/**
 * `--redis-prefix` (else `MCP_REDIS_PREFIX`): what every key and channel begins with on the Redis
 * (undefined: the Redis layer's own, `mcp:`), or what is wrong with it.
 */
const redisPrefix = (
  values: Partial<Record<string, string>>,
  env: NodeJS.ProcessEnv,
  url: URL | string | undefined
): { readonly prefix: string | undefined } | string => {
  const prefix = values["redis-prefix"] ?? env.MCP_REDIS_PREFIX
  const where = values["redis-prefix"] !== undefined ? "--redis-prefix" : "MCP_REDIS_PREFIX"
  if (prefix === undefined) return { prefix }
  if (prefix === "") return `${where} is empty: give a prefix, such as app1:`
  return url === undefined && values["redis-prefix"] !== undefined
    ? "--redis-prefix needs --redis (or MCP_REDIS_URL)"
    : { prefix }
}

/**
 * Every shared part on the Redis at `url`, under `prefix` (loaded only then: a server without it
 * never loads the Redis client); nothing without one.
 */
const sharedState = (url: URL | undefined, prefix: string | undefined) =>
  url === undefined
    ? Layer.empty
    : Layer.unwrapEffect(
      Effect.map(Effect.promise(() => import("@effect-mcp/redis")), ({ RedisState }) =>
        RedisState.layer({ url: url.href, ...(prefix !== undefined ? { prefix } : {}) }))
    )

const refuse = (why: string | undefined) => {
  process.stderr.write(why === undefined ? usage : `${why}\n\n${usage}`)
  process.exitCode = 2
}

const say = (line: string) => Effect.sync(() => process.stderr.write(`effect-mcp everything: ${line}\n`))

/**
 * The key sealing `requestState`: `MCP_REQUEST_STATE_KEY`, or a random one of this process,
 * said once on stderr (the server then warns no more).
 */
const requestStateKey = Effect.gen(function*() {
  // A key too short (an empty variable included) is refused by the server itself, in one line.
  const given = yield* Config.option(Config.redacted("MCP_REQUEST_STATE_KEY"))
  if (Option.isSome(given)) return given.value
  yield* say(
    "MCP_REQUEST_STATE_KEY is not set: requestState is sealed with a random key of this process, " +
      "so a retry of a multi-round-trip request cannot move to another process"
  )
  return Redacted.make(Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64"))
})

/**
 * The server in the era of `--era`, with its requestState key when it speaks 2026-07-28, and the
 * tools of an authorized server when `auth`.
 */
const server = (
  era: Everything.Mode,
  auth = false,
  taskLease?: Duration.Duration
): Layer.Layer<McpServer.McpServer, ConfigError.ConfigError> =>
  era === "handshake"
    ? Everything.layerWith({ era, auth, ...(taskLease !== undefined ? { taskLease } : {}) })
    : Layer.unwrapEffect(
      Effect.map(
        requestStateKey,
        (key) =>
          Everything.layerWith({ era, requestStateKey: key, auth, ...(taskLease !== undefined ? { taskLease } : {}) })
      )
    )

/** The demo's own skills, beside its dist folder (absent from a bundle copied elsewhere). */
const defaultSkills = fileURLToPath(new URL("../skills", import.meta.url))

/**
 * The server with the skills of `--skills` (a folder that cannot be read fails the server), else
 * the demo's own when they are there.
 */
const withSkills = <E>(
  given: string | undefined,
  layer: Layer.Layer<McpServer.McpServer, E>
): Layer.Layer<McpServer.McpServer, E | Skills.SkillsError> =>
  given === undefined && !fs.existsSync(defaultSkills)
    ? layer
    : Layer.provide(layer, NodeSkills.layerDirectory(given ?? defaultSkills))

/** OTLP export when the environment asks for it (`OTEL_EXPORTER_OTLP_ENDPOINT`, …), else nothing. */
const telemetry = NodeTelemetry.layerFromEnv({ serviceName: "effect-mcp-everything", serviceVersion: "0.1.0" })

const line = commandLine(process.argv.slice(2))
const era = "values" in line ? line.values.era ?? "dual" : "dual"

if (!("values" in line)) {
  refuse(line.error)
} else if (!(Everything.modes as ReadonlyArray<string>).includes(era)) {
  refuse(`unknown era: ${era}`)
} else if (line.mode === "stdio") {
  NodeMcpServer.serveStdio.pipe(
    Effect.provide(withSkills(line.values.skills, server(era as Everything.Mode))),
    // Outside the server, so that its spans and metrics are exported and flushed after it stops.
    Effect.provide(telemetry),
    // Report failures to stderr, then let runMain set the exit code (its own report and its
    // pretty logger would write to stdout).
    Effect.tapErrorCause(Effect.logError),
    Effect.provide(NodeMcpServer.layerStderrLogger),
    NodeRuntime.runMain({ disableErrorReporting: true, disablePrettyLogger: true })
  )
} else {
  const port = count("port", line.values.port, 3000, 0)
  const maxSessions = count("max-sessions", line.values["max-sessions"], 10_000, 1)
  const idle = count("idle-timeout", line.values["idle-timeout"], 300, 1)
  const maxRequest = count("max-request", line.values["max-request"], 0, 1)
  const trustedProxies = count("trusted-proxies", line.values["trusted-proxies"], 0, 0)
  const auth = authorization(line.values, process.env)
  const type = tokenType(line.values, auth)
  const redis = redisUrl(line.values, process.env)
  const prefix = redisPrefix(line.values, process.env, redis)
  const lease = count("task-lease", line.values["task-lease"], 30, 1)
  const wrong = [
    port,
    maxSessions,
    idle,
    maxRequest,
    trustedProxies,
    auth,
    redis,
    prefix,
    lease,
    typeof type === "object" ? type.error : 0
  ]
    .find((n): n is string => typeof n === "string")
  const host = line.values.host ?? "127.0.0.1"
  if (wrong !== undefined) {
    refuse(wrong)
  } else {
    const authOptions = auth as HttpTransport.AuthOptions | undefined
    // Each count below is its number: `wrong` found none of them a string (a refusal).
    NodeMcpServer.layerHttp({
      port: port as number,
      host,
      maxSessions: maxSessions as number,
      sessionIdleTimeout: Duration.seconds(idle as number),
      trustedProxies: trustedProxies as number,
      healthPath: "/healthz",
      readyPath: "/readyz",
      // A port of its own choosing is said when it listens (`listening on http://H:N/mcp`).
      announce: port === 0,
      ...(line.values["max-request"] === undefined
        ? {}
        : { maxRequestDuration: Duration.seconds(maxRequest as number) }),
      ...(authOptions === undefined ? {} : {
        auth: authOptions,
        // The resource's host name, as clients reach it (behind a proxy that keeps Host), beside loopback.
        allowedHosts: ["localhost", "127.0.0.1", "[::1]", new URL(authOptions.resource).hostname]
      })
    }).pipe(
      Layer.provide(
        withSkills(
          line.values.skills,
          server(era as Everything.Mode, authOptions !== undefined, Duration.seconds(lease as number))
        )
      ),
      // Under both the server and its HTTP layer: each takes the shared parts from its context.
      Layer.provide(sharedState(redis as URL | undefined, (prefix as { readonly prefix: string | undefined }).prefix)),
      // The verifier the HTTP layer takes from its context (else its default, any `typ`).
      Layer.provide(typeof type === "string" ? TokenVerifier.layerJwt({ type }) : Layer.empty),
      Layer.provide(telemetry),
      Layer.provide(NodeMcpServer.layerStderrLogger),
      Layer.tap(() =>
        say(
          (port === 0 ? "on the port said above" : `http://${host}:${port}/mcp`) + ` (${era})` +
            (redis === undefined ? "" : `, shared state on Redis`) +
            (authOptions === undefined
              ? ""
              : `, tokens of ${authOptions.authorizationServers[0]} for ${authOptions.resource}` +
                (typeof type === "string" ? ` (typ ${type} only)` : ""))
        )
      ),
      Layer.launch,
      Effect.tapErrorCause(Effect.logError),
      Effect.provide(NodeMcpServer.layerStderrLogger),
      NodeRuntime.runMain({ disableErrorReporting: true, disablePrettyLogger: true })
    )
  }
}
