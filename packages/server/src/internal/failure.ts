/**
 * The one failure policy of every handler (a tool's, a prompt's, a resource's):
 *
 * - a tool's declared failure (its `failure` schema) reaches the client as itself, an `isError`
 *   result carrying the encoded failure (`declared`);
 * - an `McpError` reaches the client as itself, a JSON-RPC error;
 * - anything else is a defect, which the engine answers with -32603 and a generic message
 *   ("Internal error") and logs with its cause, the method and the name: an error's own message
 *   (an SQL error, a URL with a token) is the server's, never the client's.
 */
import { McpError, Meta } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import type * as ParseResult from "effect/ParseResult"

/** A failure no schema declares: an `McpError` as itself, anything else a defect (-32603, logged). */
export const undeclared = (failure: unknown): Effect.Effect<never, McpError.McpError> =>
  McpError.isMcpError(failure) ? Effect.fail(failure) : Effect.die(failure)

/** A tool's declared failure: how to recognise it, encode it and word it. */
export interface Declared {
  readonly is: (u: unknown) => boolean
  readonly encode: (failure: unknown) => Effect.Effect<unknown, ParseResult.ParseError>
  /** The text of the `isError` result (default: the encoded failure as JSON). */
  readonly text?: ((failure: unknown, encoded: unknown) => string) | undefined
  /** Describes the failure of a declared value its schema cannot encode: a bug (-32603, logged). */
  readonly unencodable: (error: ParseResult.ParseError) => unknown
}

/**
 * A tool handler's failure by the policy: a declared failure as its `isError` result (one its
 * schema cannot encode is a bug: a defect), an `McpError` as itself, anything else a defect.
 */
export const tool = (
  failure: unknown,
  declared: Declared | undefined,
  hasOutputSchema: boolean
): Effect.Effect<ReturnType<typeof toolFailure>, McpError.McpError> => {
  if (declared === undefined || McpError.isMcpError(failure) || !declared.is(failure)) return undeclared(failure)
  return Effect.matchEffect(declared.encode(failure), {
    onFailure: (error) => Effect.die(declared.unencodable(error)),
    onSuccess: (encoded) =>
      Effect.succeed(
        toolFailure(
          encoded,
          declared.text !== undefined ? declared.text(failure, encoded) : textOf(encoded),
          hasOutputSchema
        )
      )
  })
}

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
