/**
 * `mcp gateway --config FILE [--port N]`: the upstreams of a configuration file (`Gateway`) served
 * as one server over stdio, or over Streamable HTTP at `/mcp` with `--port`, in both eras (with
 * `/healthz`, and `/readyz` naming each upstream that is down).
 *
 * @since 0.1.0
 */
import { Mount } from "@effect-mcp/server"
import { Command, Options } from "@effect/cli"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { readFileSync } from "node:fs"
import * as Gateway from "./Gateway.js"
import {
  env,
  maxConnections,
  maxConnectionsOf,
  maxMessageBytes,
  maxMessageBytesOf,
  redis,
  redisOf,
  redisPrefix,
  redisPrefixOf,
  revisionsOf,
  serveOptions,
  serving,
  withSharedState
} from "./internal/cli.js"
import * as Target from "./Target.js"

/** The configuration file, read and checked: one line saying what is wrong with it. */
const configOf = (file: string) =>
  Effect.try({
    try: () => JSON.parse(readFileSync(file, "utf8")) as unknown,
    catch: (error) => new Error(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`)
  }).pipe(
    Effect.flatMap((json) =>
      Effect.mapError(
        Schema.decodeUnknown(Gateway.Config)(json),
        (error) => new Error(`${file} is not a gateway configuration: ${error.message.split("\n").join(" ")}`)
      )
    ),
    // Each name is a prefix (a letter, then letters, digits, '-' or '.'), given once: one line if not.
    Effect.tap((config) => {
      const bad = Mount.entries(Object.keys(config.mcpServers).map((prefix) => ({ prefix })))
      return typeof bad === "string"
        ? Effect.fail(new Error(`${file}: ${bad.replace(/^Mount: prefix/, "name")}`))
        : Effect.void
    })
  )

/** `--env`'s variables given to every stdio upstream, under its own `env` (which names them for it alone). */
const withEnvironment = (config: Gateway.Config, given: Record<string, string>): Gateway.Config =>
  Object.keys(given).length === 0 ? config : {
    mcpServers: Object.fromEntries(
      Object.entries(config.mcpServers).map((
        [name, upstream]
      ) => [name, "command" in upstream ? { ...upstream, env: { ...given, ...upstream.env } } : upstream])
    )
  }

/**
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make("gateway", {
  config: Options.file("config", { exists: "yes" }).pipe(
    Options.withDescription("the upstreams: {\"mcpServers\": {name: {command, args, env} | {url, headers}}}")
  ),
  ...serveOptions,
  env,
  maxMessageBytes,
  maxConnections,
  redis,
  redisPrefix,
  timeout: Options.integer("timeout").pipe(
    Options.withDefault(60),
    Options.withDescription("seconds an upstream may take to answer a request (restarted by its progress)")
  ),
  startTimeout: Options.integer("start-timeout").pipe(
    Options.withDefault(10),
    Options.withDescription(
      "seconds the gateway waits for its upstreams' first connections before it serves (one not up by then " +
        "comes later, its entries with a list change)"
    )
  ),
  pingInterval: Options.integer("ping-interval").pipe(
    Options.withDefault(5),
    Options.withDescription(
      "seconds between pings of each upstream; one that does not answer within them is down (restarted)"
    )
  ),
  maxMirroredEntries: Options.integer("max-mirrored-entries").pipe(
    Options.withDefault(Gateway.defaultMaxMirroredEntries),
    Options.withDescription(
      "the most tools, prompts, resources and templates mirrored from every upstream together; an upstream's " +
        "listing past it is not served (a warning says so)"
    )
  ),
  root: Options.text("root").pipe(
    Options.repeated,
    Options.withDescription("a root (URI) told to an upstream that asks with no client's request in flight")
  )
}, (o) =>
  Effect.gen(function*() {
    const config = yield* configOf(o.config)
    const given = yield* Target.environmentOf(o.env)
    const bytes = yield* maxMessageBytesOf(o.maxMessageBytes)
    const connections = yield* maxConnectionsOf(o.maxConnections)
    const redisUrl = yield* redisOf(o.redis)
    const prefix = yield* redisPrefixOf(o.redisPrefix, redisUrl)
    const key = process.env.MCP_REQUEST_STATE_KEY
    // As the server would refuse it (a defect, when it is built): one line, before anything starts.
    if (key !== undefined && Buffer.byteLength(key) < 32) {
      return yield* Effect.fail(
        new Error(
          `MCP_REQUEST_STATE_KEY must be at least 32 bytes (got ${Buffer.byteLength(key)}): ` +
            "make one with openssl rand -base64 32"
        )
      )
    }
    if (o.timeout < 1) {
      return yield* Effect.fail(new Error(`--timeout is in whole seconds, at least 1 (got ${o.timeout})`))
    }
    if (o.startTimeout < 0) {
      return yield* Effect.fail(new Error(`--start-timeout is in whole seconds, at least 0 (got ${o.startTimeout})`))
    }
    if (o.maxMirroredEntries < 1) {
      return yield* Effect.fail(new Error(`--max-mirrored-entries is at least 1 (got ${o.maxMirroredEntries})`))
    }
    if (o.pingInterval < 1) {
      return yield* Effect.fail(new Error(`--ping-interval is in whole seconds, at least 1 (got ${o.pingInterval})`))
    }
    // With --redis, instances share what crosses them (sessions, event streams, tasks,
    // notifications), under --redis-prefix; each has its own upstream connections.
    const gateway = withSharedState(
      redisUrl,
      Gateway.layer({
        config: withEnvironment(config, given),
        revisions: revisionsOf(o.serve),
        timeout: Duration.seconds(o.timeout),
        startTimeout: Duration.seconds(o.startTimeout),
        pingInterval: Duration.seconds(o.pingInterval),
        maxMirroredEntries: o.maxMirroredEntries,
        ...(bytes !== undefined ? { maxMessageLength: bytes } : {}),
        ...(connections !== undefined ? { connections } : {}),
        ...(key !== undefined ? { requestStateKey: Redacted.make(key) } : {}),
        ...(o.root.length > 0 ? { roots: o.root.map((uri) => ({ uri })) } : {})
      }),
      prefix
    )
    // Liveness at /healthz; readiness at /readyz, naming each upstream that is down.
    return yield* serving(
      "mcp gateway: serving",
      o,
      gateway,
      Effect.map(Gateway.McpGateway, (gateway) => ({
        healthPath: "/healthz",
        readyPath: "/readyz",
        readyChecks: gateway.readyChecks
      }))
    )
  })).pipe(
    Command.withDescription("Serves the upstreams of a configuration file as one server, each under its name")
  )
