/**
 * The demo server. It has every fixture the MCP conformance suite calls, for both requirement
 * sets: the handshake era's (2025-11-25: tools, resources, a template, prompts and a completion,
 * with the reference texts, asks to the client as server→client requests) and the stateless
 * era's (2026-07-28: multi-round-trip tools and a prompt and a resource answering
 * `input_required`, a tool refused for a capability the request did not declare, a tool whose
 * argument is mirrored in an `Mcp-Param-Region` header, list-change triggers). It serves both
 * eras at once by default (dual). Besides, tools for benchmarks and interop tests: `about`,
 * `add`, `echo`, `longRunning`, live edits (`editTools`), resource updates
 * (`updateWatchedResource`) and roots (`listRoots`), an MCP Apps view (`ui://everything/counter`,
 * shown by `show_counter`, calling the app-only `counter_increment`: see `Counter.ts`); with
 * authorization on (`Options.auth`), `whoami` (who holds the access token) and `admin_echo` (a tool
 * that needs the scope `mcp:admin`).
 *
 * @since 0.1.0
 */
import type { Revision } from "@effect-mcp/core"
import { McpError, Schema as McpSchema } from "@effect-mcp/core"
import { McpRequest, McpServer, McpTask, Prompt, Resource, StatelessServer, Tool } from "@effect-mcp/server"
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as Counter from "./Counter.js"

const Form = McpSchema.Elicitation
type Content = McpSchema.Content.ContentBlock
type PromptMessage = McpSchema.Prompt.PromptMessage

/**
 * A 1×1 PNG, base64.
 *
 * @since 0.1.0
 * @category constants
 */
export const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="

/**
 * A minimal WAV file, base64.
 *
 * @since 0.1.0
 * @category constants
 */
export const WAV = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="

const image: Content = { type: "image", data: PNG, mimeType: "image/png" }

/** A failed ask to the client, as the text of an `isError` result. */
const askFailed = (what: string) => (error: McpRequest.ClientRequestError): string =>
  `${what} not supported or failed: ${error.message}`

const elicited = (prefix: string) => (result: McpSchema.Elicitation.ElicitResult): string =>
  `${prefix}: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`

// ---------------------------------------------------------------------------- state

/**
 * The version of `test://watched-resource`, bumped by `updateWatchedResource`.
 *
 * @since 0.1.0
 * @category services
 */
export class Watched extends Context.Tag("@effect-mcp/everything/Watched")<Watched, Ref.Ref<number>>() {
  /**
   * @since 0.1.0
   */
  static readonly layer: Layer.Layer<Watched> = Layer.effect(Watched, Ref.make(0))
}

/**
 * @since 0.1.0
 * @category constants
 */
export const watchedUri = "test://watched-resource"

// ---------------------------------------------------------------------------- conformance tools

/**
 * @since 0.1.0
 * @category tools
 */
export const SimpleText = Tool.make(
  "test_simple_text",
  { description: "Tests simple text content response" },
  () => Effect.succeed("This is a simple text response for testing.")
)

/**
 * @since 0.1.0
 * @category tools
 */
export const ImageContent = Tool.make(
  "test_image_content",
  { description: "Tests image content response" },
  () => Effect.succeed([image])
)

/**
 * @since 0.1.0
 * @category tools
 */
export const AudioContent = Tool.make(
  "test_audio_content",
  { description: "Tests audio content response" },
  () => Effect.succeed<ReadonlyArray<Content>>([{ type: "audio", data: WAV, mimeType: "audio/wav" }])
)

/**
 * @since 0.1.0
 * @category tools
 */
export const EmbeddedResource = Tool.make(
  "test_embedded_resource",
  { description: "Tests embedded resource content response" },
  () =>
    Effect.succeed<ReadonlyArray<Content>>([{
      type: "resource",
      resource: {
        uri: "test://embedded-resource",
        mimeType: "text/plain",
        text: "This is an embedded resource content."
      }
    }])
)

/**
 * @since 0.1.0
 * @category tools
 */
export const MultipleContentTypes = Tool.make(
  "test_multiple_content_types",
  { description: "Tests response with multiple content types (text, image, resource)" },
  () =>
    Effect.succeed<ReadonlyArray<Content>>([
      { type: "text", text: "Multiple content types test:" },
      image,
      {
        type: "resource",
        resource: {
          uri: "test://mixed-content-resource",
          mimeType: "application/json",
          text: JSON.stringify({ test: "data", value: 123 })
        }
      }
    ])
)

/**
 * Three `info` logs, 50 milliseconds apart.
 *
 * @since 0.1.0
 * @category tools
 */
export const WithLogging = Tool.make(
  "test_tool_with_logging",
  { description: "Tests tool that emits log messages during execution" },
  () =>
    Effect.gen(function*() {
      yield* McpRequest.log("info", "Tool execution started")
      yield* Effect.sleep("50 millis")
      yield* McpRequest.log("info", "Tool processing data")
      yield* Effect.sleep("50 millis")
      yield* McpRequest.log("info", "Tool execution completed")
      return "Tool with logging executed successfully"
    })
)

/**
 * A typed failure, answered as an `isError` result (not a JSON-RPC error).
 *
 * @since 0.1.0
 * @category tools
 */
export const ErrorHandling = Tool.make(
  "test_error_handling",
  { description: "Tests error response handling", failure: Schema.String },
  () => Effect.fail("This tool intentionally returns an error for testing")
)

/**
 * Progress 0, 50 and 100 of 100, 50 milliseconds apart.
 *
 * @since 0.1.0
 * @category tools
 */
export const WithProgress = Tool.make(
  "test_tool_with_progress",
  { description: "Tests tool that reports progress notifications" },
  () =>
    Effect.gen(function*() {
      for (const step of [0, 50, 100]) {
        if (step > 0) yield* Effect.sleep("50 millis")
        yield* McpRequest.progress(step, 100, `Completed step ${step} of 100`)
      }
      const request = yield* McpRequest.McpRequest
      return Option.match(request.progressToken, {
        onNone: () => "Progress test completed (no progress token was sent)",
        onSome: (token) => `Progress test completed (progress token ${JSON.stringify(token)})`
      })
    })
)

const textOf = (content: McpSchema.Sampling.CreateMessageResult["content"]): string => {
  const blocks: ReadonlyArray<McpSchema.Sampling.SamplingMessageContentBlock> = Array.isArray(content)
    ? content
    : [content as McpSchema.Sampling.SamplingMessageContentBlock]
  return blocks.map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join("")
}

