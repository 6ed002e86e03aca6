/**
 * Resources and resource templates. A resource has a URI and a `read` Effect; a template
 * has an RFC 6570 URI template, optional completions per variable, and a `read` that gets
 * the variables extracted from the requested URI.
 *
 * @since 0.1.0
 */
import type { McpError } from "@effect-mcp/core"
import { SubscriptionFilter } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import type { Completer } from "./Completion.js"
import * as Failure from "./internal/failure.js"
import * as McpSchema from "./internal/mcpSchema.js"
import * as UriTemplate from "./internal/uriTemplate.js"

/**
 * The contents of one resource (text or a base64 blob).
 *
 * @since 0.1.0
 * @category models
 */
export type ResourceContents = McpSchema.Content.ResourceContents
/**
 * A whole `resources/read` result.
 *
 * @since 0.1.0
 * @category models
 */
export type ReadResourceResult = McpSchema.Resource.ReadResourceResult

/**
 * @since 0.1.0
 * @category type ids
 */
export const TypeId: unique symbol = Symbol.for("@effect-mcp/server/Resource")

/**
 * What `read` may return: text, bytes (sent as a base64 blob), contents, or a whole result.
 *
 * @since 0.1.0
 * @category models
 */
export type Contents = string | Uint8Array | ResourceContents | ReadonlyArray<ResourceContents> | ReadResourceResult

/**
 * A resource with a fixed URI.
 *
 * @since 0.1.0
 * @category models
 */
export interface Resource<R = never> {
  readonly [TypeId]: typeof TypeId
  readonly _tag: "Resource"
  readonly uri: string
  readonly definition: McpSchema.Resource.Resource
  readonly read: (uri: string) => Effect.Effect<ReadResourceResult, McpError.McpError, R>
  /**
   * The OAuth scopes a caller's access token needs for this resource (HTTP with authorization on): a
   * call without them is answered 403 with a step-up challenge naming every scope it needs.
   */
  readonly scopes?: ReadonlyArray<string>
}

/**
 * A family of resources described by a URI template.
 *
 * @since 0.1.0
 * @category models
 */
export interface Template<R = never> {
  readonly [TypeId]: typeof TypeId
  readonly _tag: "Template"
  readonly name: string
  readonly uriTemplate: string
  readonly definition: McpSchema.Resource.ResourceTemplate
  readonly completions: Readonly<Record<string, Completer<R>>>
  /** The variables of `uri` when it matches the template. */
  readonly match: (uri: string) => Readonly<Record<string, string | ReadonlyArray<string>>> | undefined
  readonly read: (
    uri: string,
    variables: Readonly<Record<string, string | ReadonlyArray<string>>>
  ) => Effect.Effect<ReadResourceResult, McpError.McpError, R>
  /**
   * The OAuth scopes a caller's access token needs for this template's resources (HTTP with authorization on): a
   * call without them is answered 403 with a step-up challenge naming every scope it needs.
   */
  readonly scopes?: ReadonlyArray<string>
}

const base64 = (bytes: Uint8Array): string => {
  let binary = ""
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  }
  return btoa(binary)
}

const isResult = (u: Contents): u is ReadResourceResult =>
  typeof u === "object" && !(u instanceof Uint8Array) && !Array.isArray(u) && "contents" in u

/**
 * Turns what a `read` returned into a `resources/read` result for `uri`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const toResult = (uri: string, mimeType: string | undefined, contents: Contents): ReadResourceResult => {
  const withMime = mimeType === undefined ? {} : { mimeType }
  if (typeof contents === "string") return { contents: [{ uri, text: contents, ...withMime }] }
  if (contents instanceof Uint8Array) return { contents: [{ uri, blob: base64(contents), ...withMime }] }
  if (Array.isArray(contents)) return { contents: contents as ReadonlyArray<ResourceContents> }
  if (isResult(contents)) return contents
  return { contents: [contents as ResourceContents] }
}

/**
 * Options of a resource: its wire fields but the URI.
 *
 * @since 0.1.0
 * @category models
 */
export type Options = Omit<McpSchema.Resource.Resource, "uri" | "name"> & {
  readonly name?: string
  /**
   * The OAuth scopes a caller's access token needs for this resource (HTTP with authorization on): a
   * call without them is answered 403 with a step-up challenge naming every scope it needs.
   */
  readonly scopes?: ReadonlyArray<string>
}

/**
 * Defines a resource with a fixed URI.
 *
 * A failure of `read` that is an `McpError` reaches the client as itself (say,
 * `McpError.ResourceNotFound`); any other is -32603 with a generic message ("Internal error"),
 * logged on the server with its cause: its own message never leaves the server. Map what the
 * client should be told to an `McpError`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <E, R>(
  uri: string,
  options: Options,
  read: Effect.Effect<Contents, E, R>
): Resource<R> => {
  const { scopes, ...fields } = options
  const definition: McpSchema.Resource.Resource = { ...fields, uri, name: options.name ?? uri }
  return {
    [TypeId]: TypeId,
    _tag: "Resource",
    uri,
    definition,
    ...(scopes !== undefined ? { scopes } : {}),
    read: (requested) =>
      Effect.map(
        Effect.catchAll(read, Failure.undeclared),
        (contents) => toResult(requested, options.mimeType, contents)
      )
  }
}

/**
 * Options of a template.
 *
 * @since 0.1.0
 * @category models
 */
export type TemplateOptions<R> = Omit<McpSchema.Resource.ResourceTemplate, "uriTemplate"> & {
  /** Completions for variables, by name. */
  readonly complete?: Readonly<Record<string, Completer<R>>>
  /**
   * The OAuth scopes a caller's access token needs for this template's resources (HTTP with authorization on): a
   * call without them is answered 403 with a step-up challenge naming every scope it needs.
   */
  readonly scopes?: ReadonlyArray<string>
}

/**
 * Defines a resource template. `read` gets the requested URI and its variables.
 *
 * A failure of `read` that is an `McpError` reaches the client as itself (say,
 * `McpError.ResourceNotFound`); any other is -32603 with a generic message ("Internal error"),
 * logged on the server with its cause: its own message never leaves the server. Map what the
 * client should be told to an `McpError`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const template = <E, R>(
  uriTemplate: string,
  options: TemplateOptions<R>,
  read: (
    variables: Readonly<Record<string, string | ReadonlyArray<string>>>,
    uri: string
  ) => Effect.Effect<Contents, E, R>
): Template<R> => {
  const compiled = UriTemplate.compile(uriTemplate)
  const { complete, scopes, ...fields } = options
  return {
    [TypeId]: TypeId,
    _tag: "Template",
    name: options.name,
    uriTemplate,
    definition: { ...fields, uriTemplate },
    ...(scopes !== undefined ? { scopes } : {}),
    completions: complete ?? {},
    match: compiled.match,
    read: (uri, variables) =>
      Effect.map(
        Effect.catchAll(read(variables, uri), Failure.undeclared),
        (contents) => toResult(uri, options.mimeType, contents)
      )
  }
}

/**
 * Does a subscription to `subscribed` cover an update of `uri`? The same URI, or, when the
 * subscribed URI ends with `/`, anything beneath it.
 *
 * @since 0.1.0
 * @category predicates
 */
export const covers: (subscribed: string, uri: string) => boolean = SubscriptionFilter.covers
