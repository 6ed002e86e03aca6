/**
 * What the host serves to the browser: the host page, its script (an ES module importing the official
 * AppBridge, bundled by `./script.ts`), the script run before the sandbox proxy's frame is parsed, and
 * the sandbox proxy's page.
 */

/** The sandbox attribute of both frames: what the specification asks of the proxy, and forms. */
export const sandboxAttribute = "allow-scripts allow-same-origin allow-forms"

/** What the sandbox proxy holds of the view's messages until the host page's bridge listens. */
export const maxHeld = 64

/** The tallest the view's frame grows inline (its size changes are followed up to this). */
export const maxInlineHeight = 2000

/**
 * The host page's script: the official AppBridge on the page's side of the bridge. The same for every
 * view: what it needs of one is in `/session`. Display modes: inline and fullscreen (the frame filling
 * the window), told to the view in the host context with the theme (the browser's colour scheme), the
 * container's dimensions (followed as the window resizes), locale, time zone and input capabilities.
 */
export const pageScript = `
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge"
const $ = (id) => document.getElementById(id)
const status = (text) => { $("status").textContent = text }
const fail = (error) => { $("error").textContent = error instanceof Error ? error.message : String(error) }
// Fetched by early.js as the page started.
const session = await window.mcpSession
const config = session.config
let pending = 0
// Bounded: at most config.maxPending requests to the host process at once; more are refused here.
const ask = async (method, params) => {
  if (pending >= config.maxPending) throw new Error("too many bridge requests in flight (at most " + config.maxPending + ")")
  pending++
  try {
    const response = await fetch("/bridge", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ method, params: params ?? {} })
    })
    const answer = await response.json()
    if (answer.error !== undefined) throw new Error(answer.error.message)
    return answer.result
  } finally {
    pending--
  }
}
const tell = (method, params) => { ask(method, params).catch(() => {}) }
try {
  // The sandbox proxy's frame is in the page, loading since the page was parsed; early.js caught its ready and
  // gave it the view, which has been loading since while this script did.
  const iframe = $("sandbox")
  const container = $("view")
  status("loading the sandbox")
  await window.mcpViewSent
  const dark = window.matchMedia("(prefers-color-scheme: dark)")
  const modes = ["inline", "fullscreen"]
  let mode = "inline"
  let height = 0
  const dimensions = () => mode === "fullscreen"
    ? { width: container.clientWidth, height: container.clientHeight }
    : { maxWidth: container.clientWidth, maxHeight: config.maxInlineHeight }
  const bridge = new AppBridge(null, config.hostInfo, {
    openLinks: {},
    serverTools: {},
    serverResources: {},
    logging: {},
    updateModelContext: { text: {}, structuredContent: {} },
    downloadFile: {},
    message: { text: {}, structuredContent: {} },
    sandbox: { csp: session.ui.csp ?? {}, permissions: session.ui.permissions ?? {} }
  }, {
    hostContext: {
      toolInfo: { tool: session.tool },
      theme: dark.matches ? "dark" : "light",
      displayMode: mode,
      availableDisplayModes: modes,
      containerDimensions: dimensions(),
      locale: navigator.language,
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      userAgent: config.hostInfo.name,
      platform: "web",
      deviceCapabilities: { touch: navigator.maxTouchPoints > 0, hover: window.matchMedia("(hover: hover)").matches }
    }
  })
  const place = () => {
    container.className = mode
    iframe.style.height = mode === "fullscreen" ? "100%" : (height > 0 ? Math.min(height, config.maxInlineHeight) : 240) + "px"
  }
  bridge.oncalltool = (params) => ask("tools/call", params)
  bridge.onreadresource = (params) => ask("resources/read", params)
  bridge.onmessage = (params) => ask("ui/message", params)
  bridge.onupdatemodelcontext = (params) => ask("ui/update-model-context", params)
  bridge.onopenlink = (params) => ask("ui/open-link", params)
  bridge.onloggingmessage = (params) => tell("notifications/message", params)
  bridge.onping = () => tell("ping", {})
  // ui/download-file: at most 16 items and 8 MiB of files a request (more refused, isError), confirmed by the user
  // (refused: isError); then each embedded file saved by the browser (a download of this page, named after its
  // URI), each http(s) link opened; what was offered told to the host (stdout), without the files' bytes.
  bridge.ondownloadfile = async ({ contents }) => {
    const items = contents ?? []
    if (items.length > 16) return { isError: true }
    const offers = []
    let total = 0
    for (const item of items) {
      if (item.type === "resource") {
        const r = item.resource
        // Bounded before decoding: base64 gives 3 bytes in 4 characters, UTF-8 at least a byte a character.
        const most = typeof r.blob === "string" ? Math.floor(r.blob.length * 3 / 4) : (r.text ?? "").length
        if (total + most > 8 * 1024 * 1024) return { isError: true }
        const bytes = typeof r.blob === "string"
          ? Uint8Array.from(atob(r.blob), (c) => c.charCodeAt(0))
          : new TextEncoder().encode(r.text ?? "")
        total += bytes.length
        if (total > 8 * 1024 * 1024) return { isError: true }
        offers.push({ item, bytes })
      } else if (item.type === "resource_link" && /^https?:/.test(item.uri)) {
        offers.push({ item })
      }
    }
    if (offers.length === 0) return {}
    const names = offers.map(({ item }) => item.type === "resource" ? item.resource.uri : item.uri)
    if (!confirm("The view offers " + names.join(", ") + ". Download?")) return { isError: true }
    const offered = []
    for (const { item, bytes } of offers) {
      const a = document.createElement("a")
      if (item.type === "resource") {
        const r = item.resource
        a.href = URL.createObjectURL(new Blob([bytes], { type: r.mimeType ?? "application/octet-stream" }))
        a.download = r.uri.split("/").pop() || "download"
        offered.push({ type: "resource", uri: r.uri, mimeType: r.mimeType, bytes: bytes.length })
      } else {
        a.href = item.uri
        a.target = "_blank"
        a.rel = "noopener noreferrer"
        offered.push({ type: "resource_link", uri: item.uri, name: item.name })
      }
      a.click()
      setTimeout(() => URL.revokeObjectURL(a.href), 60000)
    }
    tell("ui/download-file", { contents: offered })
    return {}
  }
  // A mode this host has is taken (and said in the host context); another is refused with the current one.
  bridge.onrequestdisplaymode = async ({ mode: asked }) => {
    if (modes.includes(asked) && asked !== mode) {
      mode = asked
      place()
      bridge.sendHostContextChange({ displayMode: mode, containerDimensions: dimensions() })
    }
    return { mode }
  }
  bridge.addEventListener("sizechange", (size) => {
    if (typeof size.height === "number" && size.height > 0) {
      height = size.height
      place()
    }
  })
  dark.addEventListener("change", () => bridge.sendHostContextChange({ theme: dark.matches ? "dark" : "light" }))
  let width = container.clientWidth
  new ResizeObserver(() => {
    if (container.clientWidth === width && mode === "inline") return
    width = container.clientWidth
    bridge.sendHostContextChange({ containerDimensions: dimensions() })
  }).observe(container)
  const initialized = new Promise((resolve) => bridge.addEventListener("initialized", () => resolve()))
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow))
  // The bridge listens: the proxy lets through what the view said until now, and what it says next.
  const hostReady = { jsonrpc: "2.0", method: "ui/notifications/sandbox-host-ready", params: {} }
  iframe.contentWindow.postMessage(hostReady, iframe.dataset.origin)
  status("initializing the view")
  await initialized
  status("initialized")
  // When the host stops, the view is torn down first (ui/resource-teardown), then the host told.
  new EventSource("/events").addEventListener("teardown", async () => {
    try {
      await bridge.teardownResource({})
    } finally {
      status("torn down")
      fetch("/torn-down", { method: "POST" })
    }
  })
  await bridge.sendToolInput({ arguments: session.arguments })
  const outcome = await (await fetch("/result")).json()
  if (outcome.result !== undefined) {
    await bridge.sendToolResult(outcome.result)
    status("result delivered")
  } else {
    await bridge.sendToolCancelled({ reason: outcome.error })
    status("cancelled: " + outcome.error)
  }
} catch (error) {
  fail(error)
}
`