/**
 * Asks the client to sample an LLM (`sampling/createMessage`).
 *
 * @since 0.1.0
 * @category tools
 */
export const Sampling = Tool.make("test_sampling", {
  description: "Tests server-initiated sampling (LLM completion request)",
  parameters: Schema.Struct({ prompt: Schema.String.annotations({ description: "The prompt to send to the LLM" }) }),
  failure: Schema.String
}, ({ prompt }) =>
  McpRequest.sample("sample", {
    messages: [{ role: "user", content: { type: "text", text: prompt } }],
    maxTokens: 100
  }).pipe(
    Effect.map((result) => `LLM response: ${textOf(result.content)}`),
    Effect.mapError(askFailed("Sampling"))
  ))

/**
 * Asks the user for a username and an email (`elicitation/create`).
 *
 * @since 0.1.0
 * @category tools
 */
export const Elicitation = Tool.make("test_elicitation", {
  description: "Tests server-initiated elicitation (user input request)",
  parameters: Schema.Struct({ message: Schema.String.annotations({ description: "The message to show the user" }) }),
  failure: Schema.String
}, ({ message }) =>
  McpRequest.elicit(
    "user",
    Form.form(message, {
      properties: {
        username: Form.string({ description: "User's response" }),
        email: Form.string({ description: "User's email address" })
      },
      required: ["username", "email"]
    })
  ).pipe(Effect.map(elicited("User response")), Effect.mapError(askFailed("Elicitation"))))

/**
 * A form whose fields of every primitive type have defaults (SEP-1034).
 *
 * @since 0.1.0
 * @category tools
 */
export const ElicitationDefaults = Tool.make("test_elicitation_sep1034_defaults", {
  description: "Tests elicitation with default values per SEP-1034",
  failure: Schema.String
}, () =>
  McpRequest.elicit(
    "defaults",
    Form.form("Please review and update the form fields with defaults", {
      properties: {
        name: Form.string({ description: "User name", default: "John Doe" }),
        age: Form.integer({ description: "User age", default: 30 }),
        score: Form.number({ description: "User score", default: 95.5 }),
        status: Form.enumOf(["active", "inactive", "pending"], { description: "User status", default: "active" }),
        verified: Form.boolean({ description: "Verification status", default: true })
      },
      required: []
    })
  ).pipe(Effect.map(elicited("Elicitation completed")), Effect.mapError(askFailed("Elicitation"))))

/**
 * A form with the five enum shapes of SEP-1330.
 *
 * @since 0.1.0
 * @category tools
 */
export const ElicitationEnums = Tool.make("test_elicitation_sep1330_enums", {
  description: "Tests elicitation with enum schema improvements per SEP-1330",
  failure: Schema.String
}, () =>
  McpRequest.elicit(
    "enums",
    Form.form("Please select options from the enum fields", {
      properties: {
        untitledSingle: Form.enumOf(["option1", "option2", "option3"], { description: "Select one option" }),
        titledSingle: Form.titledEnum([
          { const: "value1", title: "First Option" },
          { const: "value2", title: "Second Option" },
          { const: "value3", title: "Third Option" }
        ], { description: "Select one option with titles" }),
        // The deprecated `enumNames` form has no constructor.
        legacyEnum: {
          type: "string",
          description: "Select one option (legacy)",
          enum: ["opt1", "opt2", "opt3"],
          enumNames: ["Option One", "Option Two", "Option Three"]
        },
        untitledMulti: Form.multiSelect(["option1", "option2", "option3"], {
          description: "Select multiple options",
          minItems: 1,
          maxItems: 3
        }),
        titledMulti: Form.titledMultiSelect([
          { const: "value1", title: "First Choice" },
          { const: "value2", title: "Second Choice" },
          { const: "value3", title: "Third Choice" }
        ], { description: "Select multiple options with titles", minItems: 1, maxItems: 3 })
      },
      required: []
    })
  ).pipe(Effect.map(elicited("Elicitation completed")), Effect.mapError(askFailed("Elicitation"))))

/**
 * The `inputSchema` of `json_schema_2020_12_tool`, published verbatim.
 *
 * @since 0.1.0
 * @category constants
 */
export const jsonSchema2020_12: McpSchema.Tool.ToolInputSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: {
    address: {
      $anchor: "addressDef",
      type: "object",
      properties: { street: { type: "string" }, city: { type: "string" } }
    }
  },
  properties: {
    name: { type: "string" },
    address: { $ref: "#/$defs/address" },
    contactMethod: { type: "string", enum: ["phone", "email"] },
    phone: { type: "string" },
    email: { type: "string" }
  },
  allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
  if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
  then: { required: ["phone"] },
  else: { required: ["email"] },
  additionalProperties: false
}

/**
 * A raw JSON Schema 2020-12 `inputSchema` (SEP-1613), the arguments decoded by an Effect Schema.
 *
 * @since 0.1.0
 * @category tools
 */
export const JsonSchema2020_12 = Tool.make("json_schema_2020_12_tool", {
  description: "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)",
  inputSchema: jsonSchema2020_12,
  parameters: Schema.Struct({
    name: Schema.optional(Schema.String),
    address: Schema.optional(
      Schema.Struct({ street: Schema.optional(Schema.String), city: Schema.optional(Schema.String) })
    ),
    contactMethod: Schema.optional(Schema.Literal("phone", "email")),
    phone: Schema.optional(Schema.String),
    email: Schema.optional(Schema.String)
  })
}, (args) => Effect.succeed(`JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`))

/**
 * SSE polling (SEP-1699, 2025-11-25): over Streamable HTTP the server ends this request's
 * stream mid-call with a `retry` hint; the client reconnects with `Last-Event-ID` and gets
 * the result from the event store. Over other transports it simply answers.
 *
 * @since 0.1.0
 * @category tools
 */
export const Reconnection = Tool.make(
  "test_reconnection",
  { description: "Tests SSE stream disconnection and client reconnection (SEP-1699)" },
  () =>
    Effect.gen(function*() {
      const request = yield* McpRequest.McpRequest
      yield* request.closeSseStream
      yield* Effect.sleep("100 millis")
      return "Reconnection test completed successfully."
    })
)

// ---------------------------------------------------------------------------- 2026-07-28 fixtures

/**
 * How the fixtures of the stateless suite answer a failed ask, in both eras: a capability the
 * request does not declare is the protocol error -32021 (2026-07-28 requires it), a malformed
 * answer in `inputResponses` stays the -32602 it is, a timeout or a closed connection (handshake
 * sessions only) is a -32603. (The input-required signal of a stateless first round is no
 * failure: it passes through untouched.)
 */
