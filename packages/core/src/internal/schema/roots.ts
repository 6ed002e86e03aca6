/**
 * The schemas of `Schema/Roots.ts`, built when first asked for (`roots()`), not when the
 * module is evaluated: a server that never asks for roots never builds them
 * (`Schema/Roots.ts` re-exports them, built on its import).
 */
import * as Schema from "effect/Schema"
import { metaField, NotificationParams, RequestParams, Uri } from "../../Schema/Base.js"

const make = () => {
  const Root = Schema.Struct({
    uri: Uri,
    name: Schema.optional(Schema.String),
    ...metaField
  }).annotations({ identifier: "Root" })

  const ListRootsRequestParams = RequestParams.annotations({ identifier: "ListRootsRequestParams" })

  const ListRootsResult = Schema.Struct({
    ...metaField,
    roots: Schema.Array(Root)
  }).annotations({ identifier: "ListRootsResult" })

  const RootsListChangedNotificationParams = NotificationParams.annotations({
    identifier: "RootsListChangedNotificationParams"
  })

  return {
    Root,
    ListRootsRequestParams,
    ListRootsResult,
    RootsListChangedNotificationParams
  }
}

let built: ReturnType<typeof make> | undefined

/** The schemas of `Schema/Roots.ts`, built on the first call. */
export const roots = (): ReturnType<typeof make> => built ??= make()
