/**
 * The peer's local errors: raised here, never sent by a peer. Exported by `Peer`.
 */
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import type * as JsonRpc from "../JsonRpc.js"

/**
 * An outbound request got no answer in time (a local error: never sent by a peer).
 *
 * @since 0.1.0
 * @category errors
 */
export class RequestTimeout extends Data.TaggedError("RequestTimeout")<{
  readonly method: string
  readonly id: JsonRpc.RequestId
  readonly timeout: Duration.Duration
}> {
  override get message(): string {
    return `Request ${this.method} (id ${JSON.stringify(this.id)}) timed out after ${Duration.format(this.timeout)}`
  }
}

/**
 * The connection closed before the answer arrived, or the request could not be sent
 * (a local error: never sent by a peer).
 *
 * @since 0.1.0
 * @category errors
 */
export class TransportClosed extends Data.TaggedError("TransportClosed")<{
  readonly method: string
  readonly cause?: unknown
}> {
  override get message(): string {
    return `Transport closed before ${this.method} was answered`
  }
}
