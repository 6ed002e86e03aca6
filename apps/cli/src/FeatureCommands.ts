/**
 * `mcp discover`, `tools`, `resources`, `read`, `prompts`, `get`, `listen`: what a server serves, and
 * its changes as they come.
 *
 * @since 0.1.0
 */
import type { McpClient } from "@effect-mcp/client"
import { Args, Command, Options } from "@effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import {
  auth,
  authOf,
  columns,
  contentText,
  declared,
  era,
  json,
  lastTarget,
  listing,
  oneLine,
  parseArgs,
  print,
  target,
  timeout,
  withClient
} from "./internal/cli.js"

/** A listing of named entries (tools, prompts): each its name and a line of its description. */
const named = <E extends Error>(
  feature: "tools" | "prompts",
  list: (
    client: McpClient.Service
  ) => Effect.Effect<ReadonlyArray<{ readonly name: string; readonly description?: string | undefined }>, E>
) =>
  Command.make(
    feature,
    { target: lastTarget, json, era, timeout, ...auth },
    ({ era, json, target, timeout, ...o }) =>
      withClient(target, { era, timeout, auth: authOf(o) }, (client) =>
        listing(
          client,
          feature,
          json,
          [],
          Effect.flatMap(list(client), (listed) =>
            print(
              json,
              listed,
              () => columns(listed.map((e) => [e.name, oneLine(e.description)] as const)) || `(no ${feature})`
            ))
        ))
  )

/**
 * @since 0.1.0
 * @category commands
 */
export const discover = Command.make(
  "discover",
  { target: lastTarget, json, era, timeout, ...auth },
  ({ era, json, target, timeout, ...o }) =>
    withClient(target, { era, timeout, auth: authOf(o) }, (client) =>
      print(json, {
        era: client.era,
        revision: client.revision,
        serverInfo: Option.getOrUndefined(client.serverInfo),
        capabilities: client.serverCapabilities,
        instructions: Option.getOrUndefined(client.instructions)
      }, () =>
        columns([
          ["server", Option.match(client.serverInfo, { onNone: () => "?", onSome: (i) => `${i.name} ${i.version}` })],
          ["era", `${client.era} (${client.revision})`],
          ["capabilities", Object.keys(client.serverCapabilities).join(", ") || "none"],
          ...Option.match(client.instructions, {
            onNone: () => [],
            onSome: (text) => [["instructions", oneLine(text)] as const]
          })
        ])))
).pipe(Command.withDescription("What the server is and what it serves"))

/**
 * @since 0.1.0
 * @category commands
 */
export const tools = named("tools", (client) => client.listTools).pipe(Command.withDescription("The server's tools"))

/**
 * @since 0.1.0
 * @category commands
 */
export const resources = Command.make(
  "resources",
  { target: lastTarget, json, era, timeout, ...auth },
  ({ era, json, target, timeout, ...o }) =>
    withClient(target, { era, timeout, auth: authOf(o) }, (client) =>
      listing(
        client,
        "resources",
        json,
        { resources: [], resourceTemplates: [] },
        Effect.gen(function*() {
          const listed = yield* client.listResources
          const templates = yield* Effect.orElseSucceed(client.listResourceTemplates, () => [])
          yield* print(json, { resources: listed, resourceTemplates: templates }, () =>
            columns([
              ...listed.map((r) => [r.uri, oneLine(r.name)] as const),
              ...templates.map((t) => [t.uriTemplate, oneLine(t.name)] as const)
            ]) || "(no resources)")
        })
      ))
).pipe(Command.withDescription("The server's resources and resource templates"))

/**
 * @since 0.1.0
 * @category commands
 */
export const read = Command.make(
  "read",
  { target, json, era, timeout, ...auth, uri: Args.text({ name: "uri" }) },
  ({ era, json, target, uri, timeout, ...o }) =>
    withClient(
      target,
      { era, timeout, auth: authOf(o) },
      (client) =>
        Effect.flatMap(Effect.zipRight(declared(client, "resources"), client.readResource(uri)), (result) =>
          print(json, result, () =>
            result.contents.map((c) =>
              "text" in c ? c.text : `[${c.mimeType ?? "binary"}, base64]`
            ).join("\n")))
    )
).pipe(
  Command.withDescription("Reads a resource")
)

/**
 * @since 0.1.0
 * @category commands
 */
export const prompts = named("prompts", (client) => client.listPrompts).pipe(
  Command.withDescription("The server's prompts")
)

/**
 * @since 0.1.0
 * @category commands
 */
export const get = Command.make(
  "get",
  {
    target,
    json,
    era,
    timeout,
    ...auth,
    prompt: Args.text({ name: "prompt" }),
    args: Options.text("args").pipe(Options.optional)
  },
  ({ args, era, json, prompt, target, timeout, ...o }) =>
    withClient(target, { era, timeout, auth: authOf(o) }, (client) =>
      Effect.gen(function*() {
        yield* declared(client, "prompts")
        const given = (yield* parseArgs(args)) as Record<string, string> | undefined
        const result = yield* client.getPrompt(prompt, given)
        yield* print(
          json,
          result,
          () =>
            result.messages.map((m) => `${m.role}: ${contentText([m.content as { type: string; text?: string }])}`)
              .join("\n")
        )
      }))
).pipe(Command.withDescription("Gets a prompt (arguments as a JSON object)"))

/**
 * @since 0.1.0
 * @category commands
 */
export const listen = Command.make(
  "listen",
  {
    target,
    json,
    era,
    timeout,
    ...auth,
    tools: Options.boolean("tools").pipe(Options.withDescription("tools/list_changed")),
    prompts: Options.boolean("prompts").pipe(Options.withDescription("prompts/list_changed")),
    resources: Options.boolean("resources").pipe(Options.withDescription("resources/list_changed")),
    uri: Options.text("uri").pipe(Options.repeated, Options.withDescription("resources/updated of a URI (repeatable)"))
  },
  (o) =>
    withClient(
      o.target,
      { era: o.era, timeout: o.timeout, auth: authOf(o) },
      (client) =>
        Effect.scoped(Effect.gen(function*() {
          // A server that offers no stream outside requests (a GET answered 405) fails the subscribe
          // (NoEventStream): nothing could ever arrive, so the command says so and fails (a script
          // waiting on it would otherwise wait forever), never "listening".
          const subscription = yield* client.subscribe({
            ...(o.tools ? { toolsListChanged: true } : {}),
            ...(o.prompts ? { promptsListChanged: true } : {}),
            ...(o.resources ? { resourcesListChanged: true } : {}),
            ...(o.uri.length > 0 ? { resourceSubscriptions: o.uri } : {})
          }).pipe(
            Effect.catchTag("NoEventStream", (error) => Effect.fail(new Error(`cannot listen: ${error.message}`)))
          )
          yield* Effect.sync(() =>
            process.stderr.write(`listening: ${JSON.stringify(subscription.acknowledged)} (Ctrl-C to stop)\n`)
          )
          yield* Stream.runForEach(subscription.notifications, (n) =>
            Console.log(
              o.json ?
                JSON.stringify(n) :
                `${n.method}${
                  (n.params as { readonly uri?: string } | undefined)?.uri !== undefined
                    ? ` ${(n.params as { readonly uri: string }).uri}`
                    : ""
                }`
            ))
        }))
    )
).pipe(Command.withDescription("Prints list changes and resource updates as they come"))
