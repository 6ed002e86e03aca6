/**
 * Content: the blocks of tool results and prompt messages (text, image, audio,
 * resource links, embedded resources) and the contents of a resource.
 *
 * The union of content blocks grew: `text | image | resource` in 2024-11-05
 * ({@link ContentBlock20241105}), `+ audio` in 2025-03-26 ({@link ContentBlock20250326}),
 * `+ resource_link` from 2025-06-18 on ({@link ContentBlock}).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { Annotations, Base64, baseMetadataFields, definitionMetaField, iconsField, metaField, Uri } from "./Base.js"

const annotatedFields = {
  annotations: Schema.optional(Annotations),
  ...metaField
}

/**
 * Text provided to or from an LLM.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TextContent = Schema.Struct({
  type: Schema.Literal("text"),
  text: Schema.String,
  ...annotatedFields
}).annotations({ identifier: "TextContent" })

/**
 * @since 0.1.0
 * @category models
 */
export type TextContent = typeof TextContent.Type

/**
 * An image (base64) provided to or from an LLM.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ImageContent = Schema.Struct({
  type: Schema.Literal("image"),
  data: Base64,
  mimeType: Schema.String,
  ...annotatedFields
}).annotations({ identifier: "ImageContent" })

/**
 * @since 0.1.0
 * @category models
 */
export type ImageContent = typeof ImageContent.Type

/**
 * Audio (base64) provided to or from an LLM (2025-03-26+).
 *
 * @since 0.1.0
 * @category schemas
 */
export const AudioContent = Schema.Struct({
  type: Schema.Literal("audio"),
  data: Base64,
  mimeType: Schema.String,
  ...annotatedFields
}).annotations({ identifier: "AudioContent" })

/**
 * @since 0.1.0
 * @category models
 */
export type AudioContent = typeof AudioContent.Type

/**
 * The fields of a `Resource` (`uri`, `name`, `title?`, `description?`, `mimeType?`, `size?`,
 * `annotations?`, `icons?`, `_meta?`), shared by `Resource` and {@link ResourceLink}.
 *
 * @since 0.1.0
 * @category fields
 */
export const resourceFields = {
  uri: Uri,
  ...baseMetadataFields,
  description: Schema.optional(Schema.String),
  mimeType: Schema.optional(Schema.String),
  /** Raw size in bytes, before base64 encoding, if known. */
  size: Schema.optional(Schema.Int),
  annotations: Schema.optional(Annotations),
  ...iconsField,
  ...definitionMetaField
}

/**
 * A link to a resource the server can read, in a tool result or prompt (2025-06-18+).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ResourceLink = Schema.Struct({
  type: Schema.Literal("resource_link"),
  ...resourceFields
}).annotations({ identifier: "ResourceLink" })

/**
 * @since 0.1.0
 * @category models
 */
export type ResourceLink = typeof ResourceLink.Type

/**
 * The text contents of a resource.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TextResourceContents = Schema.Struct({
  uri: Uri,
  mimeType: Schema.optional(Schema.String),
  text: Schema.String,
  ...metaField
}).annotations({ identifier: "TextResourceContents" })

/**
 * @since 0.1.0
 * @category models
 */
export type TextResourceContents = typeof TextResourceContents.Type

/**
 * The binary (base64) contents of a resource.
 *
 * @since 0.1.0
 * @category schemas
 */
export const BlobResourceContents = Schema.Struct({
  uri: Uri,
  mimeType: Schema.optional(Schema.String),
  blob: Base64,
  ...metaField
}).annotations({ identifier: "BlobResourceContents" })

/**
 * @since 0.1.0
 * @category models
 */
export type BlobResourceContents = typeof BlobResourceContents.Type

/**
 * The contents of a resource: text or blob.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ResourceContents = Schema.Union(TextResourceContents, BlobResourceContents).annotations({
  identifier: "ResourceContents"
})

/**
 * @since 0.1.0
 * @category models
 */
