/**
 * `mcp agent --prompt TEXT TARGET…`: the command's arguments; what it does is `Agent.ts`, loaded
 * when it runs.
 *
 * @since 0.1.0
 */
import { Args, Command, Options } from "@effect/cli"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Target from "./Target.js"

/**
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make("agent", {
  prompt: Options.text("prompt").pipe(Options.withDescription("what to ask the model")),
  model: Options.text("model").pipe(
    Options.optional,
    Options.withDescription("the model (else OPENAI_MODEL)")
  ),
  era: Options.choice("era", ["auto", "handshake", "stateless"]).pipe(
    Options.withDefault("auto" as const),
    Options.withDescription("the era to speak to each server")
  ),
  timeout: Options.integer("timeout").pipe(
    Options.withDefault(60),
    Options.withDescription("seconds one request to a server may take")
  ),
  maxTurns: Options.integer("max-turns").pipe(
    Options.withDefault(20),
    Options.withDescription("the most turns of the model")
  ),
  maxSamplingTokens: Options.integer("max-sampling-tokens").pipe(
    Options.withDefault(4096),
    Options.withDescription("the most tokens a server's sampling request may ask for (more is refused)")
  ),
  targets: Args.text({ name: "target" }).pipe(
    Args.atLeast(1),
    Args.withDescription("servers: stdio:<command> <args…> (quoted) or http(s):// URLs")
  )
}, (o) =>
  Effect.flatMap(Effect.promise(() => import("./Agent.js")), (Agent) =>
    Agent.run({
      prompt: o.prompt,
      targets: o.targets,
      model: Option.getOrUndefined(o.model),
      era: o.era,
      timeout: o.timeout,
      maxTurns: o.maxTurns,
      maxSamplingTokens: o.maxSamplingTokens,
      auth: Target.withEnvironment({})
    }))).pipe(
    Command.withDescription(
      "An OpenAI-compatible model (OPENAI_BASE_URL, OPENAI_API_KEY, --model or OPENAI_MODEL) calling the servers' tools " +
        "and answering their sampling: each call on stderr, the answer on stdout"
    )
  )
