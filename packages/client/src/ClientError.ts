/**
 * The client's own errors: local failures that never pretend to be a peer's (those are
 * `McpError`s, read from the wire), besides the engine's `RequestTimeout` and `TransportClosed`.
 *
 * @since 0.1.0
 */
import type { McpError, Peer, Schema as McpSchema } from "@effect-mcp/core"
import * as Data from "effect/Data"

/**
 * The server speaks no revision this client does: what it offered (or supports) and what we do.
 *
 * @since 0.1.0
 * @category errors
 */
export class VersionMismatch extends Data.TaggedError("VersionMismatch")<{
  readonly offered: ReadonlyArray<string>
  readonly supported: ReadonlyArray<string>
}> {
  override get message(): string {
    return `The server speaks ${this.offered.join(", ") || "no revision"}; this client speaks ${
      this.supported.join(", ")
    }`
  }
}

/**
 * A multi-round-trip request still asked for input after `maxRoundTrips` rounds.
 *
 * @since 0.1.0
 * @category errors
 */
export class RoundTripsExceeded extends Data.TaggedError("RoundTripsExceeded")<{
  readonly method: string
  readonly rounds: number
}> {
  override get message(): string {
    return `${this.method} still asked for input after ${this.rounds} round trips`
  }
}

/**
 * The server asked for an input this client has no handler for (`sampling`, `elicitation`,
 * `roots`).
 *
 * @since 0.1.0
 * @category errors
 */
export class MissingHandler extends Data.TaggedError("MissingHandler")<{
  readonly method: string
  readonly handler: "sampling" | "elicitation" | "roots"
}> {
  override get message(): string {
    return `The server asked for ${this.method}, and this client has no ${this.handler} handler`
  }
}

/**
 * The server answered with a result that does not fit its method's schema in the revision spoken.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidResult extends Data.TaggedError("InvalidResult")<{
  readonly method: string
  readonly detail: string
}> {
  override get message(): string {
    return `Invalid ${this.method} result: ${this.detail}`
  }
}

/**
 * The arguments of a typed tool call do not encode with the tool's `parameters` schema: the call
 * was not sent.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidArguments extends Data.TaggedError("InvalidArguments")<{
  readonly tool: string
  readonly detail: string
}> {
  override get message(): string {
    return `Invalid arguments for ${this.tool}: ${this.detail}`
  }
}

/**
 * A typed tool call answered `isError`: the tool's failure, decoded with its `failure` schema
 * when it has one (from `structuredContent`, else from the JSON of its text), and the result as sent.
 *
 * @since 0.1.0
 * @category errors
 */
export class ToolFailed<F = unknown> extends Data.TaggedError("ToolFailed")<{
  readonly tool: string
  readonly failure: F
  readonly result: McpSchema.Tool.CallToolResult
}> {
  override get message(): string {
    const text = this.result.content.flatMap((c) => c.type === "text" ? [c.text] : []).join(" ")
    return `${this.tool} failed${text.length > 0 ? `: ${text}` : ""}`
  }
}

/**
 * Every failure of a client call.
 *
 * @since 0.1.0
 * @category models
 */
export type ClientError =
  | McpError.McpError
  | Peer.RequestTimeout
  | Peer.TransportClosed
  | VersionMismatch
  | RoundTripsExceeded
  | MissingHandler
  | InvalidResult