export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/**
 * The host page: a status line, an error line and the sandbox proxy's frame, loaded at once (`early.js`, run
 * before the frame is parsed, fetches the session, catches the proxy's ready and gives it the view) while the
 * bridge's script loads.
 */
export const hostPage = (
  tool: string,
  sandbox: { readonly url: string; readonly origin: string },
  allow: string,
  border: boolean
) =>
  `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHtml(tool)} (mcp app)</title>
<style>body{font:14px system-ui,sans-serif;margin:16px}#error{color:#b00}
#sandbox{width:100%;height:240px;border:${border ? "1px solid #ccc" : "none"}}
#view.fullscreen{position:fixed;inset:0;background:Canvas}#view.fullscreen #sandbox{border:none}</style>
<script src="/early.js"></script>
<script type="module" src="/host.js"></script></head>
<body>
<p><b>${escapeHtml(tool)}</b> <span id="status">starting</span></p>
<p id="error"></p>
<div id="view" class="inline"><iframe id="sandbox" sandbox="${sandboxAttribute}"${
    allow !== "" ? ` allow="${escapeHtml(allow)}"` : ""
  } data-origin="${escapeHtml(sandbox.origin)}" src="${escapeHtml(sandbox.url)}"></iframe></div>
</body>
</html>
`

/**
 * Run before the sandbox proxy's frame is parsed: the session fetched (`window.mcpSession`), the proxy's ready
 * caught, and the view given to it at once (`window.mcpViewSent`), so that the view loads while the bridge's
 * script does (the proxy holds what the view says until the bridge listens).
 */
