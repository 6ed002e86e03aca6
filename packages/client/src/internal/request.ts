/**
 * What every request of the client shares, in either era: the server's place on the transport,
 * the options of one call as the engine takes them, and a result checked against the catalog.
 */
import { Method, type Peer, Revision } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as ClientError from "../ClientError.js"
import type { CallOptions, RequestResult } from "../McpClient.js"

/** What a caller carries to the handlers of the asks its request raises (see `McpClient.currentCaller`). */
export const currentCaller: FiberRef.FiberRef<unknown> = FiberRef.unsafeMake<unknown>(undefined)

/** The server, as the client's transport sees it: the protocol's one client. */
export const server = 0

export const isObject = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * Progress is asked for (a progressToken) only by a caller that listens; then it also restarts
 * the timeout, up to `maxTimeout`. Without a token no progress comes, and nothing is raced. The
 * log messages on the call's own stream go to a caller that takes them.
 */
export const engineOptions = (call: CallOptions | undefined): Peer.RequestOptions => ({
  ...(call?.onProgress !== undefined ? { onProgress: call.onProgress, resetTimeoutOnProgress: true } : {}),
  ...(call?.onLog !== undefined ? { onLog: call.onLog } : {}),
  ...(call?.timeout !== undefined ? { timeout: call.timeout } : {})
})

/**
 * The entry a result of `method` is checked with: the revision spoken's, else (a method that
 * revision lacks, sent anyway) the newest that has it.
 */
const entryOf = <M extends Method.Name>(revision: Revision.Revision, method: M) => {
  const own = Method.lookup(revision, method)
  if (own !== undefined) return own
  const revisions = Method.catalog[method].revisions
  return revisions.length === 0 ? undefined : Method.lookup(revisions[revisions.length - 1]!, method)
}

/**
 * A result of a catalog request, checked against its method's schema in the revision spoken,
 * whatever it is (a task, too).
 */
export const checked = <M extends Method.Name>(
  revision: Revision.Revision,
  method: M,
  result: unknown
): Effect.Effect<Method.Result<M>, ClientError.InvalidResult> => {
  const decode = entryOf(revision, method)?.decodeResult
  if (decode === undefined) {
    return Effect.fail(new ClientError.InvalidResult({ method, detail: "the catalog has no result schema for it" }))
  }
  const value = decode(result)
  return value._tag === "Left"
    ? Effect.fail(new ClientError.InvalidResult({ method, detail: Method.describeError(value.left) }))
    : Effect.succeed(value.right as Method.Result<M>)
}

/** A result of a catalog request, checked against its method's schema in the revision spoken. */
export const decoded = <M extends Method.Name>(
  revision: Revision.Revision,
  method: M,
  result: unknown
): Effect.Effect<RequestResult<M>, ClientError.InvalidResult> =>
  Effect.flatMap(checked(revision, method, result), (value) =>
    isComplete(value)
      ? Effect.succeed(value)
      : Effect.fail(
        new ClientError.InvalidResult({
          method,
          detail: "the server created a task, which this client did not ask for"
        })
      ))

/** A result that is the request's answer: not an `input_required` round, not a task. */
const isComplete = <A>(
  result: A
): result is Exclude<
  A,
  { readonly resultType: "input_required" } | { readonly resultType: "task" } | { readonly task: unknown }
> =>
  !isObject(result) ||
  (result.resultType !== "input_required" && result.resultType !== "task" && !("task" in result))

/** A result of any method: checked when the catalog knows the method, else as it came. */
export const decodedUnknown = (
  revision: Revision.Revision,
  method: string,
  result: unknown
): Effect.Effect<unknown, ClientError.InvalidResult> =>
  Method.definition(method) === undefined || Method.lookup(revision, method) === undefined
    ? Effect.succeed(result)
    : decoded(revision, method as Method.Name, result)

/** The method exists only in the other era: nothing is sent. */
export const eraOf = (method: string, era: Revision.Era): ClientError.EraMismatch | undefined => {
  const definition = Method.definition(method)
  if (definition === undefined) return undefined
  const speaks = definition.revisions.some((revision) => Revision.isStateless(revision) === (era === "stateless"))
  return speaks ? undefined : new ClientError.EraMismatch({ method, era })
}
