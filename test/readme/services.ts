import { McpError, McpServer, Prompt, Resource, Tool } from "@effect-mcp/server"
import { Context, Effect, Layer, Ref, Schema } from "effect"

// Two services, each with its own Layer.
export class Counter extends Context.Tag("Counter")<Counter, Ref.Ref<number>>() {
  static readonly layer = Layer.effect(Counter, Ref.make(0))
}
export class Clock extends Context.Tag("Clock")<Clock, { readonly now: Effect.Effect<Date> }>() {
  static readonly layer = Layer.succeed(Clock, { now: Effect.sync(() => new Date()) })
}

// Tools use them as any Effect does.
const Increment = Tool.make("increment", {
  description: "Adds to the counter",
  parameters: Schema.Struct({
    by: Schema.Int.pipe(Schema.positive()).annotations({ description: "How much to add" })
  }),
  success: Schema.Struct({ count: Schema.Int })
}, ({ by }) => Effect.map(Effect.flatMap(Counter, (n) => Ref.updateAndGet(n, (c) => c + by)), (count) => ({ count })))

const Now = Tool.make(
  "now",
  { description: "The server's time" },
  () => Effect.map(Effect.flatMap(Clock, (clock) => clock.now), (date) => date.toISOString())
)

// A resource has a fixed URI; a template serves a family of them, with completions.
const Count = Resource.make(
  "counter://value",
  { name: "count", mimeType: "text/plain" },
  Effect.map(Effect.flatMap(Counter, Ref.get), String)
)

const notes: Record<string, string> = { welcome: "Hello!", todo: "Write the docs" }

const Note = Resource.template("notes://{name}", {
  name: "note",
  mimeType: "text/plain",
  complete: { name: (typed) => Effect.succeed(Object.keys(notes).filter((n) => n.startsWith(typed))) }
}, ({ name }) =>
  notes[String(name)] === undefined
    ? Effect.fail(new McpError.ResourceNotFound({ uri: `notes://${name}` })) // -32002, as itself
    : Effect.succeed(notes[String(name)]!))

// A prompt: string arguments in, messages out.
const Standup = Prompt.make(
  "standup",
  {
    description: "Opens a stand-up",
    arguments: Schema.Struct({ team: Schema.String.annotations({ description: "The team's name" }) })
  },
  ({ team }) =>
    Effect.map(Effect.flatMap(Clock, (clock) => clock.now), (date) => `Stand-up of ${team}, ${date.toDateString()}`)
)

// The server requires Counter | Clock (inferred, no type arguments): provide their layers.
export const AppLive = McpServer.layer({
  serverInfo: { name: "app", version: "1.0.0" },
  tools: [Increment, Now],
  resources: [Count, Note],
  prompts: [Standup]
}).pipe(Layer.provide(Counter.layer), Layer.provide(Clock.layer))