const refused = (error: McpRequest.ClientRequestError): McpError.McpError =>
  McpError.isMcpError(error) ? error : new McpError.InternalError({ message: error.message })

/** A field of an accepted form, as text; undefined when the user declined, cancelled or left it out. */
const field = (answer: McpSchema.Elicitation.ElicitResult, name: string): string | undefined => {
  const value = answer.action === "accept" ? answer.content?.[name] : undefined
  return value === undefined ? undefined : String(value)
}

const oneField = (message: string, name: string) =>
  Form.form(message, { properties: { [name]: Form.string() }, required: [name] })

const text = (prompt: string, maxTokens: number): McpSchema.Sampling.CreateMessageRequestParams => ({
  messages: [{ role: "user", content: { type: "text", text: prompt } }],
  maxTokens
})

const describeRoots = (roots: ReadonlyArray<McpSchema.Roots.Root>): string =>
  roots.length === 0
    ? "the client has no roots"
    : roots.map(({ name, uri }) => (name === undefined ? uri : `${uri} (${name})`)).join(", ")

/**
 * Asks the user's name under the key `user_name`: in 2026-07-28 the first call answers
 * `input_required`, the retry carrying the answer completes with `Hello, <name>!`; in a
 * handshake session it is an `elicitation/create` request to the client. A retry whose
 * `inputResponses` lack `user_name` is asked again; other keys are ignored.
 *
 * @since 0.1.0
 * @category tools
 */
export const InputRequiredElicitation = Tool.make("test_input_required_result_elicitation", {
  description: "Asks the user's name (input request user_name), then greets them (SEP-2322)"
}, () =>
  McpRequest.elicit("user_name", oneField("What is your name?", "name")).pipe(
    Effect.map((answer) => {
      const name = field(answer, "name")
      return name === undefined ? `No name given (action=${answer.action})` : `Hello, ${name}!`
    }),
    Effect.mapError(refused)
  ))

/**
 * Asks the client's LLM for the capital of France under the key `capital_question`.
 *
 * @since 0.1.0
 * @category tools
 */
export const InputRequiredSampling = Tool.make("test_input_required_result_sampling", {
  description: "Asks the client's LLM a question (input request capital_question), then returns its answer (SEP-2322)"
}, () =>
  McpRequest.sample("capital_question", text("What is the capital of France?", 100)).pipe(
    Effect.map((result) => `LLM response: ${textOf(result.content)}`),
    Effect.mapError(refused)
  ))

/**
 * Asks for the client's roots under the key `client_roots`.
 *
 * @since 0.1.0
 * @category tools
 */
export const InputRequiredListRoots = Tool.make("test_input_required_result_list_roots", {
  description: "Asks for the client's roots (input request client_roots), then lists them (SEP-2322)"
}, () =>
  McpRequest.roots("client_roots").pipe(
    Effect.map((roots) => `Client roots: ${describeRoots(roots)}`),
    Effect.mapError(refused)
  ))

const confirmForm = Form.form("Please confirm", { properties: { ok: Form.boolean() }, required: ["ok"] })

/** The handler's own `requestState` of `test_input_required_result_request_state` (sealed by the library). */
const awaitingConfirmation = "awaiting-confirmation/v1"

const decodeElicited = McpSchema.Base.codec(McpSchema.Elicitation.ElicitResult, "decode", McpSchema.Base.parseOptions)

/** An answer read with the low-level API is as the client sent it: checked here. */
const elicitedAnswer = (
  key: string,
  raw: unknown
): Effect.Effect<McpSchema.Elicitation.ElicitResult, McpError.InvalidParams> => {
  const decoded = decodeElicited(raw)
  return decoded._tag === "Right"
    ? Effect.succeed(decoded.right as McpSchema.Elicitation.ElicitResult)
    : Effect.fail(
      new McpError.InvalidParams({
        message: `Invalid answer to elicitation/create (inputResponses.${key}): not an elicitation result`
      })
    )
}

const confirmation = (answer: McpSchema.Elicitation.ElicitResult): string =>
  answer.action === "accept" ? `confirmed=${answer.content?.ok === true}` : `not confirmed (action=${answer.action})`

/**
 * The low-level side of a multi-round-trip request: the first round is
 * `McpServer.inputRequired` with an input request under the key `confirm` and the handler's own
 * `requestState`; the retry reads the answer (`McpRequest.inputResponse`) and the state
 * (`McpRequest.requestState`), checks both, and completes with a text holding `state-ok`. A retry
 * without the answer or the state is asked again. In a handshake session there are no retries:
 * the ask is an `elicitation/create` request.
 *
 * @since 0.1.0
 * @category tools
 */
export const InputRequiredRequestState = Tool.make("test_input_required_result_request_state", {
  description: "Asks for a confirmation with its own requestState, checked on the retry (SEP-2322, low-level API)"
}, () =>
  Effect.gen(function*() {
    const request = yield* McpRequest.McpRequest
    if (request.era === "handshake") {
      const answer = yield* Effect.mapError(request.elicit("confirm", confirmForm), refused)
      return `state-ok: ${confirmation(answer)} (a handshake session needs no requestState)`
    }
    const raw = request.inputResponse("confirm")
    const state = request.requestState
    if (Option.isNone(raw) || Option.isNone(state)) {
      return yield* McpServer.inputRequired({
        inputRequests: { confirm: McpServer.elicitForm(confirmForm) },
        requestState: awaitingConfirmation
      })
    }
    if (state.value !== awaitingConfirmation) {
      return yield* new McpError.InvalidParams({ message: "Invalid requestState: not a state this tool issued" })
    }
    const answer = yield* elicitedAnswer("confirm", raw.value)
    return `state-ok: ${confirmation(answer)}`
  }))

/**
 * Three asks of different kinds at once (`user_name`, `greeting`, `client_roots`): one
 * `input_required` result carries them all.
 *
 * @since 0.1.0
 * @category tools
 */
export const InputRequiredMultipleInputs = Tool.make("test_input_required_result_multiple_inputs", {
  description: "Asks for a name, an LLM greeting and the client's roots at once (SEP-2322)"
}, () =>
  Effect.all([
    McpRequest.elicit("user_name", oneField("What is your name?", "name")),
    McpRequest.sample("greeting", text("Generate a greeting", 50)),
    McpRequest.roots("client_roots")
  ], { concurrency: "unbounded" }).pipe(
    Effect.map(([answer, greeting, roots]) =>
      `${textOf(greeting.content)} ${field(answer, "name") ?? "stranger"}; ${describeRoots(roots)}`
    ),
    Effect.mapError(refused)
  ))

