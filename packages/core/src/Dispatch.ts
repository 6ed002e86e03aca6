/**
 * A dispatch function for `Peer.onRequest`, derived from the method catalog: it looks
 * the method up in the revision's table (unknown or unserved → -32601), decodes the
 * params with that revision's schema (invalid → -32602 for this request only), runs
 * the handler and encodes its result with the revision's result schema (a result that
 * does not fit is a bug: -32603).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as ParseResult from "effect/ParseResult"
import type * as JsonRpc from "./JsonRpc.js"
import * as McpError from "./McpError.js"
import * as Method from "./Method.js"
import type * as Revision from "./Revision.js"

/**
 * Serves one method: decoded params in, a result (of the revision's result shape) out.
 *
 * @since 0.1.0
 * @category models
 */
export type Handler<P, E, R> = (params: P, request: JsonRpc.Request) => Effect.Effect<unknown, E, R>

/**
 * Handlers by method name, typed by the catalog.
 *
 * @since 0.1.0
 * @category models
 */
export type Handlers<E, R> = {
  readonly [M in Method.Name]?: Handler<Method.Params<M>, E, R>
}

const describe = (error: unknown): string => {
  try {
    return ParseResult.isParseError(error)
      ? ParseResult.TreeFormatter.formatErrorSync(error)
      : error instanceof Error
      ? error.message
      : String(error)
  } catch {
    // Formatting a value nested thousands deep overflows the stack: bad input, still not a bug.
    return "the value does not match the schema (too deeply nested to describe)"
  }
}

/**
 * Decodes the params of a request with the schema of `entry`, failing with `InvalidParams`.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeParams = (
  entry: Method.Entry,
  request: JsonRpc.Request
): Effect.Effect<unknown, McpError.InvalidParams> =>
  Effect.try({
    try: () => entry.decodeParams(request.params),
    catch: (error) =>
      new McpError.InvalidParams({ message: `Invalid params for ${request.method}: ${describe(error)}` })
  })

/**
 * Builds `onRequest` for a peer.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <E extends McpError.McpError, R>(options: {
  readonly revision: Effect.Effect<Revision.Revision>
  readonly handlers: Handlers<E, R>
}): (request: JsonRpc.Request) => Effect.Effect<unknown, E | McpError.InvalidParams | McpError.MethodNotFound, R> => {
  const handlers = options.handlers as Record<string, Handler<unknown, E, R> | undefined>
  return (request) =>
    Effect.flatMap(options.revision, (revision): Effect.Effect<
      unknown,
      E | McpError.InvalidParams | McpError.MethodNotFound,
      R
    > => {
      const entry = Method.lookup(revision, request.method)
      const handler = Object.hasOwn(handlers, request.method) ? handlers[request.method] : undefined
      if (entry === undefined || handler === undefined || entry.encodeResult === undefined) {
        return Effect.fail(new McpError.MethodNotFound({ method: request.method }))
      }
      const encode = entry.encodeResult
      return decodeParams(entry, request).pipe(
        Effect.flatMap((params) => handler(params, request)),
        Effect.map((result) => {
          try {
            return encode(result)
          } catch (error) {
            // The handler produced a result the revision cannot carry: a bug, answered with -32603.
            throw new Error(`effect-mcp: invalid ${request.method} result for ${revision}: ${describe(error)}`)
          }
        })
      )
    })
}
