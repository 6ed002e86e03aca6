/**
 * The raw lane of a mirrored tool (`RelayTable`): a `tools/call` that needs nothing of the server
 * engine is handed to the upstream as it came, with only its name (the upstream's) and id (the
 * client's own, from its book of calls) changed, and the policy's fixed and default arguments put
 * in; the upstream's answer goes back as it came, its links under the mount's prefix. No Schema
 * decodes or encodes it, and it runs no fiber of its own: a cancel, the client going away, the
 * upstream's end or the call's timeout end it as they end any call. A call with anything more
 * (a progress token, `_meta`, a task) is served by the engine, through `forwarded` (`mirror.ts`).
 *
 * A call of a tool the upstream annotates `idempotentHint` or `readOnlyHint` whose connection
 * closed under it with no answer (`closedUnanswered`: an HTTP upstream letting a kept-alive
 * connection go as the POST arrived on it) is sent again once, with a new id; any other tool's
 * call fails at once (whether the upstream ran it cannot be told: a POST is not idempotent, RFC
 * 9110 9.2.2; the annotation says this one may be sent twice).
 *
 * `EFFECT_MCP_DEBUG_RELAY_LANE=1` writes a line to stderr for each call the lane takes (for the
 * tests that check a call took it).
 */
import type { McpClient } from "@effect-mcp/client"
import { ClientError } from "@effect-mcp/client"
import * as RawLane from "@effect-mcp/client/RawLane"
import type { JsonRpc, Peer, Revision } from "@effect-mcp/core"
import { McpError, Method, Schema as McpSchema } from "@effect-mcp/core"
import { Mount } from "@effect-mcp/server"
import type * as RelayTable from "@effect-mcp/server/RelayTable"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { Relay } from "../Proxy.js"
import { toMcpError } from "./mirror.js"
import * as Policy from "./policy.js"
import * as UpstreamLogs from "./upstreamLogs.js"
import * as UpstreamTasks from "./upstreamTasks.js"

const debug = process.env.EFFECT_MCP_DEBUG_RELAY_LANE === "1"

const isLevel = (level: string): level is McpSchema.Base.LoggingLevel =>
  (McpSchema.Logging.levels as ReadonlyArray<string>).includes(level)

/** A content block with a URI of the upstream's (a link, an embedded resource), put under the mount's prefix. */
const mounted = (prefix: string) => (block: unknown): unknown => {
  const b = block as { readonly type?: unknown; readonly uri?: unknown; readonly resource?: { readonly uri?: unknown } }
  if (b?.type === "resource_link" && typeof b.uri === "string") return { ...b, uri: Mount.mountUri(prefix, b.uri) }
  if (b?.type === "resource" && typeof b.resource?.uri === "string") {
    return { ...b, resource: { ...b.resource, uri: Mount.mountUri(prefix, b.resource.uri) } }
  }
  return block
}

const linked = (block: unknown) => {
  const type = (block as { readonly type?: unknown } | null)?.type
  return type === "resource_link" || type === "resource"
}

/**
 * The upstream's result as the server answers it: checked against the revision's `CallToolResult`
 * and encoded as the server's path would (unknown keys dropped); else the error the server's path
 * gives (`Invalid tools/call result: ...`).
 */
const resultOf = (
  revision: Revision.Revision,
  given: unknown,
  prefix: string | undefined
): unknown => {
  const entry = Method.lookup(revision, "tools/call")
  const decoded = entry?.decodeResult?.(given)
  // A result the check took as it came (`Schema/Base.codec`: a schema that only checks, the value
  // exactly its own decoding) is its own encoding too: it is not walked a second time.
  const encoded = decoded?._tag === "Right"
    ? decoded.right === given ? decoded : entry!.encodeResult?.(decoded.right)
    : decoded
  if (encoded === undefined || encoded._tag === "Left") {
    return new ClientError.InvalidResult({
      method: "tools/call",
      detail: encoded === undefined ? "the catalog has no result schema for it" : Method.describeError(encoded.left)
    })
  }
  const result = encoded.right as { readonly content?: ReadonlyArray<unknown> }
  const content = result.content
  if (prefix === undefined || content === undefined || !content.some(linked)) return result
  return { ...result, content: content.map(mounted(prefix)) }
}

