/**
 * `tools/call` typed by the tool's Schemas (the ones the server's `Tool.make` is given): the
 * arguments encoded with `parameters`, the value decoded with `success`, an `isError` answer a
 * `ToolFailed` carrying the decoded `failure`.
 */
import { Meta, Method } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as ClientError from "../ClientError.js"
import type { CallOptions, RequestResult, Service, ToolSpec } from "../McpClient.js"

/** A result's structured value: `structuredContent`, else the JSON of its one text content. */
const structuredOf = (result: RequestResult<"tools/call">): unknown => {
  if (result.structuredContent !== undefined) return result.structuredContent
  const first = result.content.length === 1 ? result.content[0] : undefined
  if (first === undefined || first.type !== "text") return undefined
  try {
    return JSON.parse(first.text)
  } catch {
    return first.text
  }
}

export const callToolWith = (request: Service["request"]) =>
<P, PI, S, SI, F, FI>(
  tool: ToolSpec<P, PI, S, SI, F, FI>,
  args: P,
  call?: CallOptions
): Effect.Effect<S, ClientError.ClientError | ClientError.InvalidArguments | ClientError.ToolFailed<F>> =>
  Effect.gen(function*() {
    const encoded = tool.parameters === undefined ? args : yield* Schema.encodeUnknown(tool.parameters)(args).pipe(
      Effect.mapError((error) =>
        new ClientError.InvalidArguments({ tool: tool.name, detail: Method.describeError(error) })
      )
    )
    const result = yield* request(
      "tools/call",
      encoded === undefined
        ? { name: tool.name }
        : { name: tool.name, arguments: encoded as Readonly<Record<string, unknown>> },
      call
    )
    if (result.isError === true) {
      // Where the server put it: `_meta` when the tool has an output schema, else structured
      // content, else the JSON of the text.
      const given = Meta.of(result)?.[Meta.toolFailure]
      const carried = given !== undefined ? given : structuredOf(result)
      if (tool.failure === undefined) {
        return yield* new ClientError.ToolFailed({ tool: tool.name, failure: carried as F, result })
      }
      const failure = yield* Schema.decodeUnknown(tool.failure)(carried).pipe(
        Effect.mapError((error) =>
          new ClientError.InvalidResult({
            method: `tools/call ${tool.name}`,
            detail: `the failure does not fit the tool's failure schema: ${Method.describeError(error)}`
          })
        )
      )
      return yield* new ClientError.ToolFailed({ tool: tool.name, failure, result })
    }
    // No success schema: the value as it came (its type is `unknown`).
    if (tool.success === undefined) return structuredOf(result) as S
    return yield* Schema.decodeUnknown(tool.success)(structuredOf(result)).pipe(
      Effect.mapError((error) =>
        new ClientError.InvalidResult({ method: `tools/call ${tool.name}`, detail: Method.describeError(error) })
      )
    )
  })
