/**
 * `node apps/everything/dist/main.js stdio` serves the demo server over stdin and stdout
 * until stdin closes. Nothing but protocol bytes goes to stdout: logs go to stderr.
 *
 * @since 0.1.0
 */
import { NodeMcpServer } from "@effect-mcp/platform-node"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Everything from "./Everything.js"

const usage = `usage: node apps/everything/dist/main.js <mode>

modes:
  stdio   serve MCP over stdin/stdout (newline-delimited JSON-RPC) until stdin closes
  http [--port N] [--host H] [--max-sessions N] [--idle-timeout SECONDS] [--max-request SECONDS]
          Streamable HTTP on http://H:N/mcp (default 127.0.0.1:3000), and the legacy
          HTTP+SSE endpoints /sse and /messages (2024-11-05); at most --max-sessions
          sessions at once (default 10000), each ending after --idle-timeout seconds
          without activity (default 300), requests interrupted after --max-request
          seconds (default: no limit)
`

const mode = process.argv[2]

if (mode === "stdio") {
  NodeMcpServer.serveStdio.pipe(
    Effect.provide(Everything.layer),
    // Report failures to stderr, then let runMain set the exit code (its own report and its
    // pretty logger would write to stdout).
    Effect.tapErrorCause(Effect.logError),
    Effect.provide(NodeMcpServer.layerStderrLogger),
    NodeRuntime.runMain({ disableErrorReporting: true, disablePrettyLogger: true })
  )
} else if (mode === "http") {
  const flag = (name: string, fallback: string) => {
    const at = process.argv.indexOf(`--${name}`)
    return at > 0 && process.argv[at + 1] !== undefined ? process.argv[at + 1] : fallback
  }
  const port = Number(flag("port", "3000"))
  const host = flag("host", "127.0.0.1")
  const maxSessions = Number(flag("max-sessions", "10000"))
  const idle = Number(flag("idle-timeout", "300"))
  const maxRequest = flag("max-request", "")
  NodeMcpServer.layerHttp({
    port,
    host,
    maxSessions,
    sessionIdleTimeout: Duration.seconds(idle),
    ...(maxRequest === "" ? {} : { maxRequestDuration: Duration.seconds(Number(maxRequest)) })
  }).pipe(
    Layer.provide(Everything.layer),
    Layer.provide(NodeMcpServer.layerStderrLogger),
    Layer.tap(() => Effect.sync(() => process.stderr.write(`effect-mcp everything: http://${host}:${port}/mcp\n`))),
    Layer.launch,
    Effect.tapErrorCause(Effect.logError),
    Effect.provide(NodeMcpServer.layerStderrLogger),
    NodeRuntime.runMain({ disableErrorReporting: true, disablePrettyLogger: true })
  )
} else {
  process.stderr.write(mode === undefined ? usage : `unknown mode: ${mode}\n\n${usage}`)
  process.exitCode = 2
}
