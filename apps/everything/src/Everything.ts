/**
 * The demo server. It has every fixture the MCP conformance suite calls (tools, resources, a
 * template, prompts and a completion, with the reference texts), and tools for benchmarks and
 * interop tests: `add`, `echo`, `longRunning`, live edits (`editTools`), resource updates
 * (`updateWatchedResource`) and roots (`listRoots`).
 *
 * @since 0.1.0
 */
import { Schema as McpSchema } from "@effect-mcp/core"
import { McpRequest, McpServer, Prompt, Resource, Tool } from "@effect-mcp/server"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"

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

// ---------------------------------------------------------------------------- other tools

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

// ---------------------------------------------------------------------------- the server

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
  Add,
  Echo,
  LongRunning,
  ListRoots
] as const

/**
 * The tools that use the server itself (`McpServer`): added once it exists.
 *
 * @since 0.1.0
 * @category tools
 */
export const serverTools = [EditTools, UpdateWatchedResource] as const

/**
 * @since 0.1.0
 * @category resources
 */
export const resources = [StaticText, StaticBinary, Template, WatchedResource] as const

/**
 * @since 0.1.0
 * @category prompts
 */
export const prompts = [SimplePrompt, PromptWithArguments, PromptWithEmbeddedResource, PromptWithImage] as const

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
export const instructions = "A demo server with every fixture of the MCP conformance suite " +
  "(tools test_*, resources test://*, prompts test_*), plus add, echo, longRunning, editTools, " +
  "updateWatchedResource and listRoots. Try tools/call with name test_simple_text."

const ServerTools = Layer.effectDiscard(
  Effect.flatMap(McpServer.McpServer, (server) => Effect.forEach(serverTools, server.addTool, { discard: true }))
)

/**
 * The server, ready to serve (`NodeMcpServer.serveStdio`, `McpServer.serve`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<McpServer.McpServer> = ServerTools.pipe(
  Layer.provideMerge(
    McpServer.layer<McpRequest.McpRequest | Watched>({ serverInfo, instructions, tools, resources, prompts })
  ),
  Layer.provide(Watched.layer)
)
