/**
 * The schemas of `Schema/InputRequired.ts`, built when first asked for (`inputRequired()`), not when the module is
 * evaluated: a server that never uses the feature never builds them (`Schema/InputRequired.ts` re-exports
 * them, built on its import).
 */
import * as Schema from "effect/Schema"
import { metaField } from "../../Schema/Base.js"
import * as Stateless from "../../Schema/Stateless.js"
import { elicitation } from "./elicitation.js"
import { roots } from "./roots.js"
import { sampling } from "./sampling.js"

const make = () => {
  const { ElicitRequestParams, ElicitResult } = elicitation()
  const { CreateMessageRequestParams, CreateMessageResult } = sampling()
  const ElicitInputRequest = Schema.Struct({
    method: Schema.Literal("elicitation/create"),
    params: ElicitRequestParams
  }).annotations({ identifier: "ElicitRequest" })

  const CreateMessageInputRequest = Schema.Struct({
    method: Schema.Literal("sampling/createMessage"),
    params: CreateMessageRequestParams
  }).annotations({ identifier: "CreateMessageRequest" })

  const ListRootsInputRequest = Schema.Struct({
    method: Schema.Literal("roots/list"),
    params: Schema.optional(Schema.Struct(metaField))
  }).annotations({ identifier: "ListRootsRequest" })

  const InputRequest = Schema.Union(ElicitInputRequest, CreateMessageInputRequest, ListRootsInputRequest)
    .annotations({ identifier: "InputRequest" })

  const InputRequests = Schema.Record({ key: Schema.String, value: InputRequest }).annotations({
    identifier: "InputRequests"
  })

  const InputResponse = Schema.Union(ElicitResult, CreateMessageResult, roots().ListRootsResult).annotations({
    identifier: "InputResponse"
  })

  const InputResponses = Schema.Record({ key: Schema.String, value: InputResponse }).annotations({
    identifier: "InputResponses"
  })

  const InputRequiredResult = Schema.Struct({
    resultType: Schema.Literal("input_required"),
    inputRequests: Schema.optional(InputRequests),
    requestState: Schema.optional(Schema.String),
    _meta: Schema.optional(Stateless.ResultMeta)
  }).annotations({ identifier: "InputRequiredResult" })

  const inputResponseFields = {
    inputResponses: Schema.optional(InputResponses),
    requestState: Schema.optional(Schema.String)
  }
  return {
    ElicitInputRequest,
    CreateMessageInputRequest,
    ListRootsInputRequest,
    InputRequest,
    InputRequests,
    InputResponse,
    InputResponses,
    InputRequiredResult,
    inputResponseFields
  }
}

let built: ReturnType<typeof make> | undefined

/** The schemas of `Schema/InputRequired.ts`, built on the first call. */
export const inputRequired = (): ReturnType<typeof make> => built ??= make()