/**
 * Two asks one after the other (`step1`, then `step2`): two `input_required` rounds, the first
 * answer riding in the second round's `requestState`, then the result.
 *
 * @since 0.1.0
 * @category tools
 */
export const InputRequiredMultiRound = Tool.make("test_input_required_result_multi_round", {
  description: "Asks for a name, then a favorite color, in two rounds (SEP-2322)"
}, () =>
  Effect.gen(function*() {
    const step1 = yield* McpRequest.elicit("step1", oneField("Step 1: What is your name?", "name"))
    const step2 = yield* McpRequest.elicit("step2", oneField("Step 2: What is your favorite color?", "color"))
    return `${field(step1, "name") ?? "Someone"}'s favorite color is ${field(step2, "color") ?? "a secret"}`
  }).pipe(Effect.mapError(refused)))

/**
 * A confirmation (key `confirm`) whose `requestState` is sealed (HMAC-SHA256, bound to the
 * request, expiring): a retry with a changed state is refused with -32602.
 *
 * @since 0.1.0
 * @category tools
 */
export const InputRequiredTamperedState = Tool.make("test_input_required_result_tampered_state", {
  description: "Asks for a confirmation; its requestState is integrity-protected, a tampered one is refused (SEP-2322)"
}, () => McpRequest.elicit("confirm", confirmForm).pipe(Effect.map(confirmation), Effect.mapError(refused)))

/**
 * Asks only what the request's client capabilities allow: a form if it declares elicitation
 * (form mode), a completion if sampling, the roots if roots; nothing to ask, it completes at once.
 *
 * @since 0.1.0
 * @category tools
 */
export const InputRequiredCapabilities = Tool.make("test_input_required_result_capabilities", {
  description: "Asks for the inputs the request's client capabilities declare, and no other (SEP-2322)"
}, () =>
  Effect.gen(function*() {
    const { clientCapabilities: declared } = yield* McpRequest.McpRequest
    const asks: Array<Effect.Effect<string, McpRequest.ClientRequestError, McpRequest.McpRequest>> = []
    const elicitation = declared.elicitation
    if (elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined)) {
      asks.push(Effect.map(
        McpRequest.elicit("user_name", oneField("What is your name?", "name")),
        (answer) => `name: ${field(answer, "name") ?? "not given"}`
      ))
    }
    if (declared.sampling !== undefined) {
      asks.push(Effect.map(
        McpRequest.sample("greeting", text("Generate a greeting", 50)),
        (result) => `greeting: ${textOf(result.content)}`
      ))
    }
    if (declared.roots !== undefined) {
      asks.push(Effect.map(McpRequest.roots("client_roots"), (roots) => `roots: ${describeRoots(roots)}`))
    }
    if (
      asks.length === 0
    ) return "The request declares no input capability (elicitation, sampling, roots): nothing to ask"
    return (yield* Effect.mapError(Effect.all(asks, { concurrency: "unbounded" }), refused)).join("; ")
  }))

/**
 * Needs sampling: a request that does not declare it is refused with -32021, whose
 * `data.requiredCapabilities` is `{ sampling: {} }`.
 *
 * @since 0.1.0
 * @category tools
 */
export const MissingCapability = Tool.make("test_missing_capability", {
  description: "Needs the client's sampling capability: without it the request is refused with -32021 (SEP-2575)"
}, () =>
  McpRequest.sample("completion", text("Say hello", 20)).pipe(
    Effect.map((result) => `LLM response: ${textOf(result.content)}`),
    Effect.mapError(refused)
  ))

/**
 * An elicitation over 2026-07-28 Streamable HTTP: the response stream carries the
 * `input_required` result and never a JSON-RPC request.
 *
 * @since 0.1.0
 * @category tools
 */
export const StreamingElicitation = Tool.make("test_streaming_elicitation", {
  description: "Asks the user's name: in 2026-07-28 an input_required result, never a request on the stream"
}, () =>
  McpRequest.elicit("name", oneField("What is your name?", "name")).pipe(
    Effect.map((answer) => `Streaming elicitation: action=${answer.action}, name=${field(answer, "name") ?? "none"}`),
    Effect.mapError(refused)
  ))

/**
 * Logs at `info`: in 2026-07-28 the logs reach only a request whose `_meta` asks for them
 * (`io.modelcontextprotocol/logLevel`).
 *
 * @since 0.1.0
 * @category tools
 */
export const LoggingTool = Tool.make(
  "test_logging_tool",
  { description: "Logs two info lines; they are sent only to a request whose _meta sets a logLevel" },
  () =>
    Effect.gen(function*() {
      yield* McpRequest.log("info", "Logging tool started")
      yield* McpRequest.log("info", "Logging tool finished")
      return "Logging tool completed"
    })
)

/**
 * A string argument mirrored in the HTTP header `Mcp-Param-Region` (`x-mcp-header`, SEP-2243):
 * the transport checks that the header and the body agree.
 *
 * @since 0.1.0
 * @category tools
 */
export const CustomHeader = Tool.make("test_custom_header", {
  description: "Its region argument travels in the Mcp-Param-Region header too (x-mcp-header, SEP-2243)",
  parameters: Schema.Struct({
    region: Schema.String.annotations({
      description: "A region, mirrored in the Mcp-Param-Region header",
      jsonSchema: { "x-mcp-header": "Region" }
    })
  })
}, ({ region }) => Effect.succeed(`Region: ${region}`))

// ---------------------------------------------------------------------------- other tools

/**
 * What this server is and which revisions it serves. It takes no arguments and sorts first in
 * `tools/list`: the http-header-validation scenario calls the first tool with `{}`.
 *
 * @since 0.1.0
 * @category tools
 */
export const About = Tool.make("about", {
  description: "Describes this server: the revisions it serves, the one this request speaks"
}, () =>
  Effect.gen(function*() {
    const server = yield* McpServer.McpServer
    const request = yield* McpRequest.McpRequest
    return `${serverInfo.title ?? serverInfo.name} ${serverInfo.version} serves ${server.revisions.join(", ")}; ` +
      `this request speaks ${request.revision} (the ${request.era} era). ${instructions}`
  }))

/**
 * Adds two numbers; the sum is also `structuredContent`.
 *
 * @since 0.1.0
 * @category tools
 */
