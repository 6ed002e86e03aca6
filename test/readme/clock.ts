import { NodeMcpServer } from "@effect-mcp/platform-node"
import { AppView, McpServer, Tool } from "@effect-mcp/server"
import { Effect } from "effect"

// The view: an HTML page served as a ui:// resource; a host renders it in a sandboxed frame and talks to it
// over postMessage (the official App class of @modelcontextprotocol/ext-apps does this side for a bigger view).
const Clock = AppView.make(
  "ui://clock/view",
  { name: "clock" },
  `<!doctype html>
<p id="time">…</p>
<script>
  const send = (message) => parent.postMessage({ jsonrpc: "2.0", ...message }, "*")
  addEventListener("message", ({ data }) => {
    if (data.id === 1 && data.result) send({ method: "ui/notifications/initialized" })
    if (data.method === "ui/notifications/tool-result") {
      document.getElementById("time").textContent = data.params.content[0].text
    }
  })
  const appInfo = { name: "clock", version: "1.0.0" }
  send({ id: 1, method: "ui/initialize", params: { protocolVersion: "2026-01-26", appInfo, appCapabilities: {} } })
</script>`
)

// A tool linked to it: a host with Apps shows its result in the view; any other client gets the text.
const ShowTime = AppView.link(
  Tool.make("show_time", { description: "The time, in a view" }, () => Effect.sync(() => new Date().toISOString())),
  Clock
)

const Server = McpServer.layer({
  serverInfo: { name: "clock", version: "1.0.0" },
  tools: [ShowTime],
  resources: [Clock]
})

NodeMcpServer.runMain(NodeMcpServer.serveStdio.pipe(Effect.provide(Server)))