/** Where a mirror's tools are relayed raw: the server's table, and how its names and links are mounted. */
export interface Lane {
  readonly table: RelayTable.RelayTable
  /** The mount's prefix (`Mount.under`), if the server mounts the upstream under one. */
  readonly prefix?: string | undefined
}

/** The name a tool served as `served` has in the server's table. */
export const nameIn = (lane: Lane, served: string) =>
  lane.prefix === undefined ? served : Mount.mountName(lane.prefix, served)

/** What each call of one entry shares: the upstream, the relay's count, the tool's name, policy and mount. */
interface Route {
  readonly raw: RawLane.RawLane
  readonly relay: Relay
  readonly upstream: string
  readonly policy: Policy.ToolPolicy | undefined
  readonly prefix: string | undefined
  readonly logPrefix: string | undefined
  /** The upstream annotates the tool idempotent or read-only: a call closed under it unanswered is sent again once. */
  readonly resendable: boolean
}

/** Whether the upstream's annotations let a call of `tool` be sent twice (`idempotentHint` or `readOnlyHint`). */
export const resendable = (tool: McpSchema.Tool.Tool): boolean =>
  tool.annotations?.idempotentHint === true || tool.annotations?.readOnlyHint === true

/** The socket errors of a connection that closed before the answer came (undici's, Node's). */
const closedCodes: ReadonlySet<unknown> = new Set(["UND_ERR_SOCKET", "ECONNRESET", "EPIPE"])

/**
 * Whether a raw call failed because its connection closed with no answer (`ConnectionFailed`
 * with a closed socket down its cause chain), not because the upstream could not be reached or
 * answered an error: the upstream may or may not have run it.
 */
const closedUnanswered = (error: unknown): boolean => {
  if ((error as { readonly _tag?: unknown } | null)?._tag !== "ConnectionFailed") return false
  let current: unknown = (error as { readonly cause?: unknown }).cause
  for (let depth = 0; depth < 8 && typeof current === "object" && current !== null; depth++) {
    if (closedCodes.has((current as { readonly code?: unknown }).code)) return true
    current = (current as { readonly cause?: unknown }).cause
  }
  return false
}

/**
 * One call relayed, until it ends: the upstream call's handlers (its answer, its failure, its
 * logs) as methods of one object, no closure made per call but the cancel the server is given.
 */