export const Add = Tool.make("add", {
  description: "Adds two numbers",
  parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
  success: Schema.Struct({ sum: Schema.Number }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false }
}, ({ a, b }) => Effect.succeed({ sum: a + b }))

/**
 * @since 0.1.0
 * @category tools
 */
export const Echo = Tool.make("echo", {
  description: "Echoes the message back",
  parameters: Schema.Struct({ message: Schema.String.annotations({ description: "The message to echo" }) })
}, ({ message }) => Effect.succeed(`Echo: ${message}`))

/**
 * Reports progress in `steps` steps over `duration` seconds; cancel it with
 * `notifications/cancelled`.
 *
 * @since 0.1.0
 * @category tools
 */
export const LongRunning = Tool.make("longRunning", {
  description: "A long-running operation that reports progress and can be cancelled",
  parameters: Schema.Struct({
    duration: Schema.optionalWith(
      Schema.Number.pipe(Schema.nonNegative()).annotations({
        title: "duration",
        description: "Duration of the operation in seconds"
      }),
      { default: () => 10 }
    ),
    steps: Schema.optionalWith(
      Schema.Number.pipe(Schema.int(), Schema.between(1, 1000)).annotations({
        title: "steps",
        description: "Number of steps"
      }),
      { default: () => 5 }
    )
  })
}, ({ duration, steps }) =>
  Effect.gen(function*() {
    for (let step = 1; step <= steps; step++) {
      yield* Effect.sleep(`${(duration * 1000) / steps} millis`)
      yield* McpRequest.progress(step, steps, `Step ${step} of ${steps}`)
    }
    return `Long running operation completed: ${steps} steps in ${duration} seconds`
  }))

/**
 * The tool `editTools` adds and removes.
 *
 * @since 0.1.0
 * @category tools
 */
export const Dynamic = Tool.make(
  "dynamic",
  { description: "A tool added at runtime by editTools" },
  () => Effect.succeed("This tool was added at runtime.")
)

/**
 * Adds or removes the tool `dynamic` while the server runs: sessions get
 * `notifications/tools/list_changed`.
 *
 * @since 0.1.0
 * @category tools
 */
export const EditTools = Tool.make("editTools", {
  description: "Adds or removes the tool `dynamic` at runtime (notifications/tools/list_changed)",
  parameters: Schema.Struct({ action: Schema.Literal("add", "remove") })
}, ({ action }) =>
  Effect.gen(function*() {
    const server = yield* McpServer.McpServer
    if (action === "add") {
      yield* server.addTool(Dynamic)
      return "Added the tool dynamic"
    }
    return (yield* server.removeTool("dynamic")) ? "Removed the tool dynamic" : "There was no tool dynamic"
  }))

/**
 * Changes `test://watched-resource`: subscribed sessions get `notifications/resources/updated`.
 *
 * @since 0.1.0
 * @category tools
 */
export const UpdateWatchedResource = Tool.make(
  "updateWatchedResource",
  { description: `Changes ${watchedUri} (notifications/resources/updated to subscribers)` },
  () =>
    Effect.gen(function*() {
      const version = yield* Ref.updateAndGet(yield* Watched, (n) => n + 1)
      yield* (yield* McpServer.McpServer).resourceUpdated(watchedUri)
      return `${watchedUri} is now at version ${version}`
    })
)

/**
 * Adds the tool `dynamic`, or removes it when present: `tools/list` changes
 * (`notifications/tools/list_changed` to handshake sessions and to 2026-07-28 listeners).
 *
 * @since 0.1.0
 * @category tools
 */
export const TriggerToolChange = Tool.make(
  "test_trigger_tool_change",
  { description: "Adds the tool dynamic, or removes it when present (tools/list changes)" },
  () =>
    Effect.gen(function*() {
      const server = yield* McpServer.McpServer
      if (yield* server.removeTool(Dynamic.name)) return "Removed the tool dynamic"
      yield* server.addTool(Dynamic)
      return "Added the tool dynamic"
    })
)

/**
 * The prompt `test_trigger_prompt_change` adds and removes.
 *
 * @since 0.1.0
 * @category prompts
 */
export const DynamicPrompt = Prompt.make(
  "dynamic_prompt",
  { description: "A prompt added at runtime by test_trigger_prompt_change" },
  () => Effect.succeed("This prompt was added at runtime.")
)

/**
 * Adds the prompt `dynamic_prompt`, or removes it when present: `prompts/list` changes.
 *
 * @since 0.1.0
 * @category tools
 */
export const TriggerPromptChange = Tool.make(
  "test_trigger_prompt_change",
  { description: "Adds the prompt dynamic_prompt, or removes it when present (prompts/list changes)" },
  () =>
    Effect.gen(function*() {
      const server = yield* McpServer.McpServer
      if (yield* server.removePrompt(DynamicPrompt.name)) return "Removed the prompt dynamic_prompt"
      yield* server.addPrompt(DynamicPrompt)
      return "Added the prompt dynamic_prompt"
    })
)

/**
 * The client's roots (`roots/list`).
 *
 * @since 0.1.0
 * @category tools
 */
export const ListRoots = Tool.make("listRoots", {
  description: "Lists the client's roots (roots/list)",
  success: Schema.Struct({
    roots: Schema.Array(Schema.Struct({ uri: Schema.String, name: Schema.optional(Schema.String) }))
  }),
  failure: Schema.String
}, () =>
  McpRequest.roots().pipe(
    Effect.map((roots) => ({ roots: roots.map(({ name, uri }) => (name === undefined ? { uri } : { uri, name })) })),
    Effect.mapError(askFailed("roots/list"))
  ))

// ---------------------------------------------------------------------------- authorization

/**
 * The scope `admin_echo` needs.
 *
 * @since 0.1.0
 * @category constants
 */
export const adminScope = "mcp:admin"

/**
 * Who holds the request's access token, as `McpRequest.auth` says: the token's subject, the
 * client it was issued to (null when the token names none) and its scopes, as structured content.
 * Served only with authorization on; without a token it answers an `isError` result.
 *
 * @since 0.1.0
 * @category tools
 */
export const Whoami = Tool.make("whoami", {
  description: "Who holds this request's access token: its subject, its client and its scopes",
  success: Schema.Struct({
    subject: Schema.String,
    clientId: Schema.NullOr(Schema.String),
    scopes: Schema.Array(Schema.String)
  }),
  failure: Schema.String,
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false }
}, () =>
  Effect.flatMap(McpRequest.auth, (auth) =>
    Option.match(auth, {
      onNone: () => Effect.fail("This request carries no access token: the server runs without authorization"),
      onSome: (holder) =>
        Effect.succeed({
          subject: holder.subject,
          clientId: Option.getOrNull(holder.clientId),
          scopes: holder.scopes
        })
    })))

