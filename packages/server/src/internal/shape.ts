/**
 * The one projection of what the server produced onto the revision it speaks:
 * - fields a revision does not have are left out, as the schemas say (each field that not every
 *   revision has is annotated with the revisions that have it: `Base.since`);
 * - content blocks a revision cannot carry are rendered as text, and structured content it
 *   cannot carry is left out, as `Revision.features` says.
 * Nothing here compares version strings or keeps a list of keys.
 */
import type { Revision } from "@effect-mcp/core"
import * as FeatureSchemas from "@effect-mcp/core/FeatureSchemas"
import type * as Schema from "effect/Schema"
import * as McpSchema from "./mcpSchema.js"

type Features = Revision.Features
type Content = McpSchema.Content.ContentBlock

const omit = <A extends object>(value: A, keys: ReadonlyArray<string>): A => {
  if (!keys.some((k) => k in value)) return value
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) }
  for (const key of keys) delete out[key]
  return out as A
}

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * The fields of a definition's schema that a revision does not have, from the schema's own
 * annotations (`Base.since`), computed once per revision.
 */
const absent = (schema: () => Schema.Schema.Any) => {
  const byRevision = new Map<Revision.Revision, ReadonlyArray<string>>()
  return (f: Features): ReadonlyArray<string> => {
    let keys = byRevision.get(f.revision)
    if (keys === undefined) byRevision.set(f.revision, keys = McpSchema.Base.absentFields(schema(), f.revision))
    return keys
  }
}

const implementationAbsent = absent(() => McpSchema.Base.Implementation)
const toolAbsent = absent(() => FeatureSchemas.tool().Tool)
// The prompts' schemas are built when a prompt is first shaped (a server without prompts never builds them).
const promptAbsent = absent(() => FeatureSchemas.prompt().Prompt)
const argumentAbsent = absent(() => FeatureSchemas.prompt().PromptArgument)
const resourceAbsent = absent(() => FeatureSchemas.resource().Resource)
const templateAbsent = absent(() => FeatureSchemas.resource().ResourceTemplate)

export const implementation = (info: McpSchema.Base.Implementation, f: Features): McpSchema.Base.Implementation =>
  omit(info, implementationAbsent(f))

export const tool = (definition: McpSchema.Tool.Tool, f: Features): McpSchema.Tool.Tool => {
  // Up to 2025-11-25 an output schema must describe an object: one that does not is left out.
  const invalid = f.structuredOutput === "object" && definition.outputSchema !== undefined &&
    definition.outputSchema.type !== "object"
  return omit(definition, invalid ? [...toolAbsent(f), "outputSchema"] : toolAbsent(f))
}

export const prompt = (definition: McpSchema.Prompt.Prompt, f: Features): McpSchema.Prompt.Prompt => {
  const shaped = omit(definition, promptAbsent(f))
  const keys = argumentAbsent(f)
  return keys.length === 0 || shaped.arguments === undefined
    ? shaped
    : { ...shaped, arguments: shaped.arguments.map((a) => omit(a, keys)) }
}

export const resource = (definition: McpSchema.Resource.Resource, f: Features): McpSchema.Resource.Resource =>
  omit(definition, resourceAbsent(f))

export const template = (
  definition: McpSchema.Resource.ResourceTemplate,
  f: Features
): McpSchema.Resource.ResourceTemplate => omit(definition, templateAbsent(f))

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
  const content = contents(result.content, f)
  const structured = result.structuredContent
  const drop = structured !== undefined &&
    (f.structuredOutput === "none" || (f.structuredOutput === "object" && !isObject(structured)))
  // What the revision carries as it is goes out as it is (a field left undefined is not sent).
  if (!drop && content === result.content) return result as McpSchema.Tool.CallToolResult20250618
  const out: Record<string, unknown> = { ...result, content }
  if (drop) delete out.structuredContent
  return out as McpSchema.Tool.CallToolResult20250618
}

export const promptMessages = (
  result: McpSchema.Prompt.GetPromptResult,
  f: Features
): McpSchema.Prompt.GetPromptResult =>
  f.audioContent && f.resourceLinks
    ? result
    : { ...result, messages: result.messages.map((m) => ({ ...m, content: block(m.content, f) })) }

/**
 * An elicitation as a handler asks it, in either era (`McpRequest.elicit`): a form, or a URL with
 * the `elicitationId` that 2025-11-25 answers with `notifications/elicitation/complete`.
 */
export type Elicitation =
  | McpSchema.Elicitation.ElicitRequestFormParams
  | McpSchema.Elicitation.ElicitRequestURLParams20251125

/**
 * The params of a handshake session's `elicitation/create`: as asked, but where the revision has
 * no `mode` (2025-06-18: a form only), without it.
 */
export const elicitRequest = (
  params: Elicitation,
  f: Features
): McpSchema.Elicitation.ElicitRequestParams20251125 | Omit<Elicitation, "mode"> => {
  if (f.urlElicitation || params.mode === undefined) return params
  const { mode: _, ...rest } = params
  return rest
}

/**
 * The input request of a 2026-07-28 elicitation (the undated shape): a form without the
 * request-level `_meta` and `task`, a URL without its `elicitationId` (correlated through
 * `requestState` instead). A form that carries neither goes out as it is.
 */
export const elicitInput = (params: Elicitation): McpSchema.Elicitation.ElicitRequestParams => {
  if (params.mode === "url") return { mode: "url", message: params.message, url: params.url }
  if (params._meta === undefined && params.task === undefined) return params
  const { _meta: _, task: __, ...form } = params
  return form
}
