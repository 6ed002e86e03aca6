#!/usr/bin/env node
/**
 * `npm create @effect-mcp@latest [directory]` (this package's bin, `create-effect-mcp`): writes a new
 * MCP server project into `directory` (which must not exist, or be empty). At a terminal it asks
 * what the flags do not say; otherwise (or with `--yes`) it takes the defaults: stdio, both eras,
 * tests.
 *
 *   --transport stdio|http|both   how the server is reached (default stdio)
 *   --era dual|handshake|stateless  the eras served (default dual: both on one endpoint)
 *   --extras tests,auth,redis,telemetry  what comes beside it (default tests; `none` for nothing)
 *   --yes                          ask nothing
 *
 * It writes files only: no network, no install. What to run next is printed on stdout.
 *
 * @since 0.1.0
 */
import { Args, Command, Options, Prompt, ValidationError } from "@effect/cli"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Console from "effect/Console"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Template from "./Template.js"
import * as Versions from "./Versions.js"

/** A choice refused, or a directory that is in the way: one line on stderr, exit 1. */
class CreateError extends Data.TaggedError("CreateError")<{ readonly message: string }> {}

const directory = Args.text({ name: "directory" }).pipe(
  Args.withDescription("where to write the project (default my-mcp-server); its name is the package's"),
  Args.optional
)
const transport = Options.choice("transport", Template.transports).pipe(
  Options.withDescription("stdio (a host spawns it), http (Streamable HTTP) or both (default stdio)"),
  Options.optional
)
const era = Options.choice("era", Template.eras).pipe(
  Options.withDescription("dual (both eras on one endpoint, the default), handshake or stateless (2026-07-28)"),
  Options.optional
)
const extras = Options.text("extras").pipe(
  Options.withDescription("comma-separated: tests, auth, redis, telemetry, or none (default tests)"),
  Options.optional
)
const yes = Options.boolean("yes").pipe(
  Options.withAlias("y"),
  Options.withDescription("ask nothing: the defaults for what the flags do not say")
)

const parseExtras = (text: string): Effect.Effect<ReadonlyArray<Template.Extra>, CreateError> => {
  const words = text.split(",").map((word) => word.trim()).filter((word) => word.length > 0)
  if (words.length === 1 && words[0] === "none") return Effect.succeed([])
  const unknown = words.filter((word) => !(Template.extras as ReadonlyArray<string>).includes(word))
  return unknown.length > 0
    ? Effect.fail(
      new CreateError({
        message: `--extras: ${unknown.join(", ")} is not one of ${Template.extras.join(", ")} (or none)`
      })
    )
    : Effect.succeed(Template.extras.filter((extra) => words.includes(extra)))
}

/** A value the flags gave, else asked at a terminal, else the default. */
const choose = <A>(given: Option.Option<A>, interactive: boolean, ask: Prompt.Prompt<A>, fallback: A) =>
  Option.match(given, {
    onSome: Effect.succeed,
    onNone: () => interactive ? Prompt.run(ask) : Effect.succeed(fallback)
  })

const create = Command.make(
  "create-effect-mcp",
  { directory, transport, era, extras, yes },
  (flags) =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const interactive = !flags.yes && process.stdin.isTTY === true && process.stdout.isTTY === true
      const dir = yield* choose(
        flags.directory,
        interactive,
        Prompt.text({ message: "Where should the project go?", default: "my-mcp-server" }),
        "my-mcp-server"
      )
      const chosenTransport = yield* choose(
        flags.transport,
        interactive,
        Prompt.select({
          message: "How is the server reached?",
          choices: [
            { title: "stdio", value: "stdio" as const, description: "a host (Claude Desktop, VS Code, …) spawns it" },
            { title: "HTTP", value: "http" as const, description: "Streamable HTTP on a port" },
            { title: "both", value: "both" as const, description: "stdio, or HTTP with `node dist/server.js http`" }
          ]
        }),
        "stdio" as const
      )
      const chosenEra = yield* choose(
        flags.era,
        interactive,
        Prompt.select({
          message: "Which eras does it serve?",
          choices: [
            { title: "both (dual)", value: "dual" as const, description: "handshake and stateless on one endpoint" },
            { title: "handshake", value: "handshake" as const, description: "2024-11-05 to 2025-11-25" },
            { title: "stateless", value: "stateless" as const, description: "2026-07-28" }
          ]
        }),
        "dual" as const
      )
      const chosenExtras = yield* Option.match(flags.extras, {
        onSome: parseExtras,
        onNone: () =>
          interactive
            ? Prompt.run(Prompt.multiSelect({
              message: "What comes with it?",
              choices: [
                { title: "tests", value: "tests" as const, description: "vitest, on the test kit", selected: true },
                // Authorization protects the HTTP endpoint: not offered for a server over stdio alone.
                ...(chosenTransport === "stdio" ? [] : [{
                  title: "authorization",
                  value: "auth" as const,
                  description: "an OAuth resource server on the HTTP endpoint"
                }]),
                { title: "Redis", value: "redis" as const, description: "sessions and tasks shared on Redis" },
                { title: "telemetry", value: "telemetry" as const, description: "OpenTelemetry export (OTLP)" }
              ]
            }))
            : Effect.succeed<ReadonlyArray<Template.Extra>>(["tests"])
      })
      const target = path.resolve(dir)
      const choices: Template.Choices = {
        name: Template.packageName(path.basename(target)),
        transport: chosenTransport,
        era: chosenEra,
        extras: chosenExtras
      }
      const refused = Template.refusal(choices)
      if (refused !== undefined) return yield* new CreateError({ message: refused })
      if (yield* fs.exists(target)) {
        const entries = yield* fs.readDirectory(target)
        if (entries.length > 0) {
          return yield* new CreateError({ message: `${dir} is not empty: give a new directory` })
        }
      }
      for (const file of Template.files(choices)) {
        const out = path.join(target, file.path)
        yield* fs.makeDirectory(path.dirname(out), { recursive: true })
        yield* fs.writeFileString(out, file.text)
      }
      const relative = path.relative(process.cwd(), target) || "."
      const described = [
        choices.transport === "both" ? "stdio and HTTP" : choices.transport === "http" ? "HTTP" : "stdio",
        choices.era === "dual" ? "both eras" : `the ${choices.era} era`,
        ...choices.extras
      ].join(", ")
      yield* Console.log(
        [
          `Created ${choices.name} in ${relative} (${described}). Next:`,
          "",
          `  cd ${relative}`,
          "  npm install",
          "  npm run build",
          ...(choices.extras.includes("tests") ? ["  npm test"] : []),
          ...(choices.transport !== "http"
            ? ["  npx @effect-mcp/cli tools stdio:node dist/server.js"]
            : ["  node dist/server.js http"]),
          "",
          "Its README says how to add it to a host."
        ].join("\n")
      )
    })
).pipe(Command.withDescription("Writes a new MCP server project on effect-mcp"))

const cli = Command.run(create, { name: "create-effect-mcp", version: Versions.effectMcp })

cli(process.argv).pipe(
  Effect.catchAll((error) =>
    // @effect/cli has shown its own usage errors already.
    ValidationError.isValidationError(error)
      ? Effect.sync(() => process.exitCode = 1)
      : Effect.sync(() => {
        process.stderr.write(`create-effect-mcp: ${"message" in error ? error.message : String(error)}\n`)
        process.exitCode = 1
      })
  ),
  Effect.provide(NodeContext.layer),
  NodeRuntime.runMain({ disableErrorReporting: true, disablePrettyLogger: true })
)