/**
 * Echoes the message back, for tokens with the scope {@link adminScope} only: a call with a token
 * without it is answered 403 `insufficient_scope` (a step-up challenge).
 *
 * @since 0.1.0
 * @category tools
 */
export const AdminEcho = Tool.make("admin_echo", {
  description: `Echoes the message back; needs the scope ${adminScope}`,
  parameters: Schema.Struct({ message: Schema.String.annotations({ description: "The message to echo" }) }),
  scopes: [adminScope]
}, ({ message }) => Effect.succeed(message))

/**
 * The tools added when the server runs with authorization on (`Options.auth`).
 *
 * @since 0.1.0
 * @category tools
 */
export const authTools = [Whoami, AdminEcho] as const

// ---------------------------------------------------------------------------- resources

/**
 * @since 0.1.0
 * @category resources
 */
export const StaticText = Resource.make("test://static-text", {
  name: "static-text",
  title: "Static Text Resource",
  description: "A static text resource for testing",
  mimeType: "text/plain"
}, Effect.succeed("This is the content of the static text resource."))

/**
 * @since 0.1.0
 * @category resources
 */
export const StaticBinary = Resource.make("test://static-binary", {
  name: "static-binary",
  title: "Static Binary Resource",
  description: "A static binary resource (image) for testing",
  mimeType: "image/png"
}, Effect.sync(() => Uint8Array.from(atob(PNG), (c) => c.charCodeAt(0))))

/**
 * @since 0.1.0
 * @category resources
 */
export const Template = Resource.template("test://template/{id}/data", {
  name: "template",
  title: "Resource Template",
  description: "A resource template with parameter substitution",
  mimeType: "application/json",
  complete: { id: (value) => Effect.succeed(["1", "2", "3", "123"].filter((id) => id.startsWith(value))) }
}, (variables) => {
  const id = String(variables.id)
  return Effect.succeed(JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }))
})

/**
 * @since 0.1.0
 * @category resources
 */
export const WatchedResource = Resource.make(watchedUri, {
  name: "watched-resource",
  title: "Watched Resource",
  description: "A resource that changes when the tool updateWatchedResource runs",
  mimeType: "text/plain"
}, Effect.map(Effect.flatMap(Watched, Ref.get), (version) => `Watched resource content (version ${version})`))

const contextForm = oneField("What context should the prompt use?", "context")

/**
 * Read only with the user's context (key `user_context`): `resources/read` answers
 * `input_required` first in 2026-07-28. Its URI sorts after the static resources, so that the
 * first of `resources/list` reads at once (the caching scenario reads it).
 *
 * @since 0.1.0
 * @category resources
 */
export const InputRequiredResource = Resource.make(
  "test://user-context",
  {
    name: "user-context",
    title: "Resource Asking For Input",
    description: "Asks the user for context (input request user_context) before it is read (SEP-2322)",
    mimeType: "text/plain"
  },
  McpRequest.elicit("user_context", contextForm).pipe(
    Effect.map((answer) => `Context given by the user: ${field(answer, "context") ?? "none"}`),
    Effect.mapError(refused)
  )
)

// ---------------------------------------------------------------------------- prompts

/**
 * @since 0.1.0
 * @category prompts
 */
export const SimplePrompt = Prompt.make(
  "test_simple_prompt",
  { title: "Simple Test Prompt", description: "A simple prompt without arguments" },
  () => Effect.succeed("This is a simple prompt for testing.")
)

/**
 * Values `arg1` of `test_prompt_with_arguments` completes to.
 *
 * @since 0.1.0
 * @category constants
 */
export const arg1Suggestions: ReadonlyArray<string> = ["test", "testValue1", "testing", "example"]

/**
 * @since 0.1.0
 * @category prompts
 */
export const PromptWithArguments = Prompt.make("test_prompt_with_arguments", {
  title: "Prompt With Arguments",
  description: "A prompt with required arguments",
  arguments: Schema.Struct({
    arg1: Schema.String.annotations({ description: "First test argument" }),
    arg2: Schema.String.annotations({ description: "Second test argument" })
  }),
  complete: { arg1: (value) => Effect.succeed(arg1Suggestions.filter((s) => s.startsWith(value))) }
}, ({ arg1, arg2 }) => Effect.succeed(`Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`))

/**
 * @since 0.1.0
 * @category prompts
 */
export const PromptWithEmbeddedResource = Prompt.make("test_prompt_with_embedded_resource", {
  title: "Prompt With Embedded Resource",
  description: "A prompt that includes an embedded resource",
  arguments: Schema.Struct({
    resourceUri: Schema.String.annotations({ description: "URI of the resource to embed" })
  })
}, ({ resourceUri }) =>
  Effect.succeed<ReadonlyArray<PromptMessage>>([
    {
      role: "user",
      content: {
        type: "resource",
        resource: { uri: resourceUri, mimeType: "text/plain", text: "Embedded resource content for testing." }
      }
    },
    { role: "user", content: { type: "text", text: "Please process the embedded resource above." } }
  ]))

/**
 * @since 0.1.0
 * @category prompts
 */
export const PromptWithImage = Prompt.make(
  "test_prompt_with_image",
  { title: "Prompt With Image", description: "A prompt that includes image content" },
  () =>
    Effect.succeed<ReadonlyArray<PromptMessage>>([
      { role: "user", content: image },
      { role: "user", content: { type: "text", text: "Please analyze the image above." } }
    ])
)

/**
 * Rendered only with the user's context (key `user_context`): `prompts/get` answers
 * `input_required` first in 2026-07-28.
 *
 * @since 0.1.0
 * @category prompts
 */
export const InputRequiredPrompt = Prompt.make("test_input_required_result_prompt", {
  title: "Prompt Asking For Input",
  description: "Asks the user for context (input request user_context) before it is rendered (SEP-2322)"
}, () =>
  McpRequest.elicit("user_context", contextForm).pipe(
    Effect.map((answer) => `Write a short story set in this context: ${field(answer, "context") ?? "anywhere"}`),
    Effect.mapError(refused)
  ))

// ---------------------------------------------------------------------------- the server

// ---------------------------------------------------------------------------- tasks

/**
 * Greets by name: a plain call, never a task (the tasks scenarios' sync tool).
 *
 * @since 0.1.0
 * @category tasks
 */
