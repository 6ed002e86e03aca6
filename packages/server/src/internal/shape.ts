/**
 * Shaping what the server produced for the revision it speaks: fields a revision does not
 * have are left out, content blocks it cannot carry are rendered as text. Every rule reads
 * `Revision.features`, never a version string.
 */
import type { Schema as McpSchema } from "@effect-mcp/core"
import { Revision } from "@effect-mcp/core"

type Features = Revision.Features
type Content = McpSchema.Content.ContentBlock

const omit = <A extends object>(value: A, keys: ReadonlyArray<string>): A => {
  if (!keys.some((k) => k in value)) return value
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) }
  for (const key of keys) delete out[key]
  return out as A
}

/** The keys of named things that a revision does not have. */
const namedKeys = (f: Features): ReadonlyArray<string> => [
  ...(f.titles ? [] : ["title"]),
  ...(f.icons ? [] : ["icons"])
]

export const implementation = (info: McpSchema.Base.Implementation, f: Features): McpSchema.Base.Implementation =>
  omit(info, [...namedKeys(f), ...(f.icons ? [] : ["description", "websiteUrl"])])

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

export const tool = (definition: McpSchema.Tool.Tool, f: Features): McpSchema.Tool.Tool => {
  const keys = [
    ...namedKeys(f),
    ...(f.toolAnnotations ? [] : ["annotations"]),
    ...(f.tasks === "core" ? [] : ["execution"]),
    // Up to 2025-11-25 an output schema must describe an object.
    ...(f.structuredOutput === "none" || (f.structuredOutput === "object" && definition.outputSchema?.type !== "object")
      ? ["outputSchema"]
      : [])
  ]
  return omit(definition, keys)
}

export const prompt = (definition: McpSchema.Prompt.Prompt, f: Features): McpSchema.Prompt.Prompt => {
  const shaped = omit(definition, namedKeys(f))
  return f.titles || shaped.arguments === undefined
    ? shaped
    : { ...shaped, arguments: shaped.arguments.map((a) => omit(a, ["title"])) }
}

export const resource = <A extends object>(definition: A, f: Features): A => omit(definition, namedKeys(f))

/** A content block the revision cannot carry, as text. */
const block = (content: Content, f: Features): Content => {
  switch (content.type) {
    case "audio":
      return f.audioContent ? content : { type: "text", text: `[audio: ${content.mimeType}]` }
    case "resource_link":
      return f.resourceLinks ? content : { type: "text", text: content.uri }
    default:
      return content
  }
}

export const contents = (blocks: ReadonlyArray<Content>, f: Features): ReadonlyArray<Content> =>
  f.audioContent && f.resourceLinks ? blocks : blocks.map((b) => block(b, f))

/**
 * A tool's result for the revision. Typed as the handshake era's newest shape; in 2026-07-28
 * (`structuredOutput: "any"`) `structuredContent` may be any JSON value, which the stateless
 * path's result schema accepts.
 */
export const callToolResult = (
  result: {
    readonly content: ReadonlyArray<Content>
    readonly structuredContent?: unknown
    readonly isError?: boolean | undefined
    readonly _meta?: McpSchema.Base.MetaObject | undefined
  },
  f: Features
): McpSchema.Tool.CallToolResult20250618 => {
  const out: Record<string, unknown> = { ...result, content: contents(result.content, f) }
  const structured = result.structuredContent
  if (
    structured === undefined || f.structuredOutput === "none" ||
    (f.structuredOutput === "object" && !isObject(structured))
  ) {
    delete out.structuredContent
  }
  if (out.isError === undefined) delete out.isError
  if (out._meta === undefined) delete out._meta
  return out as McpSchema.Tool.CallToolResult20250618
}

export const promptMessages = (
  result: McpSchema.Prompt.GetPromptResult,
  f: Features
): McpSchema.Prompt.GetPromptResult =>
  f.audioContent && f.resourceLinks
    ? result
    : { ...result, messages: result.messages.map((m) => ({ ...m, content: block(m.content, f) })) }

export { Revision }
