/**
 * Client and server capabilities. One shape serves every revision: fields a revision
 * does not know are optional, and unknown fields survive decoding.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { JsonObject } from "./Base.js"

const Flag = JsonObject

const ListChanged = Schema.Struct({ listChanged: Schema.optional(Schema.Boolean) })

/**
 * What a client supports.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ClientCapabilities = Schema.Struct({
  experimental: Schema.optional(Schema.Record({ key: Schema.String, value: JsonObject })),
  /** 2026-07-28: extension id → settings. */
  extensions: Schema.optional(Schema.Record({ key: Schema.String, value: JsonObject })),
  /** `listChanged` until 2025-11-25; an empty object in 2026-07-28. */
  roots: Schema.optional(ListChanged),
  /** `context` and `tools` from 2025-11-25. */
  sampling: Schema.optional(Schema.Struct({ context: Schema.optional(Flag), tools: Schema.optional(Flag) })),
  /** 2025-06-18+; `form` and `url` from 2025-11-25 (an empty object means form only). */
  elicitation: Schema.optional(Schema.Struct({ form: Schema.optional(Flag), url: Schema.optional(Flag) })),
  /** 2025-11-25 experimental tasks. */
  tasks: Schema.optional(Schema.Struct({
    list: Schema.optional(Flag),
    cancel: Schema.optional(Flag),
    requests: Schema.optional(Schema.Struct({
      sampling: Schema.optional(Schema.Struct({ createMessage: Schema.optional(Flag) })),
      elicitation: Schema.optional(Schema.Struct({ create: Schema.optional(Flag) }))
    }))
  }))
}).annotations({ identifier: "ClientCapabilities" })

/**
 * @since 0.1.0
 * @category models
 */
export type ClientCapabilities = typeof ClientCapabilities.Type

/**
 * What a server supports.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ServerCapabilities = Schema.Struct({
  experimental: Schema.optional(Schema.Record({ key: Schema.String, value: JsonObject })),
  /** 2026-07-28: extension id → settings. */
  extensions: Schema.optional(Schema.Record({ key: Schema.String, value: JsonObject })),
  logging: Schema.optional(Flag),
  /** 2025-03-26+. */
  completions: Schema.optional(Flag),
  prompts: Schema.optional(ListChanged),
  resources: Schema.optional(Schema.Struct({
    subscribe: Schema.optional(Schema.Boolean),
    listChanged: Schema.optional(Schema.Boolean)
  })),
  tools: Schema.optional(ListChanged),
  /** 2025-11-25 experimental tasks. */
  tasks: Schema.optional(Schema.Struct({
    list: Schema.optional(Flag),
    cancel: Schema.optional(Flag),
    requests: Schema.optional(Schema.Struct({
      tools: Schema.optional(Schema.Struct({ call: Schema.optional(Flag) }))
    }))
  }))
}).annotations({ identifier: "ServerCapabilities" })

/**
 * @since 0.1.0
 * @category models
 */
export type ServerCapabilities = typeof ServerCapabilities.Type
