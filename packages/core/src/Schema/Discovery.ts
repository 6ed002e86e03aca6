/**
 * `server/discover` (2026-07-28): the stateless replacement for `initialize`. The client
 * may call it to learn the server's versions, capabilities and instructions; it is also
 * the recommended probe for the era of a stdio server.
 *
 * @since 0.1.0
 */
import { discovery } from "../internal/schema/discovery.js"

const built = discovery()

/**
 * Params of `server/discover`: only the per-request `_meta` (required).
 *
 * @since 0.1.0
 * @category schemas
 */
export const DiscoverRequestParams = built.DiscoverRequestParams

/**
 * @since 0.1.0
 * @category models
 */
export type DiscoverRequestParams = typeof DiscoverRequestParams.Type

/**
 * Result of `server/discover`: the versions the server speaks (the client picks one),
 * its capabilities and instructions, with caching hints. `serverInfo` goes in
 * `_meta["io.modelcontextprotocol/serverInfo"]`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const DiscoverResult = built.DiscoverResult

/**
 * @since 0.1.0
 * @category models
 */
export type DiscoverResult = typeof DiscoverResult.Type
