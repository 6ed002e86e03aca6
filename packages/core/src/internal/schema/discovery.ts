/**
 * The schemas of `Schema/Discovery.ts`, built when first asked for (`discovery()`), not when the
 * module is evaluated: a server never asked `server/discover` never builds them
 * (`Schema/Discovery.ts` re-exports them, built on its import).
 */
import * as Schema from "effect/Schema"
import { RequestParams } from "../../Schema/Base.js"
import * as Stateless from "../../Schema/Stateless.js"
import { serverCapabilities } from "./capabilities.js"

const make = () => {
  const DiscoverRequestParams = Stateless.params(RequestParams).annotations({
    identifier: "DiscoverRequestParams"
  })

  const DiscoverResult = Schema.Struct({
    resultType: Schema.Literal("complete"),
    _meta: Schema.optional(Stateless.ResultMeta),
    supportedVersions: Schema.Array(Schema.String),
    capabilities: serverCapabilities().ServerCapabilities,
    instructions: Schema.optional(Schema.String),
    ...Stateless.cacheFields
  }).annotations({ identifier: "DiscoverResult" })

  return {
    DiscoverRequestParams,
    DiscoverResult
  }
}

let built: ReturnType<typeof make> | undefined

/** The schemas of `Schema/Discovery.ts`, built on the first call. */
export const discovery = (): ReturnType<typeof make> => built ??= make()
