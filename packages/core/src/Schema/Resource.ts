/**
 * Resources: listing (`resources/list`, `resources/templates/list`), reading
 * (`resources/read`) and the handshake-era subscriptions (`resources/subscribe`,
 * `resources/unsubscribe`, `notifications/resources/updated`). One shape serves every
 * revision: `title` (2025-06-18), `icons` (2025-11-25) and `_meta` are optional additions.
 *
 * @since 0.1.0
 */
import { resource } from "../internal/schema/resource.js"

const built = resource()

/**
 * A resource the server can read.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Resource = built.Resource

/**
 * @since 0.1.0
 * @category models
 */
export type Resource = typeof Resource.Type

/**
 * A template (RFC 6570) for resources the server can read.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ResourceTemplate = built.ResourceTemplate

/**
 * @since 0.1.0
 * @category models
 */
export type ResourceTemplate = typeof ResourceTemplate.Type

/**
 * Params of `resources/list`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ListResourcesRequestParams = built.ListResourcesRequestParams

/**
 * @since 0.1.0
 * @category models
 */
export type ListResourcesRequestParams = typeof ListResourcesRequestParams.Type

/**
 * Result of `resources/list`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ListResourcesResult = built.ListResourcesResult

/**
 * @since 0.1.0
 * @category models
 */
export type ListResourcesResult = typeof ListResourcesResult.Type

/**
 * Params of `resources/templates/list`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ListResourceTemplatesRequestParams = built.ListResourceTemplatesRequestParams

/**
 * @since 0.1.0
 * @category models
 */
export type ListResourceTemplatesRequestParams = typeof ListResourceTemplatesRequestParams.Type

/**
 * Result of `resources/templates/list`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ListResourceTemplatesResult = built.ListResourceTemplatesResult

/**
 * @since 0.1.0
 * @category models
 */
export type ListResourceTemplatesResult = typeof ListResourceTemplatesResult.Type

/**
 * Params of `resources/read`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ReadResourceRequestParams = built.ReadResourceRequestParams

/**
 * @since 0.1.0
 * @category models
 */
export type ReadResourceRequestParams = typeof ReadResourceRequestParams.Type

/**
 * Result of `resources/read`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ReadResourceResult = built.ReadResourceResult

/**
 * @since 0.1.0
 * @category models
 */
export type ReadResourceResult = typeof ReadResourceResult.Type

/**
 * Params of `resources/subscribe` (2024-11-05 to 2025-11-25).
 *
 * @since 0.1.0
 * @category schemas
 */
export const SubscribeRequestParams = built.SubscribeRequestParams

/**
 * @since 0.1.0
 * @category models
 */
export type SubscribeRequestParams = typeof SubscribeRequestParams.Type

/**
 * Params of `resources/unsubscribe` (2024-11-05 to 2025-11-25).
 *
 * @since 0.1.0
 * @category schemas
 */
export const UnsubscribeRequestParams = built.UnsubscribeRequestParams

/**
 * @since 0.1.0
 * @category models
 */
export type UnsubscribeRequestParams = typeof UnsubscribeRequestParams.Type

/**
 * Params of `notifications/resources/updated`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ResourceUpdatedNotificationParams = built.ResourceUpdatedNotificationParams

/**
 * @since 0.1.0
 * @category models
 */
export type ResourceUpdatedNotificationParams = typeof ResourceUpdatedNotificationParams.Type

/**
 * Params of `notifications/resources/list_changed`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ResourceListChangedNotificationParams = built.ResourceListChangedNotificationParams

/**
 * @since 0.1.0
 * @category models
 */
export type ResourceListChangedNotificationParams = typeof ResourceListChangedNotificationParams.Type
