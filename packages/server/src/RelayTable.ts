/**
 * A relay table: `tools/call`s a server hands on without serving them, for a gateway that relays a
 * call it does not read (`mcp gateway`). A server made with one (`McpServer.Options.relay`) looks a
 * call's tool up in it before its engine decodes the call; an entry may take the call (it answers
 * it later, once) or decline it (the server serves it as any call). Most servers want none.
 *
 * A call is offered only when serving it would make nothing of it but its answer: a handshake
 * session that is ready, a request alone on its line or POST (no batch) whose params hold only
 * `name` and `arguments` (an object, or none) with no `_meta` and no `task`, on a server that
 * records no span, metric or Debug line, whose sessions are its own (not shared over Redis), and a
 * client that declared no sampling, elicitation or roots (a relayed call's asks could not be
 * routed to it). Everything else about it holds as for any call: the transport's front (its
 * authorization, Origin and session checks) and its bound on requests in flight, a
 * `notifications/cancelled` or the client going away (`RawCall.onCancel`).
 *
 * @since 0.2.0
 */
import type { JsonRpc, Revision, Schema as McpSchema } from "@effect-mcp/core"

/**
 * One `tools/call` offered to an entry.
 *
 * @since 0.2.0
 * @category models
 */
export interface RawCall {
  /** The tool's name, as the server serves it. */
  readonly name: string
  /** The arguments as they came (an object), or undefined. */
  readonly arguments: Readonly<Record<string, unknown>> | undefined
  /** The revision of the session. */
  readonly revision: Revision.Revision
  /** The session's log level (`logging/setLevel`), if it set one. */
  readonly logLevel: McpSchema.Base.LoggingLevel | undefined
  /** Answers the call with `result` (a `tools/call` result, as it is sent). Once; later answers do nothing. */
  readonly result: (result: unknown) => void
  /** Answers the call with a JSON-RPC error. Once; later answers do nothing. */
  readonly error: (error: JsonRpc.ErrorObject) => void
  /** Sends a `notifications/message` for the call, on its own stream, when the session's level admits it. */
  readonly log: (
    params: { readonly level: McpSchema.Base.LoggingLevel; readonly data: unknown; readonly logger?: string }
  ) => void
  /** Set by the entry that takes the call: told, once, when the client cancels it or goes away (nothing is sent then). */
  onCancel: (() => void) | undefined
}

/**
 * An entry of the table: takes a call (true; it answers it) or declines it (false: served as any call).
 *
 * @since 0.2.0
 * @category models
 */
export interface Entry {
  readonly take: (call: RawCall) => boolean
}

/**
 * A relay table, by the names of the tools as the server serves them.
 *
 * @since 0.2.0
 * @category models
 */
export interface RelayTable {
  readonly get: (name: string) => Entry | undefined
  readonly set: (name: string, entry: Entry) => void
  readonly delete: (name: string) => void
}

/**
 * An empty relay table.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (): RelayTable => {
  const entries = new Map<string, Entry>()
  return {
    get: (name) => entries.get(name),
    set: (name, entry) => void entries.set(name, entry),
    delete: (name) => void entries.delete(name)
  }
}
