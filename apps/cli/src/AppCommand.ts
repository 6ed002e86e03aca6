/**
 * `mcp app <target> <tool>`: a tool's view (MCP Apps) served on 127.0.0.1 (`AppHost`, loaded when
 * the command runs).
 *
 * @since 0.1.0
 */
import { Args, Command, Options } from "@effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { auth, authOf, declared, era, parseArgs, target, timeout, withClient } from "./internal/cli.js"

/**
 * @since 0.1.0
 * @category commands
 */
export const app = Command.make(
  "app",
  {
    target,
    era,
    timeout,
    ...auth,
    tool: Args.text({ name: "tool" }),
    args: Options.text("args").pipe(Options.optional, Options.withDescription("the tool's arguments, a JSON object")),
    port: Options.integer("port").pipe(
      Options.withDefault(0),
      Options.withDescription("the host page's port on 127.0.0.1 (default: any free one)")
    )
  },
  ({ args, era, port, target, timeout, tool, ...o }) =>
    withClient(target, { era, timeout, auth: authOf(o), apps: true }, (client) =>
      Effect.scoped(Effect.gen(function*() {
        yield* declared(client, "tools")
        const given = yield* parseArgs(args)
        // The host (and the page's script it carries) is loaded only by this command.
        const AppHost = yield* Effect.promise(() => import("./AppHost.js"))
        const running = yield* AppHost.serve(client, {
          tool,
          arguments: given,
          port,
          onSaid: (said) => Console.log(JSON.stringify(said)),
          onTeardown: (answered) =>
            Console.error(`mcp app: ${answered ? "the view was torn down" : "the view did not answer its teardown"}`)
        })
        yield* Console.log(running.url)
        yield* Console.error(
          `mcp app: ${tool}'s view at ${running.url} (sandbox ${running.sandboxOrigin}); Ctrl-C to stop`
        )
        return yield* Effect.never
      })))
).pipe(
  Command.withDescription("Calls a tool that has a view (MCP Apps) and serves the view on 127.0.0.1 until interrupted")
)
