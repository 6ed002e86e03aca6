/**
 * The schemas of `Schema/Lifecycle.ts`, built when first asked for (`lifecycle()`), not when the
 * module is evaluated: a server of 2026-07-28 alone, which has no handshake, builds only what cancellation and progress use, when first used
 * (`Schema/Lifecycle.ts` re-exports them, built on its import).
 */
import * as Schema from "effect/Schema"
import {
  Implementation,
  metaField,
  NotificationParams,
  ProgressToken,
  RequestId,
  RequestParams
} from "../../Schema/Base.js"
import { ClientCapabilities, serverCapabilities } from "./capabilities.js"

const make = () => {
  const InitializeRequestParams = Schema.Struct({
    ...RequestParams.fields,
    protocolVersion: Schema.String,
    capabilities: ClientCapabilities,
    clientInfo: Implementation
  }).annotations({ identifier: "InitializeRequestParams" })

  const InitializeResult = Schema.Struct({
    ...metaField,
    protocolVersion: Schema.String,
    capabilities: serverCapabilities().ServerCapabilities,
    serverInfo: Implementation,
    instructions: Schema.optional(Schema.String)
  }).annotations({ identifier: "InitializeResult" })

  const InitializedNotificationParams = NotificationParams.annotations({
    identifier: "InitializedNotificationParams"
  })

  const PingRequestParams = RequestParams.annotations({ identifier: "PingRequestParams" })

  const CancelledNotificationParams = Schema.Struct({
    ...metaField,
    requestId: RequestId,
    reason: Schema.optional(Schema.String)
  }).annotations({ identifier: "CancelledNotificationParams" })

  const CancelledNotificationParams20251125 = Schema.Struct({
    ...metaField,
    requestId: Schema.optional(RequestId),
    reason: Schema.optional(Schema.String)
  }).annotations({ identifier: "CancelledNotificationParams" })

  const ProgressNotificationParams = Schema.Struct({
    ...metaField,
    progressToken: ProgressToken,
    progress: Schema.Finite,
    total: Schema.optional(Schema.Finite),
    message: Schema.optional(Schema.String)
  }).annotations({ identifier: "ProgressNotificationParams" })

  return {
    InitializeRequestParams,
    InitializeResult,
    InitializedNotificationParams,
    PingRequestParams,
    CancelledNotificationParams,
    CancelledNotificationParams20251125,
    ProgressNotificationParams
  }
}

let built: ReturnType<typeof make> | undefined

/** The schemas of `Schema/Lifecycle.ts`, built on the first call. */
export const lifecycle = (): ReturnType<typeof make> => built ??= make()
