/**
 * The peer's local errors: raised here, never sent by a peer. Exported by `Peer`.
 */
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import type * as JsonRpc from "../JsonRpc.js"
import type * as Transport from "../Transport.js"

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
 * (a local error: never sent by a peer). `reason` is why the connection ended, when its transport
 * knows: a child process's exit (platform-node's `ServerExited` is its `cause`: the exit code and
 * the last lines of the child's stderr), the in-memory server's failure (its `Cause` is the
 * `cause`); its message ends the error's.
 *
 * @since 0.1.0
 * @category errors
 */
export class TransportClosed extends Data.TaggedError("TransportClosed")<{
  readonly method: string
  readonly cause?: unknown
  readonly reason?: Transport.TransportError | undefined
}> {
  override get message(): string {
    const why = this.reason === undefined ? "" : `; ${this.reason.message}`
    return `Transport closed before ${this.method} was answered${why}`
  }
}

/**
 * What came back on the channel of one request was not its answer: an answer to another id, a
 * request or a notification where the answer belongs, a body that is not JSON-RPC, or a channel
 * its transport gave up on (a local error: never sent by a peer). Only transports with a channel
 * per request (`Transport.Protocol.request`) fail a request with it.
 *
 * @since 0.1.0
 * @category errors
 */
export class UnexpectedAnswer extends Data.TaggedError("UnexpectedAnswer")<{
  readonly method: string
  readonly expected: JsonRpc.RequestId
  /** What came instead: the other id (`null` for none), or what the message was. */
  readonly received: string
}> {
  override get message(): string {
    return `${this.method} (id ${JSON.stringify(this.expected)}) was answered with ${this.received}`
  }
}