export const Greet = Tool.make("greet", {
  description: "Greets someone by name (never a task)",
  parameters: Schema.Struct({ name: Schema.String })
}, ({ name }) => Effect.succeed(`Hello, ${name}!`))

/**
 * Sleeps `seconds`, then says so: a task when the client can take one (cancelled while it sleeps,
 * it ends `cancelled`).
 *
 * @since 0.1.0
 * @category tasks
 */
export const SlowCompute = Tool.make("slow_compute", {
  description: "Computes for `seconds` seconds (a task when the client can take one)",
  parameters: Schema.Struct({
    seconds: Schema.Number.pipe(Schema.nonNegative(), Schema.lessThanOrEqualTo(3600)),
    label: Schema.optional(Schema.String)
  }),
  task: "optional"
}, ({ label, seconds }) =>
  Effect.gen(function*() {
    yield* McpTask.status(`computing${label === undefined ? "" : ` ${label}`} for ${seconds}s`)
    yield* Effect.sleep(`${seconds} seconds`)
    return `Computed ${label ?? "result"} in ${seconds}s`
  }))

/**
 * Works for a second, then reports a tool error (`isError`): only as a task.
 *
 * @since 0.1.0
 * @category tasks
 */
export const FailingJob = Tool.make("failing_job", {
  description: "Fails as a tool after about a second (only as a task)",
  task: "required"
}, () =>
  Effect.as(Effect.sleep("1 second"), {
    content: [{ type: "text" as const, text: "The job failed: the input could not be processed" }],
    isError: true
  }))

/**
 * Fails with a protocol error (-32603) after a moment: a task when the client can take one.
 *
 * @since 0.1.0
 * @category tasks
 */
export const ProtocolErrorJob = Tool.make("protocol_error_job", {
  description: "Fails with a JSON-RPC error (a task when the client can take one)",
  task: "optional"
}, () =>
  Effect.zipRight(
    Effect.sleep("200 millis"),
    Effect.fail(new McpError.InternalError({ message: "The job crashed" }))
  ))

const confirmDelete = (filename: string) =>
  Form.form(`Delete ${filename}?`, { properties: { confirm: Form.boolean() }, required: ["confirm"] })

/**
 * Asks to confirm deleting `filename` (the task waits for the answer), then says what it did.
 *
 * @since 0.1.0
 * @category tasks
 */
export const ConfirmDelete = Tool.make("confirm_delete", {
  description: "Asks the user to confirm deleting a file, then deletes it or not (a task when it can be)",
  parameters: Schema.Struct({ filename: Schema.String }),
  task: "optional"
}, ({ filename }) =>
  McpRequest.elicit("confirm", confirmDelete(filename)).pipe(
    Effect.map((answer) =>
      answer.action === "accept" && answer.content?.confirm === true ? `Deleted ${filename}` : `Kept ${filename}`
    ),
    Effect.mapError(refused)
  ))

/**
 * Asks two questions at once (two input requests open together), then answers with both.
 *
 * @since 0.1.0
 * @category tasks
 */
export const MultiInput = Tool.make("multi_input", {
  description: "Asks for a name and a confirmation at once, then reports both (a task when it can be)",
  task: "optional"
}, () =>
  Effect.all([
    McpRequest.elicit("name", oneField("What is your name?", "name")),
    McpRequest.elicit(
      "confirm",
      Form.form("Proceed?", { properties: { confirm: Form.boolean() }, required: ["confirm"] })
    )
  ], { concurrency: 2 }).pipe(
    Effect.map(([name, confirm]) =>
      `name=${field(name, "name") ?? "(none)"}, confirm=${field(confirm, "confirm") ?? "(none)"}`
    ),
    Effect.mapError(refused)
  ))

/**
 * Asks the user's name as a multi-round trip of the request itself, then becomes a task that
 * greets them (only as a task: a multi-round trip first, the task on the last round).
 *
 * @since 0.1.0
 * @category tasks
 */
export const ToolWithTask = Tool.make("test_tool_with_task", {
  description: "Asks your name (a multi-round trip), then greets you from a task",
  task: { support: "required", start: "onDetach" }
}, () =>
  Effect.gen(function*() {
    const answer = yield* Effect.mapError(
      McpRequest.elicit("user_name", oneField("What is your name?", "name")),
      refused
    )
    yield* McpTask.detach
    yield* Effect.sleep("300 millis")
    return `Hello, ${field(answer, "name") ?? "stranger"}!`
  }))

/**
 * The tools of the tasks scenarios.
 *
 * @since 0.1.0
 * @category tasks
 */
export const taskTools = [
  Greet,
  SlowCompute,
  FailingJob,
  ProtocolErrorJob,
  ConfirmDelete,
  MultiInput,
  ToolWithTask
] as const

/**
 * The tools registered when the server is made.
 *
 * @since 0.1.0
 * @category tools
 */
export const tools = [
  SimpleText,
  ImageContent,
  AudioContent,
  EmbeddedResource,
  MultipleContentTypes,
  WithLogging,
  ErrorHandling,
  WithProgress,
  Sampling,
  Elicitation,
  ElicitationDefaults,
  ElicitationEnums,
  JsonSchema2020_12,
  Reconnection,
  InputRequiredElicitation,
  InputRequiredSampling,
  InputRequiredListRoots,
  InputRequiredRequestState,
  InputRequiredMultipleInputs,
  InputRequiredMultiRound,
  InputRequiredTamperedState,
  InputRequiredCapabilities,
  MissingCapability,
  StreamingElicitation,
  LoggingTool,
  CustomHeader,
  Add,
  Echo,
  LongRunning,
  ListRoots,
  ...taskTools,
  ...Counter.tools
] as const

/**
 * The tools that use the server itself (`McpServer`): added once it exists.
 *
 * @since 0.1.0
 * @category tools
 */
export const serverTools = [About, EditTools, UpdateWatchedResource, TriggerToolChange, TriggerPromptChange] as const

/**
 * @since 0.1.0
 * @category resources
 */
export const resources = [
  StaticText,
  StaticBinary,
  Template,
  WatchedResource,
  InputRequiredResource,
  Counter.View
] as const

/**
 * @since 0.1.0
 * @category prompts
 */
export const prompts = [
  SimplePrompt,
  PromptWithArguments,
  PromptWithEmbeddedResource,
  PromptWithImage,
  InputRequiredPrompt
] as const

/**
 * @since 0.1.0
 * @category constants
 */
