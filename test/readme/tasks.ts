import { McpClient, McpClientTransport } from "@effect-mcp/client"
import { McpRequest, McpServer, McpTask, TaskStore, Tool } from "@effect-mcp/server"
import { Chunk, Effect, Layer, Schema, Stream } from "effect"

// A task when the client can take one (2025-11-25: it asks, with params.task; 2026-07-28: it
// declares the tasks extension, and the server decides), a plain call otherwise.
export const Build = Tool.make("build", {
  parameters: Schema.Struct({ target: Schema.String }),
  task: "optional"
}, ({ target }) =>
  Effect.gen(function*() {
    yield* McpTask.status(`compiling ${target}`) // the task's statusMessage
    yield* Effect.sleep("200 millis")
    return `built ${target}`
  }))

// Only as a task, and not from the start: the confirmation is a round of the request itself,
// then McpTask.detach answers the request with the task and the rest runs as it.
export const Deploy = Tool.make("deploy", {
  task: { support: "required", start: "onDetach" },
  failure: Schema.String
}, () =>
  Effect.gen(function*() {
    const answer = yield* Effect.mapError(
      McpRequest.elicit("confirm", {
        message: "Deploy to production?",
        requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] }
      }),
      (error) => error.message
    )
    if (answer.content?.ok !== true) return "not deployed"
    yield* McpTask.detach
    yield* Effect.sleep("200 millis")
    return "deployed"
  }))

export const TasksServer = McpServer.layer({
  serverInfo: { name: "builder", version: "1.0.0" },
  tools: [Build, Deploy],
  revisions: ["2025-11-25", "2026-07-28"],
  taskTtl: "1 hour", // how long a task is kept after its creation
  taskPollInterval: "100 millis" // how often clients are told to poll
}).pipe(Layer.provide(TaskStore.layerMemory({ maxTasks: 10_000, maxTasksPerOwner: 100 })))

// The client: a handle on the task, its status as a Stream, its result once it ends.
export const build = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  const task = yield* client.callTool("build", { target: "web" }, { task: true })
  const statuses = yield* Stream.runCollect(Stream.map(task.status, (s) => s.status))
  const built = yield* task.result
  // A task's input requests are answered by the handlers, as a multi-round trip's are.
  const deploy = yield* client.callTool("deploy", {}, { task: true, cancelOnInterrupt: true })
  const deployed = yield* deploy.result
  return { statuses: Chunk.toReadonlyArray(statuses), built: built.content, deployed: deployed.content }
}).pipe(
  Effect.provide(
    McpClient.layer({
      clientInfo: { name: "ci", version: "1.0.0" },
      handlers: { elicitation: () => Effect.succeed({ action: "accept", content: { ok: true } }) }
    }).pipe(
      Layer.provide(
        McpClientTransport.layerMemory((protocol) => McpServer.serve(protocol).pipe(Effect.provide(TasksServer)))
      )
    )
  )
)
