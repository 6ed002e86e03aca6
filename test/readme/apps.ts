import { AppView as Host, McpClient, McpClientTransport } from "@effect-mcp/client"
import { AppView, McpServer, Tool } from "@effect-mcp/server"
import { Effect, Layer, pipe, Schema } from "effect"

// The view: a ui:// resource of MIME type text/html;profile=mcp-app, its HTML (a string here; AppView.file
// or AppView.bundle read it from disk), and what the host's sandbox must allow.
export const Board = AppView.make("ui://todo/board", {
  name: "Todo board",
  csp: { connectDomains: ["https://api.example.com"] },
  prefersBorder: true
}, "<!doctype html><html><body><ul id=todos></ul><script>/* the Apps bridge */</script></body></html>")

// Shown to the model; a host that renders views shows its result in the board. Its text is what any
// other client shows.
export const ShowTodos = AppView.link(
  Tool.make("show_todos", { description: "Show the todo list" }, () => Effect.succeed("2 todos: milk, bread")),
  Board
)

// Called by the board only: never listed to a model.
export const Toggle = pipe(
  Tool.make(
    "toggle_todo",
    { parameters: Schema.Struct({ id: Schema.String }) },
    ({ id }) => Effect.succeed(`toggled ${id}`)
  ),
  AppView.link(Board, { visibility: ["app"] })
)

export const TodoServer = McpServer.layer({
  serverInfo: { name: "todo", version: "1.0.0" },
  tools: [ShowTodos, Toggle],
  resources: [Board]
})

// The host side: declare the extension, find the tools with views, read a view (verified) and the
// policies its sandbox applies.
export const firstView = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  const [linked] = yield* Host.linked(client)
  const view = yield* Host.read(client, linked.resourceUri)
  return {
    tool: linked.tool.name,
    html: view.html,
    csp: Host.contentSecurityPolicy(view.ui),
    allow: Host.permissionsPolicy(view.ui)
  }
}).pipe(
  Effect.provide(
    McpClient.layer(Host.declare({ clientInfo: { name: "host", version: "1.0.0" } })).pipe(
      Layer.provide(
        McpClientTransport.layerMemory((protocol) => McpServer.serve(protocol).pipe(Effect.provide(TodoServer)))
      )
    )
  )
)
