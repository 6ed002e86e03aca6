import type { SchemaSet } from "@effect-mcp/test-support/OfficialSchema"
import { assert, describe, it } from "@effect/vitest"
import * as Schema from "effect/Schema"
import { parseOptions } from "../src/Schema/Base.js"
import * as Completion from "../src/Schema/Completion.js"
import * as Content from "../src/Schema/Content.js"
import * as Logging from "../src/Schema/Logging.js"
import * as Prompt from "../src/Schema/Prompt.js"
import * as Resource from "../src/Schema/Resource.js"
import * as Stateless from "../src/Schema/Stateless.js"
import * as Tool from "../src/Schema/Tool.js"
import * as Wire from "../src/Wire.js"
import { holds } from "./utils/Property.js"

const all: ReadonlyArray<SchemaSet> = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]
const handshake: ReadonlyArray<SchemaSet> = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
/** Revisions without standalone `…Params` definitions. */
const early: ReadonlyArray<SchemaSet> = ["2024-11-05", "2025-03-26", "2025-06-18"]
const from20250326: ReadonlyArray<SchemaSet> = ["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]
const from20250618: ReadonlyArray<SchemaSet> = ["2025-06-18", "2025-11-25", "2026-07-28"]

type AnySchema = Schema.Schema<any, any, never>

/** Params inside a whole request, for the official `XRequest` definition. */
const request = (method: string, params: AnySchema): AnySchema =>
  Schema.Struct({
    jsonrpc: Schema.Literal("2.0"),
    id: Schema.Literal(1),
    method: Schema.Literal(method),
    params
  })

/** Params inside a whole notification, for the official `XNotification` definition. */
const notification = (method: string, params: AnySchema): AnySchema =>
  Schema.Struct({ jsonrpc: Schema.Literal("2.0"), method: Schema.Literal(method), params })

/** A single content block as the content of a prompt message (for revisions without a `ContentBlock` union). */
const asPromptContent = (content: AnySchema): AnySchema => Schema.Struct({ role: Schema.Literal("user"), content })

const toolWith = (fields: Schema.Struct.Fields): AnySchema =>
  Schema.Struct({ name: Schema.String, inputSchema: Schema.Struct({ type: Schema.Literal("object") }), ...fields })

/** Request params: whole requests before 2025-11-25, the `…Params` definition in 2025-11-25, and (when the method exists) the 2026-07-28 params with the required `_meta`. */
const requestParams = (
  method: string,
  official: string,
  params: Schema.Struct<any>,
  options: { readonly officialParams: string; readonly modern: boolean }
) => {
  const schema: AnySchema = params as any
  holds({ schema: request(method, schema), official, sets: early })
  holds({ schema, official: options.officialParams, sets: ["2025-11-25"] })
  if (options.modern) {
    holds({ schema: Stateless.params(params) as any, official: options.officialParams, sets: ["2026-07-28"] })
  }
}

const notificationParams = (method: string, official: string, params: AnySchema, officialParams: string) => {
  holds({ schema: notification(method, params), official, sets: early })
  holds({ schema: params, official: officialParams, sets: ["2025-11-25", "2026-07-28"] })
}

describe("Content", () => {
  it("content blocks match the official definitions", () => {
    holds({ schema: Content.TextContent, official: "TextContent", sets: all })
    holds({ schema: Content.ImageContent, official: "ImageContent", sets: all })
    holds({ schema: Content.AudioContent, official: "AudioContent", sets: from20250326 })
    holds({ schema: Content.ResourceLink, official: "ResourceLink", sets: from20250618 })
    holds({ schema: Content.EmbeddedResource, official: "EmbeddedResource", sets: all })
    holds({ schema: Content.ContentBlock, official: "ContentBlock", sets: from20250618 })
    holds({ schema: asPromptContent(Content.ContentBlock20250326), official: "PromptMessage", sets: ["2025-03-26"] })
    holds({ schema: asPromptContent(Content.ContentBlock20241105), official: "PromptMessage", sets: ["2024-11-05"] })
  })

  it("resource contents match the official definitions", () => {
    holds({ schema: Content.TextResourceContents, official: "TextResourceContents", sets: all })
    holds({ schema: Content.BlobResourceContents, official: "BlobResourceContents", sets: all })
    holds({ schema: Content.ResourceContents, official: "ResourceContents", sets: all })
  })

  it("older unions reject newer members", () => {
    const decode = (schema: AnySchema, value: unknown) => Schema.decodeUnknownEither(schema, parseOptions)(value)
    const audio = Content.audio("AAAA", "audio/wav")
    const link = Content.resourceLink({ uri: "file:///a.txt", name: "a" })
    assert.isTrue(decode(Content.ContentBlock20241105, audio)._tag === "Left")
    assert.isTrue(decode(Content.ContentBlock20250326, audio)._tag === "Right")
    assert.isTrue(decode(Content.ContentBlock20250326, link)._tag === "Left")
    assert.isTrue(decode(Content.ContentBlock, link)._tag === "Right")
  })

  it("constructors", () => {
    const annotations = { audience: ["user" as const], priority: 0.5 }
    assert.deepStrictEqual(Content.text("hi"), { type: "text", text: "hi" })
    assert.deepStrictEqual(Content.text("hi", { annotations }), { type: "text", text: "hi", annotations })
    assert.deepStrictEqual(Content.image("AAAA", "image/png"), { type: "image", data: "AAAA", mimeType: "image/png" })
    assert.deepStrictEqual(Content.audio("AAAA", "audio/wav", { _meta: { a: 1 } }), {
      type: "audio",
      data: "AAAA",
      mimeType: "audio/wav",
      _meta: { a: 1 }
    })
    assert.deepStrictEqual(Content.resourceLink({ uri: "file:///a.txt", name: "a", mimeType: "text/plain" }), {
      type: "resource_link",
      uri: "file:///a.txt",
      name: "a",
      mimeType: "text/plain"
    })
    assert.deepStrictEqual(Content.textResource("file:///a.txt", "A", { mimeType: "text/plain" }), {
      uri: "file:///a.txt",
      text: "A",
      mimeType: "text/plain"
    })
    assert.deepStrictEqual(Content.blobResource("file:///a.bin", "AAAA"), { uri: "file:///a.bin", blob: "AAAA" })
    assert.deepStrictEqual(Content.embedded(Content.textResource("file:///a.txt", "A"), { annotations }), {
      type: "resource",
      resource: { uri: "file:///a.txt", text: "A" },
      annotations
    })
    for (const block of [Content.text("x"), Content.image("AAAA", "image/png"), Content.audio("AAAA", "audio/wav")]) {
      assert.deepStrictEqual(Schema.decodeUnknownSync(Content.ContentBlock, parseOptions)(block), block)
    }
  })
})

describe("Tool", () => {
  it("tool definitions match the official definitions", () => {
    holds({ schema: Tool.ToolAnnotations, official: "ToolAnnotations", sets: from20250326 })
    holds({ schema: Tool.ToolExecution, official: "ToolExecution", sets: ["2025-11-25"] })
    holds({ schema: toolWith({ inputSchema: Tool.ToolInputSchema }), official: "Tool", sets: all })
    holds({
      schema: toolWith({ outputSchema: Tool.ToolOutputSchema }),
      official: "Tool",
      sets: ["2024-11-05", "2025-03-26", "2026-07-28"]
    })
    holds({ schema: toolWith({ outputSchema: Tool.ToolOutputSchema20250618 }), official: "Tool", sets: all })
    holds({ schema: Tool.Tool, official: "Tool", sets: ["2024-11-05", "2025-03-26", "2026-07-28"] })
    holds({ schema: Tool.Tool20250618, official: "Tool", sets: all })
  })

  it("tools/list", () => {
    requestParams("tools/list", "ListToolsRequest", Tool.ListToolsRequestParams, {
      officialParams: "PaginatedRequestParams",
      modern: true
    })
    holds({ schema: Tool.ListToolsResult, official: "ListToolsResult", sets: ["2024-11-05", "2025-03-26"] })
    holds({
      schema: Stateless.cacheableResult(Tool.ListToolsResult),
      official: "ListToolsResult",
      sets: ["2026-07-28"]
    })
    holds({ schema: Tool.ListToolsResult20250618, official: "ListToolsResult", sets: handshake })
    notificationParams(
      "notifications/tools/list_changed",
      "ToolListChangedNotification",
      Tool.ToolListChangedNotificationParams,
      "NotificationParams"
    )
  })

  it("tools/call", () => {
    requestParams("tools/call", "CallToolRequest", Tool.CallToolRequestParams, {
      officialParams: "CallToolRequestParams",
      modern: true
    })
    holds({ schema: Stateless.result(Tool.CallToolResult), official: "CallToolResult", sets: ["2026-07-28"] })
    holds({ schema: Tool.CallToolResult20250618, official: "CallToolResult", sets: ["2025-06-18", "2025-11-25"] })
    holds({ schema: Tool.CallToolResult20250326, official: "CallToolResult", sets: ["2025-03-26"] })
    holds({ schema: Tool.CallToolResult20241105, official: "CallToolResult", sets: ["2024-11-05"] })
  })

  it("outputSchema: any schema in 2026-07-28, an object schema before", () => {
    const tool = { name: "t", inputSchema: { type: "object" }, outputSchema: { type: "array", items: {} } }
    assert.deepStrictEqual(Schema.decodeUnknownSync(Tool.Tool, parseOptions)(tool), tool as any)
    assert.isTrue(Schema.decodeUnknownEither(Tool.Tool20250618, parseOptions)(tool)._tag === "Left")
  })

  it("a decode keeps unknown fields and namespaced _meta keys at depth", () => {
    const result = {
      content: [
        {
          type: "text",
          text: "hi",
          future: { a: [1, null] },
          _meta: { "io.modelcontextprotocol/x": { deep: [1, 2, { z: null }] }, "com.example/y": "v" }
        },
        {
          type: "resource",
          resource: { uri: "file:///a.txt", text: "A", extra: 1, _meta: { "io.modelcontextprotocol/x": 1 } }
        }
      ],
      structuredContent: [1, "two", { three: 3.5 }],
      resultType: "complete",
      _meta: { "io.modelcontextprotocol/x": true }
    }
    assert.deepStrictEqual(Schema.decodeUnknownSync(Tool.CallToolResult, parseOptions)(result), result as any)
    const encoded = Schema.encodeSync(Tool.CallToolResult, parseOptions)(
      Schema.decodeUnknownSync(Tool.CallToolResult, parseOptions)(result)
    )
    assert.deepStrictEqual(encoded, result as any)
  })

  it("an own __proto__ key never reaches a schema: the wire boundary removes it", () => {
    const text = `{"content":[],"_meta":{"__proto__":{"polluted":true},"a":1}}`
    const decoded: any = Schema.decodeUnknownSync(Tool.CallToolResult, parseOptions)(Wire.parse(text))
    assert.isUndefined(decoded._meta.polluted)
    assert.deepStrictEqual(decoded._meta, { a: 1 })
    assert.strictEqual(Object.getPrototypeOf(decoded._meta), Object.prototype)
  })

  it("isValidToolName", () => {
    for (const name of ["get_weather", "a", "A.b-c_9", "x".repeat(128)]) {
      assert.isTrue(Tool.isValidToolName(name), name)
    }
    for (const name of ["", "x".repeat(129), "with space", "a/b", "ünï", "a,b", "tool@1"]) {
      assert.isFalse(Tool.isValidToolName(name), name)
    }
  })
})

describe("Resource", () => {
  it("resources match the official definitions", () => {
    holds({ schema: Resource.Resource, official: "Resource", sets: all })
    holds({ schema: Resource.ResourceTemplate, official: "ResourceTemplate", sets: all })
  })

  it("resources/list and resources/templates/list", () => {
    requestParams("resources/list", "ListResourcesRequest", Resource.ListResourcesRequestParams, {
      officialParams: "PaginatedRequestParams",
      modern: true
    })
    holds({ schema: Resource.ListResourcesResult, official: "ListResourcesResult", sets: handshake })
    holds({
      schema: Stateless.cacheableResult(Resource.ListResourcesResult),
      official: "ListResourcesResult",
      sets: ["2026-07-28"]
    })
    requestParams(
      "resources/templates/list",
      "ListResourceTemplatesRequest",
      Resource.ListResourceTemplatesRequestParams,
      { officialParams: "PaginatedRequestParams", modern: true }
    )
    holds({ schema: Resource.ListResourceTemplatesResult, official: "ListResourceTemplatesResult", sets: handshake })
    holds({
      schema: Stateless.cacheableResult(Resource.ListResourceTemplatesResult),
      official: "ListResourceTemplatesResult",
      sets: ["2026-07-28"]
    })
    notificationParams(
      "notifications/resources/list_changed",
      "ResourceListChangedNotification",
      Resource.ResourceListChangedNotificationParams,
      "NotificationParams"
    )
  })

  it("resources/read", () => {
    requestParams("resources/read", "ReadResourceRequest", Resource.ReadResourceRequestParams, {
      officialParams: "ReadResourceRequestParams",
      modern: true
    })
    holds({ schema: Resource.ReadResourceResult, official: "ReadResourceResult", sets: handshake })
    holds({
      schema: Stateless.cacheableResult(Resource.ReadResourceResult),
      official: "ReadResourceResult",
      sets: ["2026-07-28"]
    })
  })

  it("resources/subscribe, resources/unsubscribe, notifications/resources/updated", () => {
    requestParams("resources/subscribe", "SubscribeRequest", Resource.SubscribeRequestParams, {
      officialParams: "SubscribeRequestParams",
      modern: false
    })
    requestParams("resources/unsubscribe", "UnsubscribeRequest", Resource.UnsubscribeRequestParams, {
      officialParams: "UnsubscribeRequestParams",
      modern: false
    })
    notificationParams(
      "notifications/resources/updated",
      "ResourceUpdatedNotification",
      Resource.ResourceUpdatedNotificationParams,
      "ResourceUpdatedNotificationParams"
    )
  })
})

describe("Prompt", () => {
  it("prompts match the official definitions", () => {
    holds({ schema: Prompt.PromptArgument, official: "PromptArgument", sets: all })
    holds({ schema: Prompt.Prompt, official: "Prompt", sets: all })
    holds({ schema: Prompt.PromptMessage, official: "PromptMessage", sets: from20250618 })
    holds({ schema: Prompt.PromptMessage20250326, official: "PromptMessage", sets: ["2025-03-26"] })
    holds({ schema: Prompt.PromptMessage20241105, official: "PromptMessage", sets: ["2024-11-05"] })
  })

  it("prompts/list", () => {
    requestParams("prompts/list", "ListPromptsRequest", Prompt.ListPromptsRequestParams, {
      officialParams: "PaginatedRequestParams",
      modern: true
    })
    holds({ schema: Prompt.ListPromptsResult, official: "ListPromptsResult", sets: handshake })
    holds({
      schema: Stateless.cacheableResult(Prompt.ListPromptsResult),
      official: "ListPromptsResult",
      sets: ["2026-07-28"]
    })
    notificationParams(
      "notifications/prompts/list_changed",
      "PromptListChangedNotification",
      Prompt.PromptListChangedNotificationParams,
      "NotificationParams"
    )
  })

  it("prompts/get", () => {
    requestParams("prompts/get", "GetPromptRequest", Prompt.GetPromptRequestParams, {
      officialParams: "GetPromptRequestParams",
      modern: true
    })
    holds({ schema: Prompt.GetPromptResult, official: "GetPromptResult", sets: ["2025-06-18", "2025-11-25"] })
    holds({ schema: Stateless.result(Prompt.GetPromptResult), official: "GetPromptResult", sets: ["2026-07-28"] })
    holds({ schema: Prompt.GetPromptResult20250326, official: "GetPromptResult", sets: ["2025-03-26"] })
    holds({ schema: Prompt.GetPromptResult20241105, official: "GetPromptResult", sets: ["2024-11-05"] })
  })

  it("constructors", () => {
    assert.deepStrictEqual(Prompt.userMessage("hi"), { role: "user", content: { type: "text", text: "hi" } })
    const image = Content.image("AAAA", "image/png")
    assert.deepStrictEqual(Prompt.assistantMessage(image), { role: "assistant", content: image })
  })
})

describe("Completion", () => {
  it("references match the official definitions", () => {
    holds({ schema: Completion.PromptReference, official: "PromptReference", sets: all })
    holds({ schema: Completion.ResourceTemplateReference, official: "ResourceTemplateReference", sets: from20250618 })
    holds({ schema: Completion.ResourceReference, official: "ResourceReference", sets: ["2024-11-05", "2025-03-26"] })
  })

  it("completion/complete", () => {
    requestParams("completion/complete", "CompleteRequest", Completion.CompleteRequestParams, {
      officialParams: "CompleteRequestParams",
      modern: true
    })
    holds({ schema: Completion.CompleteResult, official: "CompleteResult", sets: handshake })
    holds({ schema: Stateless.result(Completion.CompleteResult), official: "CompleteResult", sets: ["2026-07-28"] })
  })

  it("at most 100 values", () => {
    const values = (n: number) => ({ completion: { values: Array.from({ length: n }, (_, i) => `v${i}`) } })
    const decode = Schema.decodeUnknownEither(Completion.CompleteResult, parseOptions)
    assert.isTrue(decode(values(100))._tag === "Right")
    assert.isTrue(decode(values(101))._tag === "Left")
  })
})

describe("Logging", () => {
  it("logging matches the official definitions", () => {
    holds({ schema: Logging.LoggingLevel, official: "LoggingLevel", sets: all })
    requestParams("logging/setLevel", "SetLevelRequest", Logging.SetLevelRequestParams, {
      officialParams: "SetLevelRequestParams",
      modern: false
    })
    notificationParams(
      "notifications/message",
      "LoggingMessageNotification",
      Logging.LoggingMessageNotificationParams,
      "LoggingMessageNotificationParams"
    )
  })

  it("isAtLeast and levels", () => {
    assert.deepStrictEqual(Logging.levels, [
      "debug",
      "info",
      "notice",
      "warning",
      "error",
      "critical",
      "alert",
      "emergency"
    ])
    assert.isTrue(Logging.isAtLeast("error", "warning"))
    assert.isTrue(Logging.isAtLeast("info", "info"))
    assert.isTrue(Logging.isAtLeast("emergency", "debug"))
    assert.isFalse(Logging.isAtLeast("debug", "info"))
    assert.isFalse(Logging.isAtLeast("critical", "alert"))
  })
})
