/**
 * Resources: listing (`resources/list`, `resources/templates/list`), reading
 * (`resources/read`) and the handshake-era subscriptions (`resources/subscribe`,
 * `resources/unsubscribe`, `notifications/resources/updated`). One shape serves every
 * revision: `title` (2025-06-18), `icons` (2025-11-25) and `_meta` are optional additions.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import {
  Annotations,
  baseMetadataFields,
  definitionMetaField,
  iconsField,
  metaField,
  NotificationParams,
  PaginatedRequestParams,
  paginatedResultFields,
  RequestParams,
  Uri,
  UriTemplate
} from "./Base.js"
import { ResourceContents, resourceFields } from "./Content.js"

/**
 * A resource the server can read.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Resource = Schema.Struct(resourceFields).annotations({ identifier: "Resource" })

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
export const ResourceTemplate = Schema.Struct({
  uriTemplate: UriTemplate,
  ...baseMetadataFields,
  description: Schema.optional(Schema.String),
  mimeType: Schema.optional(Schema.String),
  annotations: Schema.optional(Annotations),
  ...iconsField,
  ...definitionMetaField
}).annotations({ identifier: "ResourceTemplate" })

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
export const ListResourcesRequestParams = PaginatedRequestParams

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
export const ListResourcesResult = Schema.Struct({
  ...paginatedResultFields,
  resources: Schema.Array(Resource)
}).annotations({ identifier: "ListResourcesResult" })

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
export const ListResourceTemplatesRequestParams = PaginatedRequestParams

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
export const ListResourceTemplatesResult = Schema.Struct({
  ...paginatedResultFields,
  resourceTemplates: Schema.Array(ResourceTemplate)
}).annotations({ identifier: "ListResourceTemplatesResult" })

/**
 * @since 0.1.0
 * @category models
 */
export type ListResourceTemplatesResult = typeof ListResourceTemplatesResult.Type

const resourceRequestFields = {
  ...RequestParams.fields,
  uri: Uri
}

/**
 * Params of `resources/read`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ReadResourceRequestParams = Schema.Struct(resourceRequestFields).annotations({
  identifier: "ReadResourceRequestParams"
})

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
export const ReadResourceResult = Schema.Struct({
  ...metaField,
  contents: Schema.Array(ResourceContents)
}).annotations({ identifier: "ReadResourceResult" })

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
export const SubscribeRequestParams = Schema.Struct(resourceRequestFields).annotations({
  identifier: "SubscribeRequestParams"
})

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
export const UnsubscribeRequestParams = Schema.Struct(resourceRequestFields).annotations({
  identifier: "UnsubscribeRequestParams"
})

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
export const ResourceUpdatedNotificationParams = Schema.Struct({
  ...metaField,
  uri: Uri
}).annotations({ identifier: "ResourceUpdatedNotificationParams" })

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
export const ResourceListChangedNotificationParams = NotificationParams

/**
 * @since 0.1.0
 * @category models
 */
export type ResourceListChangedNotificationParams = typeof ResourceListChangedNotificationParams.Type