class Relayed implements Peer.RawHandlers<ClientError.TransportFailure> {
  private open = true
  private sent: Peer.RawCall | undefined = undefined
  /** The arguments sent, kept for a resend (`Route.resendable` only). */
  private args: unknown = undefined
  /** Sent again already: at most once. */
  private resent = false
  constructor(readonly route: Route, readonly call: RelayTable.RawCall) {}
  /** The call is over (true the first time only): it leaves the relay's count. */
  private end(): boolean {
    if (!this.open) return false
    this.open = false
    this.route.relay.lane.calls--
    return true
  }
  start(args: unknown) {
    const { upstream } = this.route
    if (this.route.resendable) this.args = args
    this.sent = this.route.raw.request(
      "tools/call",
      args === undefined ? { name: upstream } : { name: upstream, arguments: args },
      this
    )
    // The server is told of a cancel with no receiver: a closure, the one of the call.
    this.call.onCancel = () => this.cancelled()
  }
  cancelled() {
    if (this.end()) this.sent?.cancel("cancelled by the caller")
  }
  answer(message: JsonRpc.Response) {
    if (!this.end()) return
    const call = this.call
    if ("error" in message) {
      return call.error(McpError.fromWire(message.error, "tools/call").toWire(call.revision))
    }
    const result = resultOf(call.revision, message.result, this.route.prefix)
    if (result instanceof ClientError.InvalidResult) call.error(toMcpError(result).toWire(call.revision))
    else call.result(result)
  }
  fail(error: Parameters<Peer.RawHandlers<ClientError.TransportFailure>["fail"]>[0]) {
    if (this.open && this.route.resendable && !this.resent && closedUnanswered(error)) {
      this.resent = true
      if (debug) process.stderr.write(`mcp gateway: relay lane: sent again: tools/call ${this.call.name}\n`)
      return this.start(this.args)
    }
    if (this.end()) this.call.error(toMcpError(error as ClientError.ClientError).toWire(this.call.revision))
  }
  onLog(message: Peer.LogMessage) {
    return Effect.sync(() => {
      if (!this.open || !isLevel(message.level)) return
      const logger = typeof message.logger === "string" ? message.logger : undefined
      const logPrefix = this.route.logPrefix
      const named = logPrefix === undefined ? logger : logger === undefined ? logPrefix : `${logPrefix}/${logger}`
      this.call.log({
        level: message.level,
        data: UpstreamLogs.capped(message.data),
        ...(named !== undefined ? { logger: named } : {})
      })
    })
  }
}

/**
 * The table's entry of the upstream tool `upstream` (served under another name, maybe): it takes a
 * call of the revision the client speaks; the logs on the call's own stream go to the call's.
 */
export const entry = (
  raw: RawLane.RawLane,
  relay: Relay,
  upstream: string,
  policy: Policy.ToolPolicy | undefined,
  prefix: string | undefined,
  logPrefix: string | undefined,
  resend = false
): RelayTable.Entry => {
  const route: Route = { raw, relay, upstream, policy, prefix, logPrefix, resendable: resend }
  return {
    take: (call) => {
      if (call.revision !== raw.revision) return false
      if (debug) process.stderr.write(`mcp gateway: relay lane: tools/call ${call.name}\n`)
      const args = policy === undefined ? call.arguments : Policy.argsOf(policy, upstream, call.arguments)
      relay.lane.calls++
      new Relayed(route, call).start(args)
      return true
    }
  }
}

/**
 * A mirror's use of its lane (none: nothing): `relayed` puts an upstream tool just served in the
 * table (a task tool, or any tool of a client with no raw lane, is left to the server), `unrelayed`
 * takes one out; every tool of the mirror (`tools`) leaves the table when the scope ends, before
 * the server's own entries do (a call after that is served, and fails).
 */
export const mirrored = (
  lane: Lane | undefined,
  client: McpClient.Service,
  relay: Relay,
  policy: Policy.ToolPolicy | undefined,
  logPrefix: string | undefined,
  tools: Effect.Effect<Iterable<string>>
): Effect.Effect<
  {
    readonly relayed: (tool: McpSchema.Tool.Tool) => Effect.Effect<void>
    readonly unrelayed: (served: string) => Effect.Effect<void>
  },
  never,
  Scope.Scope
> => {
  if (lane === undefined) return Effect.succeed({ relayed: () => Effect.void, unrelayed: () => Effect.void })
  const raw = RawLane.of(client)
  return Effect.as(
    Effect.addFinalizer(() =>
      Effect.flatMap(tools, (names) =>
        Effect.sync(() => {
          for (const name of names) lane.table.delete(nameIn(lane, name))
        }))
    ),
    {
      relayed: (t) =>
        Effect.sync(() => {
          const name = nameIn(lane, Policy.served(policy, t).name)
          if (raw === undefined || UpstreamTasks.supportOf(client, t) !== undefined) lane.table.delete(name)
          else lane.table.set(name, entry(raw, relay, t.name, policy, lane.prefix, logPrefix, resendable(t)))
        }),
      unrelayed: (served) => Effect.sync(() => lane.table.delete(nameIn(lane, served)))
    }
  )
}
