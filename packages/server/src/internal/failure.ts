/**
 * A handler's own typed failure (a resource's, a prompt's) as a JSON-RPC error: an `McpError`
 * as it is; any other failure becomes -32603 whose message is the failure's own (a
 * `Schema.TaggedError`'s message, or its tag and fields when it has none).
 */
import { McpError, Meta } from "@effect-mcp/core"

export const messageOf = (failure: unknown): string => {
  if (typeof failure === "string") return failure
  if (typeof failure === "object" && failure !== null) {
    const tag = (failure as { readonly _tag?: unknown })._tag
    const message = (failure as { readonly message?: unknown }).message
    if (typeof message === "string" && message.length > 0) {
      // A tagged error without a message of its own shows its fields as its message.
      return typeof tag === "string" && message.startsWith("{") ? `${tag}: ${message}` : message
    }
    if (typeof tag === "string") return tag
  }
  try {
    return JSON.stringify(failure) ?? String(failure)
  } catch {
    return String(failure)
  }
}

export const toMcpError = (failure: unknown): McpError.McpError =>
  McpError.isMcpError(failure) ? failure : new McpError.InternalError({ message: messageOf(failure) })

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