export type ResourceContents = typeof ResourceContents.Type

/**
 * The contents of a resource, embedded into a prompt or tool result.
 *
 * @since 0.1.0
 * @category schemas
 */
export const EmbeddedResource = Schema.Struct({
  type: Schema.Literal("resource"),
  resource: ResourceContents,
  ...annotatedFields
}).annotations({ identifier: "EmbeddedResource" })

/**
 * @since 0.1.0
 * @category models
 */
export type EmbeddedResource = typeof EmbeddedResource.Type

/**
 * A content block (2025-06-18+): text, image, audio, resource link or embedded resource.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ContentBlock = Schema.Union(TextContent, ImageContent, AudioContent, ResourceLink, EmbeddedResource)
  .annotations({ identifier: "ContentBlock" })

/**
 * @since 0.1.0
 * @category models
 */
export type ContentBlock = typeof ContentBlock.Type

/**
 * A content block of 2025-03-26: text, image, audio or embedded resource.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ContentBlock20250326 = Schema.Union(TextContent, ImageContent, AudioContent, EmbeddedResource)
  .annotations({ identifier: "ContentBlock20250326" })

/**
 * @since 0.1.0
 * @category models
 */
export type ContentBlock20250326 = typeof ContentBlock20250326.Type

/**
 * A content block of 2024-11-05: text, image or embedded resource.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ContentBlock20241105 = Schema.Union(TextContent, ImageContent, EmbeddedResource)
  .annotations({ identifier: "ContentBlock20241105" })

/**
 * @since 0.1.0
 * @category models
 */
export type ContentBlock20241105 = typeof ContentBlock20241105.Type

/**
 * The optional fields every content block carries.
 *
 * @since 0.1.0
 * @category models
 */
export interface ContentOptions {
  readonly annotations?: Annotations | undefined
  readonly _meta?: { readonly [key: string]: unknown } | undefined
}

/**
 * A text content block.
 *
 * @since 0.1.0
 * @category constructors
 */
export const text = (text: string, options?: ContentOptions): TextContent => ({ type: "text", text, ...options })

/**
 * An image content block from base64 data.
 *
 * @since 0.1.0
 * @category constructors
 */
export const image = (data: string, mimeType: string, options?: ContentOptions): ImageContent => ({
  type: "image",
  data,
  mimeType,
  ...options
})

/**
 * An audio content block from base64 data.
 *
 * @since 0.1.0
 * @category constructors
 */
export const audio = (data: string, mimeType: string, options?: ContentOptions): AudioContent => ({
  type: "audio",
  data,
  mimeType,
  ...options
})

/**
 * A resource link content block.
 *
 * @since 0.1.0
 * @category constructors
 */
export const resourceLink = (resource: Omit<ResourceLink, "type">): ResourceLink => ({
  type: "resource_link",
  ...resource
})

/**
 * An embedded resource content block.
 *
 * @since 0.1.0
 * @category constructors
 */
export const embedded = (resource: ResourceContents, options?: ContentOptions): EmbeddedResource => ({
  type: "resource",
  resource,
  ...options
})

/**
 * The optional fields of resource contents.
 *
 * @since 0.1.0
 * @category models
 */
export interface ResourceContentsOptions {
  readonly mimeType?: string | undefined
  readonly _meta?: { readonly [key: string]: unknown } | undefined
}

/**
 * Text resource contents.
 *
 * @since 0.1.0
 * @category constructors
 */
export const textResource = (uri: string, text: string, options?: ResourceContentsOptions): TextResourceContents => ({
  uri,
  text,
  ...options
})

/**
 * Binary resource contents from base64 data.
 *
 * @since 0.1.0
 * @category constructors
 */
export const blobResource = (uri: string, blob: string, options?: ResourceContentsOptions): BlobResourceContents => ({
  uri,
  blob,
  ...options
})
