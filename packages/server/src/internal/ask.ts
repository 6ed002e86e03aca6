/**
 * One `ask` for every era (sampling, elicitation, roots): what the client's capabilities must
 * declare, the params of the revision, and one codec path for the answer. Only how the ask reaches
 * the client and comes back differs, and that is the era's `Asker`: a real server→client request
 * (handshake), an input-required signal answered by a retry (2026-07-28), or the task store's input
 * requests answered by `tasks/update` (a task).
 */
import type { JsonRpc } from "@effect-mcp/core"
import { Capabilities, McpError, Method, Revision } from "@effect-mcp/core"
import * as FeatureSchemas from "@effect-mcp/core/FeatureSchemas"
import * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import type * as Option from "effect/Option"
import type * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import type * as McpRequest from "../McpRequest.js"
import * as McpSchema from "./mcpSchema.js"
import * as Shape from "./shape.js"

type ClientCapabilities = McpSchema.Capabilities.ClientCapabilities
type InputRequest = McpSchema.InputRequired.InputRequest
type Root = McpSchema.Roots.Root

/** One ask of a request, before it goes anywhere. */
export interface Ask {
  /** The handler's key for it (a 2026-07-28 input request's name; a handshake request has none). */
  readonly key: string
  /** The ask as a 2026-07-28 input request says it: what the client's capabilities are checked against. */
  readonly input: InputRequest
  /** The params a server→client request of the revision carries (its dated shape). */
  readonly params: unknown
  /** The capability named when the client did not declare it. */
  readonly capability: string
  readonly options: McpRequest.AskOptions | undefined
}

/** What the era made of an ask: the client's answer as it sent it, and where it came in. */
export interface Answer {
  readonly value: unknown
  /**
   * The key of the client's `inputResponses` it came under (a 2026-07-28 retry's, a task's
   * `tasks/update`): the params of a request of the client's. None: the result of a server→client
   * request (handshake).
   */
  readonly key: string | undefined
}

/**
 * Why an answer to an ask of `method` is refused (it does not decode), in every era: the params
 * of the client's request that carried it (`key`, its `inputResponses`) are invalid, -32602; a
 * server→client request's result (no key) leaves the handler unable to go on, -32603.
 */
export const invalidAnswer = (
  method: InputRequest["method"],
  key: string | undefined,
  detail: string
): McpError.InvalidParams | McpError.InternalError => {
  const message = `Invalid answer to ${method}${key === undefined ? "" : ` (inputResponses.${key})`}: ${detail}`
  return key === undefined ? new McpError.InternalError({ message }) : new McpError.InvalidParams({ message })
}

/** How an era carries an ask to the client and back. */
export interface Asker {
  /** The revision and capabilities the ask is checked against (a session's, read when it asks). */
  readonly client: Effect.Effect<{
    readonly revision: Revision.Revision
    readonly clientCapabilities: ClientCapabilities
  }>
  /** Carries the ask (already checked) to the client: its answer, or why there is none. */
  readonly carry: (ask: Ask) => Effect.Effect<Answer, McpRequest.ClientRequestError>
  /** How the era keeps the client's roots (a handshake session's cache): around the ask for them. */
  readonly roots?:
    | (<E>(ask: Effect.Effect<ReadonlyArray<Root>, E>) => Effect.Effect<ReadonlyArray<Root>, E>)
    | undefined
  /** 2026-07-28: the answer a retry carries under `key` (`McpRequest.inputResponse`). */
  readonly inputResponse?: ((key: string) => Option.Option<unknown>) | undefined
  /** 2026-07-28: the handler's own state of its previous round (`McpRequest.requestState`). */
  readonly requestState?: Option.Option<string> | undefined
  /**
   * What a task keeps of it once its request is answered, and the characters that takes; `shared`:
   * the capabilities the task's client has, shared with its client's other tasks (`TaskPart`).
   */
  readonly forTask?:
    | ((shared?: ClientCapabilities) => { readonly asker: Asker; readonly bytes: number })
    | undefined
  /**
   * A handshake session's carrier of a task's asks (checked already), on the stream of request
   * `related` (none: the session's own), after its request was answered.
   */
  readonly carryRelated?:
    | ((ask: Ask, related: JsonRpc.RequestId | undefined) => Effect.Effect<Answer, McpRequest.ClientRequestError>)
    | undefined
  /**
   * A handshake session's carrier of a task's asks (checked already) on the session's own stream,
   * only if the client listens there now (stdio: always; HTTP: its GET stream open): its answer, or
   * none (nothing was sent).
   */
  readonly carryLive?:
    | ((ask: Ask) => Effect.Effect<Option.Option<Answer>, McpRequest.ClientRequestError>)
    | undefined
}

type Decoder = (u: unknown) => Either.Either<unknown, ParseResult.ParseError>

/**
 * A decoder compiled on its first use: a server that never asks its client compiles none at startup
 * (nor builds the sampling and elicitation schemas).
 */
const compiledOnUse = (schema: () => Schema.Schema<any, any>): Decoder => {
  let compiled: Decoder | undefined
  return (u) => (compiled ??= McpSchema.Base.codec(schema(), "decode", McpSchema.Base.parseOptions))(u)
}