export const serverInfo: McpSchema.Base.Implementation = {
  name: "effect-mcp-everything",
  title: "effect-mcp Everything",
  version: "0.1.0"
}

/**
 * @since 0.1.0
 * @category constants
 */
export const instructions = "A demo server with every fixture of the MCP conformance suite, for 2025-11-25 " +
  "(handshake) and 2026-07-28 (stateless) clients alike: tools test_*, resources test://*, prompts test_*; " +
  "plus about, add, echo, longRunning, editTools, updateWatchedResource and listRoots. " +
  "Try tools/call with name test_simple_text, or test_input_required_result_elicitation for a multi-round trip."

/**
 * The serving mode: which eras the server speaks, `"handshake"` (2024-11-05 … 2025-11-25,
 * `initialize` and sessions), `"stateless"` (2026-07-28, every request carrying its own `_meta`),
 * or `"dual"` (both at once, each request served by the era it speaks). (An era itself is
 * `Revision.Era`.)
 *
 * @since 0.1.0
 * @category models
 */
export type Mode = "handshake" | "stateless" | "dual"

/**
 * @since 0.1.0
 * @category constants
 */
export const modes: ReadonlyArray<Mode> = ["handshake", "stateless", "dual"]

/**
 * The revisions served in a mode, oldest first (`McpServer.Options.revisions`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const revisions = (mode: Mode): ReadonlyArray<Revision.Revision> =>
  mode === "handshake"
    ? ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
    : mode === "stateless"
    ? ["2026-07-28"]
    : ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]

/**
 * 2026-07-28 caching hints: `server/discover` stays fresh for five minutes (what it says changes
 * only with a new version of the server); the lists and reads are stale at once, since
 * `editTools`, the triggers and `updateWatchedResource` change them at any time. Nothing here is
 * per user: every result may be shared.
 *
 * @since 0.1.0
 * @category constants
 */
export const cachePolicy: McpServer.Options<never>["cachePolicy"] = {
  "server/discover": { ttlMs: 300_000, cacheScope: "public" },
  "tools/list": { ttlMs: 0, cacheScope: "public" },
  "prompts/list": { ttlMs: 0, cacheScope: "public" },
  "resources/list": { ttlMs: 0, cacheScope: "public" },
  "resources/templates/list": { ttlMs: 0, cacheScope: "public" },
  "resources/read": { ttlMs: 0, cacheScope: "public" }
}

/**
 * Options of {@link layerWith}.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The eras served (default `"dual"`). */
  readonly era?: Mode
  /**
   * The key sealing 2026-07-28 `requestState`, so that a retry may reach any process holding it
   * (default: a random key of the server, and a warning when it first seals a state).
   */
  readonly requestStateKey?: Redacted.Redacted<string> | Config.Config<Redacted.Redacted<string>>
  /** How long a sealed `requestState` stays valid (default 10 minutes). */
  readonly requestStateTtl?: Duration.DurationInput
  /**
   * The server runs behind authorization (an HTTP transport with `auth`): add {@link authTools},
   * `whoami` and `admin_echo` (default false: the conformance fixtures and the demo tools only).
   */
  readonly auth?: boolean
  /** How long a running task's lease lasts without renewal (default 30 seconds). */
  readonly taskLease?: Duration.DurationInput
  /**
   * 2026-07-28: the most `subscriptions/listen` held open at once (`McpServer.Options.maxSubscriptions`,
   * default 1,000); one more is refused (-32000, over HTTP a 503) until one ends.
   */
  readonly maxListens?: number
}

const ServerTools = Layer.effectDiscard(
  Effect.flatMap(McpServer.McpServer, (server) =>
    Effect.forEach(
      serverTools,
      (tool: Tool.Tool<McpServer.McpServer | McpRequest.McpRequest | Watched>) => server.addTool(tool),
      { discard: true }
    ))
)

/**
 * The server in the eras of `options` (default: dual), ready to serve
 * (`NodeMcpServer.serveStdio`, `NodeMcpServer.layerHttp`, `McpServer.serve`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerWith = (options: Options = {}): Layer.Layer<McpServer.McpServer> => {
  const given = {
    serverInfo,
    instructions,
    tools: options.auth === true ? [...tools, ...authTools] : tools,
    resources,
    prompts,
    revisions: revisions(options.era ?? "dual"),
    cachePolicy,
    ...(options.requestStateKey !== undefined ? { requestStateKey: options.requestStateKey } : {}),
    ...(options.requestStateTtl !== undefined ? { requestStateTtl: options.requestStateTtl } : {}),
    ...(options.taskLease !== undefined ? { taskLease: options.taskLease } : {}),
    ...(options.maxListens !== undefined ? { maxSubscriptions: options.maxListens } : {})
  }
  // 2026-07-28 alone: the entry without the handshake era's code, its tasks named.
  const server = options.era === "stateless"
    ? StatelessServer.layer({ ...given, revisions: ["2026-07-28"], tasks: StatelessServer.tasks })
    : McpServer.layer(given)
  return ServerTools.pipe(Layer.provideMerge(server), Layer.provide(Watched.layer))
}

/**
 * The dual-era server with the defaults of {@link layerWith}.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<McpServer.McpServer> = layerWith()

/**
 * The demo where the configuration is all there is (a fetch handler on Bun or Deno, a Worker): its
 * state key from `MCP_REQUEST_STATE_KEY` when that is set (else a random key of the process or
 * isolate, and the server's warning when it first seals a state), the most listens held open at
 * once from `MCP_MAX_LISTENS` (a whole number; default 1,000); its log on stderr.
 */
export const layerFromConfig = (
  options: Omit<Options, "requestStateKey" | "maxListens"> = {}
): Layer.Layer<McpServer.McpServer> =>
  Layer.unwrapEffect(
    Effect.map(
      Effect.orDie(Effect.all({
        requestStateKey: Config.option(Config.redacted("MCP_REQUEST_STATE_KEY")),
        maxListens: Config.option(
          Config.integer("MCP_MAX_LISTENS").pipe(Config.validate({
            message: "MCP_MAX_LISTENS must be a whole number of at least 1",
            validation: (n) => n >= 1
          }))
        )
      })),
      ({ maxListens, requestStateKey }) =>
        layerWith({
          ...options,
          ...Option.match(requestStateKey, { onNone: () => ({}), onSome: (requestStateKey) => ({ requestStateKey }) }),
          ...Option.match(maxListens, { onNone: () => ({}), onSome: (maxListens) => ({ maxListens }) })
        })
    )
  ).pipe(Layer.provide(Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger))))
