/**
 * The Web-standard adapter of a `StatelessServer` (2026-07-28 alone): `web.ts` over the stateless
 * handler (`statelessHandler.ts`). A module of its own, loaded through `#modules` (`statelessWeb`):
 * a loader hands over a module's whole namespace, so the bundle of a Worker that reaches this one
 * keeps none of the full handler (`handler.ts`'s `make`) that `web.ts` exports.
 */
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import type { McpServer } from "../../McpServer.js"
import type * as StatelessServer from "../../StatelessServer.js"
import * as FetchExchange from "./fetch.js"
import * as StatelessHandler from "./statelessHandler.js"
import { type Adapter, type Building, type Fetch, of } from "./web.js"

/** The fetch handler of a `StatelessServer` for the `McpServer` in context, for the lifetime of the scope. */
export const make = (
  options: StatelessServer.HandlerOptions
): Effect.Effect<Fetch, never, McpServer | Scope.Scope> =>
  Effect.map(StatelessHandler.make(options), FetchExchange.toFetch)

/** A fetch handler for a server layer (built by the first request), what disposes of it, and when no task runs. */
export const toWebHandler = <E>(
  server: Layer.Layer<McpServer, E>,
  options: StatelessServer.HandlerOptions & Building
): Adapter => {
  const { configProvider, memoMap, ...rest } = options
  return of(server, make(rest), { configProvider, memoMap })
}
