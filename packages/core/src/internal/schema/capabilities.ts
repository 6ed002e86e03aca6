/**
 * The schemas of `Schema/Capabilities.ts`: the client's, which every 2026-07-28 request carries in its
 * `_meta`, built with the module; the server's, which only `initialize` and `server/discover` carry,
 * built when first asked for (`serverCapabilities()`); `Schema/Capabilities.ts` re-exports both, built
 * on its import.
 */
import * as Schema from "effect/Schema"
import { JsonObject } from "../../Schema/Base.js"

const Flag = JsonObject

const ListChanged = Schema.Struct({ listChanged: Schema.optional(Schema.Boolean) })

/** `Schema/Capabilities.ts`' `ClientCapabilities`. */
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

const make = () => {
  const ServerCapabilities = Schema.Struct({
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

  return { ServerCapabilities }
}

let built: ReturnType<typeof make> | undefined

/** The server's capabilities of `Schema/Capabilities.ts`, built on the first call. */
export const serverCapabilities = (): ReturnType<typeof make> => built ??= make()
