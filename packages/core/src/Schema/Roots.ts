/**
 * Roots: the filesystem boundaries a client exposes. Handshake era: the server sends
 * `roots/list` and the client announces changes with `notifications/roots/list_changed`.
 * 2026-07-28: `roots/list` is only an input request of an `input_required` result, there
 * is no change notification, and the feature is deprecated.
 *
 * @since 0.1.0
 */
import { roots } from "../internal/schema/roots.js"

const built = roots()

/**
 * A root: a URI (a `file://` URI in practice) and an optional display name.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Root = built.Root

/**
 * @since 0.1.0
 * @category models
 */
export type Root = typeof Root.Type

/**
 * Params of `roots/list`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ListRootsRequestParams = built.ListRootsRequestParams

/**
 * @since 0.1.0
 * @category models
 */
export type ListRootsRequestParams = typeof ListRootsRequestParams.Type

/**
 * Result of `roots/list`. In 2026-07-28 it is an input response and carries no
 * `resultType`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ListRootsResult = built.ListRootsResult

/**
 * @since 0.1.0
 * @category models
 */
export type ListRootsResult = typeof ListRootsResult.Type

/**
 * Params of `notifications/roots/list_changed` (2024-11-05 to 2025-11-25).
 *
 * @since 0.1.0
 * @category schemas
 */
export const RootsListChangedNotificationParams = built.RootsListChangedNotificationParams

/**
 * @since 0.1.0
 * @category models
 */
export type RootsListChangedNotificationParams = typeof RootsListChangedNotificationParams.Type
