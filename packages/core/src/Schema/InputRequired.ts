/**
 * Multi-round-trip requests (2026-07-28, MRTR). Instead of sending JSON-RPC requests to
 * the client, a server answers `tools/call`, `prompts/get` or `resources/read` with an
 * {@link InputRequiredResult}: the input it needs ({@link InputRequests}) and/or an
 * opaque `requestState`. The client fulfils the input requests and retries the original
 * request with a new id, adding `inputResponses` and the echoed `requestState`
 * ({@link withInputResponses}).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

import { inputRequired } from "../internal/schema/inputRequired.js"

const built = inputRequired()

/**
 * An elicitation input request (form or URL).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ElicitInputRequest = built.ElicitInputRequest

/**
 * @since 0.1.0
 * @category models
 */
export type ElicitInputRequest = typeof ElicitInputRequest.Type

/**
 * A sampling input request.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CreateMessageInputRequest = built.CreateMessageInputRequest

/**
 * @since 0.1.0
 * @category models
 */
export type CreateMessageInputRequest = typeof CreateMessageInputRequest.Type

/**
 * A roots input request.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ListRootsInputRequest = built.ListRootsInputRequest

/**
 * @since 0.1.0
 * @category models
 */
export type ListRootsInputRequest = typeof ListRootsInputRequest.Type

/**
 * A request the server needs the client to fulfil: a bare `{ method, params }` (no
 * `jsonrpc`, no `id`). Each kind needs the matching capability in the request's
 * `clientCapabilities` (`elicitation.form` / `elicitation.url`, `sampling`, `roots`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const InputRequest = built.InputRequest

/**
 * @since 0.1.0
 * @category models
 */
export type InputRequest = typeof InputRequest.Type

/**
 * Input requests by server-chosen key (unique within the request; within the task's
 * lifetime for the tasks extension).
 *
 * @since 0.1.0
 * @category schemas
 */
export const InputRequests = built.InputRequests

/**
 * @since 0.1.0
 * @category models
 */
export type InputRequests = typeof InputRequests.Type

/**
 * The client's answer to one input request (no `resultType`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const InputResponse = built.InputResponse

/**
 * @since 0.1.0
 * @category models
 */
export type InputResponse = typeof InputResponse.Type

/**
 * Input responses, keyed like the input requests they answer.
 *
 * @since 0.1.0
 * @category schemas
 */
export const InputResponses = built.InputResponses

/**
 * @since 0.1.0
 * @category models
 */
export type InputResponses = typeof InputResponses.Type

/**
 * The interim result asking for input. At least one of `inputRequests` and
 * `requestState` must be present (not checked by the schema). Never cached.
 *
 * @since 0.1.0
 * @category schemas
 */
export const InputRequiredResult = built.InputRequiredResult

/**
 * @since 0.1.0
 * @category models
 */
export type InputRequiredResult = typeof InputRequiredResult.Type

/**
 * The fields of a retry, for spreading into a struct's fields: `inputResponses` and the
 * echoed `requestState`, both at the top level of params.
 *
 * @since 0.1.0
 * @category fields
 */
export const inputResponseFields = built.inputResponseFields

/**
 * A params struct that may carry a retry's `inputResponses` and `requestState`.
 *
 * @since 0.1.0
 * @category combinators
 */
export const withInputResponses = <Fields extends Schema.Struct.Fields>(
  struct: Schema.Struct<Fields>
): Schema.Struct<Omit<Fields, keyof typeof inputResponseFields> & typeof inputResponseFields> =>
  Schema.Struct({ ...struct.fields, ...inputResponseFields }) as any
