/**
 * `mcp proxy <target>`: the target's features served to clients of either era, over stdio or HTTP.
 *
 * @since 0.1.0
 */
import { Command, Options } from "@effect/cli"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import {
  auth,
  authOf,
  env,
  era,
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
  target,
  withSharedState
} from "./internal/cli.js"
import * as Proxy from "./Proxy.js"
import * as Target from "./Target.js"

/**
 * @since 0.1.0
 * @category commands
 */
export const proxy = Command.make("proxy", {
  target,
  era,
  ...auth,
  ...serveOptions,
  env,
  maxMessageBytes,
  maxConnections,
  redis,
  redisPrefix,
  root: Options.text("root").pipe(
    Options.repeated,
    Options.withDescription("a root (URI) told to the target when it asks with no client's request in flight")
  )
}, (o) =>
  Effect.gen(function*() {
    const given = yield* Target.environmentOf(o.env)
    const bytes = yield* maxMessageBytesOf(o.maxMessageBytes)
    const connections = yield* maxConnectionsOf(o.maxConnections)
    const redisUrl = yield* redisOf(o.redis)
    const prefix = yield* redisPrefixOf(o.redisPrefix, redisUrl)
    // A stdio target inherits only what a program needs of this environment, and what --env gives.
    const transport = yield* Target.transport(o.target, authOf(o), {
      env: { ...Target.defaultEnvironment(), ...given },
      maxMessageBytes: bytes,
      connections
    })
    // Proxies behind one balancer share the key that seals 2026-07-28 requestState (a set one, even
    // empty, goes to the server, which refuses one too short), and with --redis what crosses them.
    const key = process.env.MCP_REQUEST_STATE_KEY
    const server = Proxy.layerFrom({ clientInfo: { name: "mcp-proxy", version: "0.1.0" }, era: o.era }, {
      revisions: revisionsOf(o.serve),
      ...(key !== undefined ? { requestStateKey: Redacted.make(key) } : {}),
      ...(o.root.length > 0 ? { roots: o.root.map((uri) => ({ uri })) } : {})
    }).pipe(Layer.provide(transport))
    return yield* serving(`mcp proxy: serving ${o.target}`, o, withSharedState(redisUrl, server, prefix))
  })).pipe(Command.withDescription("Serves the target's features to clients of either era, over stdio or HTTP"))
