/**
 * Dispatch tables derived from the method catalog: for one revision, each method a side
 * serves maps to a route that decodes the params with that revision's schema (invalid →
 * -32602 for this request only), runs the handler and encodes its result with the
 * revision's result schema (a result that does not fit is a bug: a defect, answered -32603).
 *
 * Handlers are typed by their method: `Handlers` takes, for each name of the catalog, a
 * function from that method's params to that method's result. A table is built once (per
 * revision and whatever else selects its methods) and looked up per request.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as JsonRpc from "./JsonRpc.js"
import * as McpError from "./McpError.js"
import * as Method from "./Method.js"
import type * as Revision from "./Revision.js"

/**
 * Serves one method: decoded params and the caller's context in, a result of the method out.
 *
 * @since 0.1.0
 * @category models
 */
export type Handler<M extends Method.Name, E, R, C> = (
  params: Method.Params<M>,
  context: C
) => Effect.Effect<Method.Result<M>, E, R>

/**
 * Handlers by method name, typed by the catalog.
 *
 * @since 0.1.0
 * @category models
 */
export type Handlers<E, R, C> = {
  readonly [M in Method.Name]?: Handler<M, E, R, C>
}

/**
 * One method of a table: the wire request and the context in, the wire result out.
 *
 * @since 0.1.0
 * @category models
 */
export type Route<E, R, C> = (
  request: JsonRpc.Request,
  context: C
) => Effect.Effect<unknown, E | McpError.InvalidParams, R>

/**
 * The routes of one revision, by method name.
 *
 * @since 0.1.0
 * @category models
 */
export type Table<E, R, C> = ReadonlyMap<string, Route<E, R, C>>

const route = <E, R, C>(
  revision: Revision.Revision,
  entry: Method.Entry,
  handler: (params: unknown, context: C) => Effect.Effect<unknown, E, R>,
  trusted: boolean
): Route<E, R, C> => {
  if (trusted) {
    return (request, context) => {
      const params = entry.decodeParams(request.params)
      return params._tag === "Left" ? Effect.fail(params.left) : handler(params.right, context)
    }
  }
  const encode = entry.encodeResult!
  const name = entry.definition.name
  const encodeOrDie = (result: unknown): Effect.Effect<unknown> => {
    const encoded = encode(result)
    return encoded._tag === "Right"
      ? Effect.succeed(encoded.right)
      // The handler produced a result the revision cannot carry: a bug, answered with -32603.
      : Effect.die(
        new Error(`effect-mcp: invalid ${name} result for ${revision}: ${Method.describeError(encoded.left)}`)
      )
  }
  return (request, context) => {
    const params = entry.decodeParams(request.params)
    if (params._tag === "Left") return Effect.fail(params.left)
    const result = handler(params.right, context)
    // A handler done already is encoded at once: the route stays done (an `Exit`) too.
    return Exit.isExit(result) && Exit.isSuccess(result)
      ? encodeOrDie(result.value)
      : Effect.flatMap(result, encodeOrDie)
  }
}

/**
 * Options of `make`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Which requests of the revision to serve (default: every one that has a handler). */
  readonly include?: (definition: Method.Definition) => boolean
  /**
   * Methods whose handlers make results valid by construction (their parts already checked by
   * their own schemas, and typed by the method): sent as they are, not checked again. Params
   * are always decoded.
   */
  readonly trusted?: ReadonlyArray<Method.Name>
}

/**
 * Builds the table of `revision`: every request of the revision that has a handler and that
 * `include` accepts.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <E, R, C>(
  revision: Revision.Revision,
  handlers: Handlers<E, R, C>,
  options: Options = {}
): Table<E, R, C> => {
  const include = options.include ?? (() => true)
  const trusted = new Set<string>(options.trusted ?? [])
  const out = new Map<string, Route<E, R, C>>()
  const byName = handlers as Record<string, ((params: unknown, context: C) => Effect.Effect<unknown, E, R>) | undefined>
  for (const entry of Method.table(revision).values()) {
    const definition = entry.definition
    const handler = Object.hasOwn(byName, definition.name) ? byName[definition.name] : undefined
    if (handler === undefined || definition.kind !== "request" || !include(definition)) continue
    out.set(definition.name, route(revision, entry, handler, trusted.has(definition.name)))
  }
  return out
}

/**
 * Runs `request` through `table`: an unknown method (or one the table does not serve) is -32601.
 *
 * @since 0.1.0
 * @category combinators
 */
export const run = <E, R, C>(
  table: Table<E, R, C>,
  request: JsonRpc.Request,
  context: C
): Effect.Effect<unknown, E | McpError.InvalidParams | McpError.MethodNotFound, R> => {
  const found = table.get(request.method)
  return found === undefined
    ? Effect.fail(new McpError.MethodNotFound({ method: request.method }))
    : found(request, context)
}
