/**
 * The schemas of `Schema/Resource.ts`, built when first asked for (`resource()`), not when the
 * module is evaluated: a server that serves no resources never builds them
 * (`Schema/Resource.ts` re-exports them, built on its import).
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
} from "../../Schema/Base.js"
import { ResourceContents, resourceFields } from "../../Schema/Content.js"

const make = () => {
  const Resource = Schema.Struct(resourceFields).annotations({ identifier: "Resource" })

  const ResourceTemplate = Schema.Struct({
    uriTemplate: UriTemplate,
    ...baseMetadataFields,
    description: Schema.optional(Schema.String),
    mimeType: Schema.optional(Schema.String),
    annotations: Schema.optional(Annotations),
    ...iconsField,
    ...definitionMetaField
  }).annotations({ identifier: "ResourceTemplate" })

  const ListResourcesRequestParams = PaginatedRequestParams

  const ListResourcesResult = Schema.Struct({
    ...paginatedResultFields,
    resources: Schema.Array(Resource)
  }).annotations({ identifier: "ListResourcesResult" })

  const ListResourceTemplatesRequestParams = PaginatedRequestParams

  const ListResourceTemplatesResult = Schema.Struct({
    ...paginatedResultFields,
    resourceTemplates: Schema.Array(ResourceTemplate)
  }).annotations({ identifier: "ListResourceTemplatesResult" })

  const resourceRequestFields = {
    ...RequestParams.fields,
    uri: Uri
  }

  const ReadResourceRequestParams = Schema.Struct(resourceRequestFields).annotations({
    identifier: "ReadResourceRequestParams"
  })

  const ReadResourceResult = Schema.Struct({
    ...metaField,
    contents: Schema.Array(ResourceContents)
  }).annotations({ identifier: "ReadResourceResult" })

  const SubscribeRequestParams = Schema.Struct(resourceRequestFields).annotations({
    identifier: "SubscribeRequestParams"
  })

  const UnsubscribeRequestParams = Schema.Struct(resourceRequestFields).annotations({
    identifier: "UnsubscribeRequestParams"
  })

  const ResourceUpdatedNotificationParams = Schema.Struct({
    ...metaField,
    uri: Uri
  }).annotations({ identifier: "ResourceUpdatedNotificationParams" })

  const ResourceListChangedNotificationParams = NotificationParams

  return {
    Resource,
    ResourceTemplate,
    ListResourcesRequestParams,
    ListResourcesResult,
    ListResourceTemplatesRequestParams,
    ListResourceTemplatesResult,
    ReadResourceRequestParams,
    ReadResourceResult,
    SubscribeRequestParams,
    UnsubscribeRequestParams,
    ResourceUpdatedNotificationParams,
    ResourceListChangedNotificationParams
  }
}

let built: ReturnType<typeof make> | undefined

/** The schemas of `Schema/Resource.ts`, built on the first call. */
export const resource = (): ReturnType<typeof make> => built ??= make()
