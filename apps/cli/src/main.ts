#!/usr/bin/env node
/**
 * `mcp`: a command-line MCP client. Every command takes a target (`stdio:<command …>` or an
 * http(s) URL), `--era auto|handshake|stateless` and `--json` (the results as JSON, for
 * scripts; otherwise readable tables). Errors are one line on stderr and a non-zero exit. Where the
 * target is the only argument (discover, tools, resources, prompts, tasks list, skills list) its
 * words may come unquoted: `mcp tools stdio:node dist/server.js`.
 *
 *   mcp discover <target>             the server: era, revision, info, capabilities
 *   mcp tools <target>                its tools
 *   mcp call <target> <tool> [--args '{"a":1}'] [--task [--detach]]
 *                                     --task: as a task (its status on stderr, then its result);
 *                                     --detach: print the task and leave it running
 *   mcp resources <target>            its resources and templates
 *   mcp read <target> <uri>
 *   mcp prompts <target>
 *   mcp get <target> <prompt> [--args '{"name":"x"}']
 *   mcp listen <target> [--tools] [--prompts] [--resources] [--uri <uri>]…
 *   mcp tasks list <target>           this client's tasks (2025-11-25 only)
 *   mcp tasks get|cancel|result <target> <task id>
 *                                     one task: as it stands, cancelled, or its result (waited for)
 *   mcp skills list <target>          its skills (the skills extension), no file read
 *   mcp skills get <target> <uri>     one skill's entry: frontmatter, files, digests
 *   mcp skills pull <target> <dir> [--skill <uri or name>]…
 *                                     skills verified (every file's size and digest, the
 *                                     frontmatter), then written under <dir>/<skill path>/
 *   mcp app <target> <tool> [--args '{"a":1}'] [--port N]
 *                                     calls a tool that has a view (MCP Apps) and serves the view on
 *                                     127.0.0.1: the page's URL is the first line on stdout, then
 *                                     what the view says (ui/message, model context, links, logs),
 *                                     a JSON line each; until interrupted
 *   mcp proxy <target> [--port N [--host H] [--path /mcp]] [--serve dual|handshake|stateless] [--root URI]…
 *                                     the target's features served over stdio (or HTTP with --port);
 *                                     MCP_REQUEST_STATE_KEY: the requestState key proxies share
 *   mcp gateway --config FILE [--port N …]  the upstreams of FILE ({"mcpServers": …}) as one server
 *   mcp agent --prompt <text> <target>… [--model M]
 *                                     an OpenAI-compatible model (OPENAI_BASE_URL, OPENAI_API_KEY,
 *                                     OPENAI_MODEL) with the servers' tools: calls on stderr, answer on stdout
 *
 * With `OTEL_EXPORTER_OTLP_ENDPOINT` set (and the other standard `OTEL_*` variables: protocol
 * http/protobuf or http/json, service name, headers), every command's spans and metrics are
 * exported as OTLP over HTTP; the proxy carries trace context from its clients to its target.
 *
 * With `MCP_CONFORMANCE_SCENARIO` set, `mcp <url>` is the conformance suite's client driver.
 *
 * @since 0.1.0
 */
import { NodeMcpServer, NodeTelemetry } from "@effect-mcp/platform-node"
import { Command, ValidationError } from "@effect/cli"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import * as AgentCommand from "./AgentCommand.js"
import * as AppCommand from "./AppCommand.js"
import * as CallCommands from "./CallCommands.js"
import * as Conformance from "./Conformance.js"
import * as FeatureCommands from "./FeatureCommands.js"
import * as GatewayCommand from "./GatewayCommand.js"
import * as LoginCommands from "./LoginCommands.js"
import * as ProxyCommand from "./ProxyCommand.js"
import * as SkillsCommand from "./SkillsCommand.js"

const mcp = Command.make("mcp").pipe(
  Command.withDescription(
    "A Model Context Protocol client for servers over stdio or HTTP, in either era. With OTEL_EXPORTER_OTLP_ENDPOINT set (and OTEL_EXPORTER_OTLP_PROTOCOL, OTEL_SERVICE_NAME, …), its traces and metrics are exported as OTLP over HTTP"
  ),
  Command.withSubcommands([
    FeatureCommands.discover,
    FeatureCommands.tools,
    CallCommands.call,
    AppCommand.app,
    FeatureCommands.resources,
    FeatureCommands.read,
    FeatureCommands.prompts,
    FeatureCommands.get,
    FeatureCommands.listen,
    CallCommands.tasks,
    SkillsCommand.skills,
    ProxyCommand.proxy,
    GatewayCommand.command,
    LoginCommands.login,
    LoginCommands.logout,
    AgentCommand.command
  ])
)

const cli = Command.run(mcp, { name: "mcp", version: "0.1.0" })

/** One readable line for any failure. */
const describe = (error: unknown): string =>
  error instanceof Error ? error.message : typeof error === "object" && error !== null && "message" in error
    ? String((error as { readonly message: unknown }).message)
    : String(error)

/** Colour only for a person at a terminal who has not asked for none (https://no-color.org). */
const colour = process.stdout.isTTY === true && (process.env.NO_COLOR ?? "") === ""
// deno-lint-ignore no-control-regex
const sgr = /\x1b\[[0-9;]*m/g
const uncolour = (arg: unknown) => typeof arg === "string" ? arg.replace(sgr, "") : arg

/** @effect/cli colours its help and usage always: its lines, plain where colour is not wanted. */
const plain = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  colour ? effect : Effect.flatMap(Effect.console, (console) =>
    Effect.withConsole(effect, {
      ...console,
      log: (...args) => console.log(...args.map(uncolour)),
      error: (...args) => console.error(...args.map(uncolour)),
      unsafe: {
        ...console.unsafe,
        log: (...args) => console.unsafe.log(...args.map(uncolour)),
        error: (...args) => console.unsafe.error(...args.map(uncolour))
      }
    }))

const scenario = process.env.MCP_CONFORMANCE_SCENARIO
const program = scenario !== undefined
  ? Conformance.run(process.argv[2] ?? "", scenario, process.env.MCP_CONFORMANCE_PROTOCOL_VERSION ?? "2025-11-25")
  : plain(cli(process.argv))

program.pipe(
  Effect.catchAll((error: unknown) =>
    // @effect/cli has already shown its own usage errors (a missing argument, an unknown option, …).
    ValidationError.isValidationError(error)
      ? Effect.sync(() => process.exitCode = 1)
      : Effect.sync(() => {
        process.stderr.write(`mcp: ${describe(error)}\n`)
        process.exitCode = 1
      })
  ),
  // A defect (a bug, or a check that dies) is said too, in one line: never a silent exit 1.
  Effect.catchAllDefect((defect) =>
    Effect.sync(() => {
      process.stderr.write(`mcp: ${describe(defect).split("\n")[0]}\n`)
      process.exitCode = 1
    })
  ),
  // OTLP export when the environment asks for it (OTEL_EXPORTER_OTLP_ENDPOINT, …), flushed on exit.
  Effect.provide(NodeTelemetry.layerFromEnv({ serviceName: "mcp", serviceVersion: "0.1.0" })),
  Effect.provide(NodeContext.layer),
  // Logs go to stderr, always (runMain's default logger writes to stdout, before a --json answer):
  // outermost, so that every layer and fiber of every command logs through it.
  Effect.provide(NodeMcpServer.layerStderrLogger),
  NodeRuntime.runMain({ disableErrorReporting: true, disablePrettyLogger: true })
)
