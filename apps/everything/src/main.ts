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
import { parseArgs } from "node:util"
import * as Everything from "./Everything.js"

const usage = `usage: node apps/everything/dist/main.js <mode> [--era handshake|stateless|dual]

modes:
  stdio   serve MCP over stdin/stdout (newline-delimited JSON-RPC) until stdin closes
  http [--port N] [--host H] [--max-sessions N] [--idle-timeout SECONDS] [--max-request SECONDS]
          Streamable HTTP on http://H:N/mcp (default 127.0.0.1:3000), and the legacy
          HTTP+SSE endpoints /sse and /messages (2024-11-05); at most --max-sessions
          handshake sessions at once (default 10000), each ending after --idle-timeout
          seconds without activity (default 300), requests interrupted after --max-request
          seconds (default 3600); 2026-07-28 requests are POSTs of their own, no session

--era (both modes):
  handshake  2024-11-05 … 2025-11-25: initialize, then a session
  stateless  2026-07-28: every request carries its version and capabilities in _meta
  dual       both at once, each request served by the era it speaks (default)

environment:
  MCP_REQUEST_STATE_KEY  the key sealing 2026-07-28 requestState (multi-round trips), so that
                         a retry may reach any process that has it; unset, each process makes
                         a random one (said once on stderr)
`

/** The flags of each mode (`--era` is both modes'). */
const flags = {
  stdio: ["era"],
  http: ["era", "port", "host", "max-sessions", "idle-timeout", "max-request"]
} as const

/** The command line read strictly: a mode, its flags, nothing else; or what is wrong with it. */
const commandLine = (argv: ReadonlyArray<string>) => {
  let parsed: ReturnType<typeof readArgs>
  try {
    parsed = readArgs(argv)
  } catch (error) {
    // node:util's own words: "Unknown option '--prot'", "Option '--port <value>' argument missing".
    const message = error instanceof Error ? error.message : String(error)
    return { error: message.split(". ")[0] } as const
  }
  const [mode, ...extra] = parsed.positionals
  if (mode === undefined) return { error: undefined } as const
  if (mode !== "stdio" && mode !== "http") return { error: `unknown mode: ${mode}` } as const
  if (extra.length > 0) return { error: `unexpected argument: ${extra[0]}` } as const
  const given = Object.keys(parsed.values) as ReadonlyArray<string>
  const foreign = given.find((name) => !(flags[mode] as ReadonlyArray<string>).includes(name))
  if (foreign !== undefined) return { error: `--${foreign} is not an option of ${mode}` } as const
  return { mode, values: parsed.values as Partial<Record<string, string>> } as const
}

const readArgs = (argv: ReadonlyArray<string>) =>
  parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: Object.fromEntries(flags.http.map((name) => [name, { type: "string" as const }]))
  })

/** A whole number of at least `min`, or what is wrong with it. */
const count = (name: string, text: string | undefined, fallback: number, min: number): number | string => {
  if (text === undefined) return fallback
  const n = Number(text)
  return Number.isInteger(n) && n >= min ? n : `--${name} must be a whole number of at least ${min}, not ${text}`
}

const refuse = (why: string | undefined) => {
  process.stderr.write(why === undefined ? usage : `${why}\n\n${usage}`)
  process.exitCode = 2
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
const server = (era: Everything.Mode): Layer.Layer<McpServer.McpServer, ConfigError.ConfigError> =>
  era === "handshake"
    ? Everything.layerWith({ era })
    : Layer.unwrapEffect(Effect.map(requestStateKey, (key) => Everything.layerWith({ era, requestStateKey: key })))

const line = commandLine(process.argv.slice(2))
const era = "values" in line ? line.values.era ?? "dual" : "dual"

if (!("values" in line)) {
  refuse(line.error)
} else if (!(Everything.modes as ReadonlyArray<string>).includes(era)) {
  refuse(`unknown era: ${era}`)
} else if (line.mode === "stdio") {
  NodeMcpServer.serveStdio.pipe(
    Effect.provide(server(era as Everything.Mode)),
    // Report failures to stderr, then let runMain set the exit code (its own report and its
    // pretty logger would write to stdout).
    Effect.tapErrorCause(Effect.logError),
    Effect.provide(NodeMcpServer.layerStderrLogger),
    NodeRuntime.runMain({ disableErrorReporting: true, disablePrettyLogger: true })
  )
} else {
  const port = count("port", line.values.port, 3000, 1)
  const maxSessions = count("max-sessions", line.values["max-sessions"], 10_000, 1)
  const idle = count("idle-timeout", line.values["idle-timeout"], 300, 1)
  const maxRequest = count("max-request", line.values["max-request"], 0, 1)
  const wrong = [port, maxSessions, idle, maxRequest].find((n): n is string => typeof n === "string")
  const host = line.values.host ?? "127.0.0.1"
  if (wrong !== undefined) {
    refuse(wrong)
  } else {
    NodeMcpServer.layerHttp({
      port: port as number,
      host,
      maxSessions: maxSessions as number,
      sessionIdleTimeout: Duration.seconds(idle as number),
      ...(line.values["max-request"] === undefined
        ? {}
        : { maxRequestDuration: Duration.seconds(maxRequest as number) })
    }).pipe(
      Layer.provide(server(era as Everything.Mode)),
      Layer.provide(NodeMcpServer.layerStderrLogger),
      Layer.tap(() => say(`http://${host}:${port}/mcp (${era})`)),
      Layer.launch,
      Effect.tapErrorCause(Effect.logError),
      Effect.provide(NodeMcpServer.layerStderrLogger),
      NodeRuntime.runMain({ disableErrorReporting: true, disablePrettyLogger: true })
    )
  }
}
