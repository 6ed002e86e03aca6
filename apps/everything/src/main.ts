/**
 * `node apps/everything/dist/main.js stdio` serves the demo server over stdin and stdout
 * until stdin closes; `… http` serves it over Streamable HTTP. Both speak both eras by default
 * (`--era dual`). Nothing but protocol bytes goes to stdout: logs go to stderr.
 *
 * @since 0.1.0
 */
import { NodeMcpServer } from "@effect-mcp/platform-node"
import type { McpServer } from "@effect-mcp/server"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Everything from "./Everything.js"

const usage = `usage: node apps/everything/dist/main.js <mode> [--era handshake|stateless|dual]

modes:
  stdio   serve MCP over stdin/stdout (newline-delimited JSON-RPC) until stdin closes
  http [--port N] [--host H] [--max-sessions N] [--idle-timeout SECONDS] [--max-request SECONDS]
          Streamable HTTP on http://H:N/mcp (default 127.0.0.1:3000), and the legacy
          HTTP+SSE endpoints /sse and /messages (2024-11-05); at most --max-sessions
          handshake sessions at once (default 10000), each ending after --idle-timeout
          seconds without activity (default 300), requests interrupted after --max-request
          seconds (default: no limit); 2026-07-28 requests are POSTs of their own, no session

--era (both modes):
  handshake  2024-11-05 … 2025-11-25: initialize, then a session
  stateless  2026-07-28: every request carries its version and capabilities in _meta
  dual       both at once, each request served by the era it speaks (default)

environment:
  MCP_REQUEST_STATE_KEY  the key sealing 2026-07-28 requestState (multi-round trips), so that
                         a retry may reach any process that has it; unset, each process makes
                         a random one (said once on stderr)
`

const flag = (name: string, fallback: string): string => {
  const at = process.argv.indexOf(`--${name}`)
  return at > 0 && process.argv[at + 1] !== undefined ? process.argv[at + 1] : fallback
}

const say = (line: string) => Effect.sync(() => process.stderr.write(`effect-mcp everything: ${line}\n`))

/**
 * The key sealing `requestState`: `MCP_REQUEST_STATE_KEY`, or a random one of this process,
 * said once on stderr (the server then warns no more).
 */
const requestStateKey = Effect.gen(function*() {
  // A key too short (an empty variable included) is refused by the server itself, in one line.
  const given = yield* Config.option(Config.redacted("MCP_REQUEST_STATE_KEY"))
  if (Option.isSome(given)) return given.value
  yield* say(
    "MCP_REQUEST_STATE_KEY is not set: requestState is sealed with a random key of this process, " +
      "so a retry of a multi-round-trip request cannot move to another process"
  )
  return Redacted.make(Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64"))
})

/** The server in the era of `--era`, with its requestState key when it speaks 2026-07-28. */
const server = (era: Everything.Era): Layer.Layer<McpServer.McpServer, ConfigError.ConfigError> =>
  era === "handshake"
    ? Everything.layerWith({ era })
    : Layer.unwrapEffect(Effect.map(requestStateKey, (key) => Everything.layerWith({ era, requestStateKey: key })))

const mode = process.argv[2]
const era = flag("era", "dual")

if (!(Everything.eras as ReadonlyArray<string>).includes(era)) {
  process.stderr.write(`unknown era: ${era}\n\n${usage}`)
  process.exitCode = 2
} else if (mode === "stdio") {
  NodeMcpServer.serveStdio.pipe(
    Effect.provide(server(era as Everything.Era)),
    // Report failures to stderr, then let runMain set the exit code (its own report and its
    // pretty logger would write to stdout).
    Effect.tapErrorCause(Effect.logError),
    Effect.provide(NodeMcpServer.layerStderrLogger),
    NodeRuntime.runMain({ disableErrorReporting: true, disablePrettyLogger: true })
  )
} else if (mode === "http") {
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
    Layer.provide(server(era as Everything.Era)),
    Layer.provide(NodeMcpServer.layerStderrLogger),
    Layer.tap(() => say(`http://${host}:${port}/mcp (${era})`)),
    Layer.launch,
    Effect.tapErrorCause(Effect.logError),
    Effect.provide(NodeMcpServer.layerStderrLogger),
    NodeRuntime.runMain({ disableErrorReporting: true, disablePrettyLogger: true })
  )
} else {
  process.stderr.write(mode === undefined ? usage : `unknown mode: ${mode}\n\n${usage}`)
  process.exitCode = 2
}
