/**
 * The demo's MCP Apps view (`io.modelcontextprotocol/ui`): a counter. `show_counter` (for the model) is
 * linked to the view `ui://everything/counter`, a small dependency-free HTML page that speaks the Apps
 * bridge itself (JSON-RPC over `postMessage`: `ui/initialize`, the tool's input and result) and whose
 * "+1" button calls `counter_increment`, a tool for the view only (visibility `["app"]`, never listed to a
 * model). A client that renders no views sees `show_counter` alone, and its text.
 *
 * @since 0.2.0
 */
import { AppView, Tool } from "@effect-mcp/server"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/**
 * The view's URI.
 *
 * @since 0.2.0
 * @category constants
 */
export const viewUri = "ui://everything/counter"

/**
 * The view's HTML: one document, no dependency, no network. The elements a host's test reads: `#count`
 * (the count shown), `#increment` (the button, enabled once the bridge is initialized), `#status`
 * (`ready` when idle), `#input` (the tool's arguments, as JSON).
 *
 * @since 0.2.0
 * @category constants
 */
export const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Counter</title>
<style>
  body { font: 14px system-ui, sans-serif; margin: 12px; color: #222; }
  #count { font-size: 32px; font-weight: 600; }
  button { font: inherit; padding: 4px 12px; }
</style>
</head>
<body>
<p>Count: <span id="count">-</span></p>
<p><button id="increment" disabled>+1</button> <span id="status">connecting</span></p>
<pre id="input"></pre>
<script>
(() => {
  const $ = (id) => document.getElementById(id)
  const pending = new Map()
  let nextId = 1
  let count = 0
  const send = (message) => window.parent.postMessage(Object.assign({ jsonrpc: "2.0" }, message), "*")
  const request = (method, params) => new Promise((resolve, reject) => {
    const id = nextId++
    pending.set(id, { resolve, reject })
    send({ id, method, params })
  })
  const show = (result) => {
    const value = result && result.structuredContent && result.structuredContent.count
    if (typeof value === "number") {
      count = value
      $("count").textContent = String(value)
    }
  }
  window.addEventListener("message", (event) => {
    if (event.source !== window.parent) return
    const message = event.data
    if (typeof message !== "object" || message === null || message.jsonrpc !== "2.0") return
    if (message.method === undefined) {
      const waiting = pending.get(message.id)
      if (waiting === undefined) return
      pending.delete(message.id)
      if (message.error) waiting.reject(new Error(message.error.message))
      else waiting.resolve(message.result)
      return
    }
    const params = message.params || {}
    switch (message.method) {
      case "ui/notifications/tool-input":
        $("input").textContent = JSON.stringify(params.arguments || {})
        return
      case "ui/notifications/tool-result":
        show(params)
        return
      case "ui/resource-teardown":
      case "ping":
        send({ id: message.id, result: {} })
        return
      default:
        if (message.id !== undefined) send({ id: message.id, error: { code: -32601, message: "Method not found" } })
    }
  })
  $("increment").addEventListener("click", () => {
    $("status").textContent = "calling counter_increment"
    request("tools/call", { name: "counter_increment", arguments: { count, by: 1 } }).then(
      (result) => {
        show(result)
        $("status").textContent = result.isError ? "failed" : "ready"
      },
      (error) => { $("status").textContent = error.message }
    )
  })
  request("ui/initialize", {
    protocolVersion: "2026-01-26",
    appInfo: { name: "everything-counter", version: "1.0.0" },
    appCapabilities: {}
  }).then(
    () => {
      send({ method: "ui/notifications/initialized", params: {} })
      $("increment").disabled = false
      $("status").textContent = "ready"
      const size = () => send({
        method: "ui/notifications/size-changed",
        params: { width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight }
      })
      new ResizeObserver(size).observe(document.body)
    },
    (error) => { $("status").textContent = error.message }
  )
})()
</script>
</body>
</html>
`

/**
 * The view: no network (no CSP domains), no permissions, a border.
 *
 * @since 0.2.0
 * @category resources
 */
export const View = AppView.make(viewUri, {
  name: "counter",
  title: "Counter",
  description: "An interactive counter (MCP Apps view of show_counter)",
  prefersBorder: true
}, html)

const counted = (count: number) => ({
  content: [{ type: "text" as const, text: `The counter is ${count}` }],
  structuredContent: { count }
})

/**
 * Shows the counter: in the view for a host that renders views, as text for any other client.
 *
 * @since 0.2.0
 * @category tools
 */
export const ShowCounter = AppView.link(
  Tool.make("show_counter", {
    description: "Show a counter, starting at `start` (default 0), in an interactive view (MCP Apps); " +
      "clients without views get the count as text",
    parameters: Schema.Struct({ start: Schema.optional(Schema.Number) })
  }, ({ start }) => Effect.succeed(counted(start ?? 0))),
  View
)

/**
 * What the view's button calls: `count + by`. For the view only: no model lists it.
 *
 * @since 0.2.0
 * @category tools
 */
export const Increment = AppView.link(
  Tool.make("counter_increment", {
    description: "Add `by` (default 1) to `count` (called by the counter view)",
    parameters: Schema.Struct({ count: Schema.Number, by: Schema.optional(Schema.Number) })
  }, ({ by, count }) => Effect.succeed(counted(count + (by ?? 1)))),
  View,
  { visibility: ["app"] }
)

/**
 * The view's tools.
 *
 * @since 0.2.0
 * @category tools
 */
export const tools = [ShowCounter, Increment] as const
