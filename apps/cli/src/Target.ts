/**
 * Where a server is, as the command line names it: `stdio:<command> <args…>` (a child process,
 * split on whitespace) or an `http://` / `https://` URL (Streamable HTTP).
 *
 * @since 0.1.0
 */
import { McpClientTransport } from "@effect-mcp/client"
import { NodeMcpClient } from "@effect-mcp/platform-node"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Data from "effect/Data"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"

/**
 * A target the command line cannot use.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidTarget extends Data.TaggedError("InvalidTarget")<{ readonly target: string }> {
  override get message(): string {
    return `cannot reach ${JSON.stringify(this.target)}: give stdio:<command> or an http(s):// URL`
  }
}

/**
 * The client transport of a target.
 *
 * @since 0.1.0
 * @category constructors
 */
export const transport = (
  target: string
): Either.Either<Layer.Layer<McpClientTransport.McpClientTransport, NodeMcpClient.SpawnError>, InvalidTarget> => {
  if (target.startsWith("stdio:")) {
    const [command, ...args] = target.slice("stdio:".length).trim().split(/\s+/).filter((part) => part.length > 0)
    if (command === undefined) return Either.left(new InvalidTarget({ target }))
    return Either.right(NodeMcpClient.layerStdio({ command, args, stderr: "ignore" }))
  }
  if (/^https?:\/\//.test(target)) {
    return Either.right(McpClientTransport.layerHttp({ url: target }).pipe(Layer.provide(FetchHttpClient.layer)))
  }
  return Either.left(new InvalidTarget({ target }))
}
