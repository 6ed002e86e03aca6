/**
 * A handler's own typed failure (a resource's, a prompt's) as a JSON-RPC error: an `McpError`
 * as it is; any other failure becomes -32603 whose message is the failure's own (a
 * `Schema.TaggedError`'s message, or its tag and fields when it has none).
 */
import { McpError, Meta } from "@effect-mcp/core"

export const toMcpError = (failure: unknown): McpError.McpError =>
  McpError.isMcpError(failure) ? failure : new McpError.InternalError({ message: McpError.messageOf(failure) })

/** An encoded value as a result's text: a string as it is, anything else as JSON (nothing: empty). */
export const textOf = (encoded: unknown): string =>
  typeof encoded === "string" ? encoded : encoded === undefined ? "" : JSON.stringify(encoded) ?? String(encoded)

/**
 * A typed tool failure as an `isError` result: `text`, and the encoded failure as
 * `structuredContent` when it is an object and the tool publishes no `outputSchema` (the
 * structured content must fit that schema, and the official 1.x clients check it even on
 * errors); with an `outputSchema`, under `_meta` instead (`Meta.toolFailure`).
 */
export const toolFailure = (encoded: unknown, text: string, hasOutputSchema: boolean) => {
  const structured = typeof encoded === "object" && encoded !== null && !Array.isArray(encoded)
  return {
    content: [{ type: "text" as const, text }],
    ...(structured && !hasOutputSchema ? { structuredContent: encoded } : {}),
    ...(structured && hasOutputSchema ? { _meta: { [Meta.toolFailure]: encoded } } : {}),
    isError: true as const
  }
}