export const earlyScript = `window.mcpSession = fetch("/session").then(function (response) { return response.json() })
var proxyReady = new Promise(function (resolve) {
  function listener(event) {
    var frame = document.getElementById("sandbox")
    if (frame && event.source === frame.contentWindow && event.origin === frame.dataset.origin &&
        event.data && event.data.method === "ui/notifications/sandbox-proxy-ready") {
      window.removeEventListener("message", listener)
      resolve(frame)
    }
  }
  window.addEventListener("message", listener)
})
window.mcpViewSent = Promise.all([window.mcpSession, proxyReady]).then(function (both) {
  var session = both[0]
  var frame = both[1]
  frame.contentWindow.postMessage({
    jsonrpc: "2.0",
    method: "ui/notifications/sandbox-resource-ready",
    params: {
      html: session.html,
      sandbox: session.config.sandbox,
      csp: session.ui.csp,
      permissions: session.ui.permissions
    }
  }, frame.dataset.origin)
})
`

/**
 * The sandbox proxy: relays between the host page (its parent, of `hostOrigin`) and the view (an inner
 * frame of this origin, written from `ui/notifications/sandbox-resource-ready`, with the permissions
 * `allow`), and nothing else. What the view says before the host page's bridge listens (until
 * `ui/notifications/sandbox-host-ready`) is held, at most `maxHeld` messages (more are dropped), then passed on.
 */
export const sandboxPage = (hostOrigin: string, allow: string) =>
  `<!doctype html>
<html><head><meta charset="utf-8"><style>html,body{margin:0;height:100%}iframe{border:0;width:100%;height:100%}</style></head>
<body><script>
(() => {
  const host = ${JSON.stringify(hostOrigin)}
  const own = window.location.origin
  if (window.parent === window) throw new Error("the sandbox proxy runs in a frame")
  const inner = document.createElement("iframe")
  inner.setAttribute("sandbox", ${JSON.stringify(sandboxAttribute)})
  document.body.appendChild(inner)
  let loaded = false
  let held = []
  window.addEventListener("message", (event) => {
    if (event.source === window.parent) {
      if (event.origin !== host) return
      const message = event.data
      if (message && message.method === "ui/notifications/sandbox-host-ready") {
        if (held === undefined) return
        const passed = held
        held = undefined
        for (const said of passed) window.parent.postMessage(said, host)
        return
      }
      if (message && message.method === "ui/notifications/sandbox-resource-ready") {
        if (loaded) return
        loaded = true
        const params = message.params || {}
        if (typeof params.sandbox === "string") inner.setAttribute("sandbox", params.sandbox)
        const allow = ${JSON.stringify(allow)}
        if (allow !== "") inner.setAttribute("allow", allow)
        const doc = inner.contentDocument
        doc.open()
        doc.write(typeof params.html === "string" ? params.html : "")
        doc.close()
        return
      }
      if (message && typeof message.method === "string" && message.method.startsWith("ui/notifications/sandbox-")) return
      inner.contentWindow.postMessage(message, own)
    } else if (event.source === inner.contentWindow) {
      if (event.origin !== own) return
      const message = event.data
      if (message && typeof message.method === "string" && message.method.startsWith("ui/notifications/sandbox-")) return
      if (held === undefined) window.parent.postMessage(message, host)
      else if (held.length < ${maxHeld}) held.push(message)
    }
  })
  window.parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/sandbox-proxy-ready", params: {} }, host)
})()
</script></body></html>
`