const decodeSampled = compiledOnUse(() => FeatureSchemas.sampling().CreateMessageResult)
const decodeElicited = compiledOnUse(() => FeatureSchemas.elicitation().ElicitResult)
const decodeRoots = compiledOnUse(() => FeatureSchemas.roots().ListRootsResult)

/**
 * How the answer to an ask of `method` is read in `revision`: a handshake revision's result as the
 * catalog says it, but never a `CreateTaskResult` (none where the revision has no such request),
 * a 2026-07-28 input response in its undated shape.
 */
export const decoderOf = (revision: Revision.Revision, method: InputRequest["method"]): Decoder | undefined => {
  const f = Revision.features(revision)
  if (f.serverRequests) return plainDecoderOf(revision, method)
  return f.inputRequired ? inputResponseDecoder(method) : undefined
}

/** The plain result decoders of the handshake revisions, by revision and method (compiled on first use). */
const plainDecoders = new Map<string, Decoder | undefined>()

/**
 * The result of a server→client request as the revision says it, without the `CreateTaskResult`
 * the catalog admits (2025-11-25): the server never sends its asks task-augmented, so a task is
 * never the answer to one.
 */
const plainDecoderOf = (revision: Revision.Revision, method: InputRequest["method"]): Decoder | undefined => {
  const at = `${revision} ${method}`
  if (plainDecoders.has(at)) return plainDecoders.get(at)
  const result = Method.lookup(revision, method)?.shape.result
  let decoder: Decoder | undefined = undefined
  if (result !== undefined) {
    const task = FeatureSchemas.tasks().CreateTaskResult.ast
    const members = SchemaAST.isUnion(result.ast) ? result.ast.types.filter((member) => member !== task) : [result.ast]
    const plain = Schema.make(members.length === 1 ? members[0] : SchemaAST.Union.make(members))
    decoder = McpSchema.Base.codec(plain, "decode", McpSchema.Base.parseOptions)
  }
  plainDecoders.set(at, decoder)
  return decoder
}

/** How a 2026-07-28 input response to an input request of `method` is read (its undated shape). */
export const inputResponseDecoder = (method: InputRequest["method"]): Decoder =>
  method === "sampling/createMessage" ? decodeSampled : method === "roots/list" ? decodeRoots : decodeElicited

/**
 * How the answer to `ask` is read, when the client's revision has the ask and its capabilities
 * declare it; a refusal otherwise (nothing is carried).
 */
const checked = (asker: Asker, ask: Ask): Effect.Effect<Decoder, McpError.MissingRequiredClientCapability> =>
  Effect.flatMap(asker.client, (client) => {
    const decode = decoderOf(client.revision, ask.input.method)
    return decode === undefined || !Capabilities.declares(client.clientCapabilities, ask.input, client.revision)
      ? Effect.fail(refusal(ask))
      : Effect.succeed(decode)
  })

/** An ask carried by the era's asker, once checked (see `checked`), its answer decoded. */
export const ask = <A>(asker: Asker, ask: Ask): Effect.Effect<A, McpRequest.ClientRequestError> =>
  Effect.flatMap(checked(asker, ask), (decode) =>
    Effect.flatMap(asker.carry(ask), (answer) => {
      const decoded = decode(answer.value)
      return decoded._tag === "Right"
        ? Effect.succeed(decoded.right as A)
        : Effect.fail(invalidAnswer(ask.input.method, answer.key, Method.describeError(decoded.left)))
    }))

/**
 * Carries an ask checked against another client too (a task's ask carried in the session of a
 * `tasks/result` that waits for it: that session's client must declare it as well).
 */
export const carryChecked = (asker: Asker, ask: Ask): Effect.Effect<Answer, McpRequest.ClientRequestError> =>
  Effect.flatMap(checked(asker, ask), () => asker.carry(ask))

const refusal = (ask: Ask) =>
  new McpError.MissingRequiredClientCapability({
    requiredCapabilities: Capabilities.required(ask.input),
    detail: `The client did not declare the ${ask.capability} capability`
  })

/** `McpRequest.sample`'s ask. */
export const sampling = (
  key: string,
  params: McpSchema.Sampling.CreateMessageRequestParams,
  options: McpRequest.AskOptions | undefined
): Ask => ({
  key,
  input: { method: "sampling/createMessage", params },
  params,
  capability: "sampling",
  options
})

/** `McpRequest.elicit`'s ask: in the revision's shape (no `mode` before URL elicitation). */
export const elicitation = (
  key: string,
  params: Parameters<McpRequest.Service["elicit"]>[1],
  features: Revision.Features,
  options: McpRequest.AskOptions | undefined
): Ask => ({
  key,
  input: { method: "elicitation/create", params: Shape.elicitInput(params) },
  params: Shape.elicitRequest(params, features),
  capability: params.mode === "url" ? "elicitation.url" : "elicitation",
  options
})

/** `McpRequest.roots`'s ask. */
export const roots = (key: string, options: McpRequest.AskOptions | undefined): Ask => ({
  key,
  input: { method: "roots/list" },
  params: {},
  capability: "roots",
  options
})
