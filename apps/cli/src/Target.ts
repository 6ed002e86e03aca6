/**
 * Where a server is, as the command line names it: `stdio:<command> <args…>` (a child process; the
 * words split as a shell splits them: quotes, backslashes and `$VARIABLES`, but no pipes or other
 * operators) or an `http://` / `https://` URL (Streamable HTTP).
 *
 * @since 0.1.0
 */
import { McpClientTransport } from "@effect-mcp/client"
import { NodeMcpClient } from "@effect-mcp/platform-node"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Data from "effect/Data"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import { parse } from "shell-quote"

/**
 * A target the command line cannot use.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidTarget extends Data.TaggedError("InvalidTarget")<{
  readonly target: string
  /** What is wrong with a `stdio:` command, when that is it. */
  readonly reason?: string
}> {
  override get message(): string {
    return this.reason !== undefined
      ? `cannot run ${JSON.stringify(this.target)}: ${this.reason}`
      : `cannot reach ${JSON.stringify(this.target)}: give stdio:<command> or an http(s):// URL`
  }
}

/** The words of a `stdio:` command, split as a shell would (no operators: there is no shell). */
const words = (target: string, command: string): Either.Either<ReadonlyArray<string>, InvalidTarget> => {
  const out: Array<string> = []
  for (const entry of parse(command, process.env)) {
    if (typeof entry === "string") out.push(entry)
    else if ("comment" in entry) break
    else if (entry.op === "glob") out.push(entry.pattern)
    else {
      return Either.left(
        new InvalidTarget({
          target,
          reason: `${entry.op} is a shell operator, and the command is run without a shell: ` +
            `quote it, or run a script (stdio:sh -c '…' runs one)`
        })
      )
    }
  }
  return Either.right(out)
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
    return Either.flatMap(
      words(target, target.slice("stdio:".length)),
      ([command, ...args]) =>
        command === undefined || command.length === 0
          ? Either.left(new InvalidTarget({ target }))
          : Either.right(NodeMcpClient.layerStdio({ command, args, stderr: "ignore" }))
    )
  }
  if (/^https?:\/\//.test(target)) {
    return Either.right(McpClientTransport.layerHttp({ url: target }).pipe(Layer.provide(FetchHttpClient.layer)))
  }
  return Either.left(new InvalidTarget({ target }))
}
