/**
 * `mcp app` (apps/cli, built) in a real browser: Debian's chromium (installed by scripts/services.mjs when
 * missing) driven by playwright-core. The host renders the demo's counter view (apps/everything over
 * stdio) behind its sandbox proxy on a second origin, through the official AppBridge: the view
 * initializes, receives the tool's input and result, calls its app-only tool through the bridge and shows
 * the answer; what it says to the conversation reaches stdout; its CSP refuses the host page's origin; a
 * flood of bridge requests is refused beyond the bound and the host goes on. Then the view of an official
 * example server (@modelcontextprotocol/server-basic-vanillajs), a view made with the official App class
 * served by our server (a model-only tool refused to it; a fetch to its declared connect domain allowed,
 * to another blocked), and views that cannot be rendered (one line, nothing served). The DOM is asserted,
 * never a screenshot.
 */
import { Services } from "@effect-mcp/test-support"
import { binary } from "@effect-mcp/test-support/Services"
import { afterAll, assert, beforeAll, describe, it, vi } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { type Browser, chromium, type Frame, type Page } from "playwright-core"
import * as Auth from "../auth/support.js"
import * as Programs from "../support/Programs.js"

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 })

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const mcpMain = Programs.mcpMain
const everything = Programs.demoMain
const stdio = `stdio:${process.execPath} ${everything} stdio`

/**
 * `mcp app …` running: its first stdout line (the page's URL), the lines after it, and `stop`; `env` its
 * environment, `onStderr` given each line it writes on stderr.
 */
const mcpAppWith = (
  options: { readonly env?: NodeJS.ProcessEnv; readonly cwd?: string; readonly onStderr?: (line: string) => void },
  ...args: ReadonlyArray<string>
) => {
  const child: ChildProcess = spawn(process.execPath, [mcpMain, "app", ...args], {
    cwd: options.cwd ?? root,
    env: options.env ?? process.env,
    stdio: ["ignore", "pipe", "pipe"]
  })
  const lines: Array<string> = []
  const waiters: Array<() => void> = []
  let buffered = ""
  let stderr = ""
  child.stdout!.on("data", (chunk) => {
    buffered += chunk
    let at: number
    while ((at = buffered.indexOf("\n")) >= 0) {
      lines.push(buffered.slice(0, at))
      buffered = buffered.slice(at + 1)
      for (const wake of waiters.splice(0)) wake()
    }
  })
  child.stderr!.on("data", (chunk) => {
    const before = stderr.length
    stderr += chunk
    const complete = stderr.lastIndexOf("\n") + 1
    if (complete > before) {
      const start = stderr.lastIndexOf("\n", before - 1) + 1
      for (const line of stderr.slice(start, complete - 1).split("\n")) options.onStderr?.(line)
    }
  })
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
  /** The `n`th stdout line (0: the URL), once printed; rejects if the command ends first. */
  const line = (n: number): Promise<string> =>
    lines.length > n ? Promise.resolve(lines[n]!) : Promise.race([
      new Promise<void>((resolve) => waiters.push(resolve)).then(() => line(n)),
      exited.then((code) => Promise.reject(new Error(`mcp app exited ${code}: ${stderr}`)))
    ])
  return { line, exited, stderr: () => stderr, stop: () => child.kill("SIGINT") }
}

const mcpApp = (...args: ReadonlyArray<string>) => mcpAppWith({}, ...args)

/** A bridge message posted to the host process as its page posts it (same origin): the answer. */
const post = (url: URL, message: object) =>
  new Promise<{ readonly result?: unknown; readonly error?: { readonly message: string } }>((resolve, reject) => {
    const request = http.request(new URL("/bridge", url), {
      method: "POST",
      headers: { "content-type": "application/json", origin: url.origin },
      agent: false
    }, (response) => {
      let body = ""
      response.on("data", (chunk) => (body += chunk))
      response.on("end", () => resolve(JSON.parse(body)))
    })
    request.on("error", reject)
    request.end(JSON.stringify(message))
  })

/** The view's frame: the sandbox proxy's inner frame (about:blank, written by the proxy). */
const viewFrame = async (page: Page): Promise<Frame> => {
  for (;;) {
    const proxy = page.frames().find((f) => f.parentFrame() === page.mainFrame())
    const view = proxy?.childFrames()[0]
    if (view !== undefined && (await view.$("#count")) !== null) return view
    await page.waitForEvent("framenavigated").catch(() => undefined)
  }
}

/** Waits until `selector`'s text is `text` (the DOM, as the page updates it). */
const textIs = (frame: Frame, selector: string, text: string) =>
  frame.waitForFunction(
    ([s, t]) => document.querySelector(s!)?.textContent === t,
    [selector, text] as const
  )

/**
 * `use` given the view's frame (the sandbox proxy's inner frame) once a page has opened `mcp app`'s URL; the host
 * stopped (its view torn down) and the page closed after, whatever happens.
 */
const inView = async (
  app: ReturnType<typeof mcpAppWith>,
  use: (view: Frame, page: Page) => Promise<void>,
  options?: Parameters<Browser["newPage"]>[0]
) => {
  const page = await browser.newPage(options)
  try {
    await page.goto(await app.line(0))
    const proxy = await page.waitForSelector("iframe").then((frame) => frame.contentFrame())
    await use((await proxy!.waitForSelector("iframe").then((frame) => frame.contentFrame()))!, page)
  } finally {
    app.stop()
    await app.exited
    await page.close()
  }
}

/** apps/everything over HTTP on a free port, once it says it listens: its URL, and `kill` to end it. */
const everythingOverHttp = async () => {
  const port = await Effect.runPromise(Services.freePort)
  const server = spawn(process.execPath, [everything, "http", "--port", String(port)], {
    cwd: root,
    stdio: ["ignore", "ignore", "pipe"]
  })
  const url = `http://127.0.0.1:${port}/mcp`
  await new Promise<void>((resolve) => server.stderr.on("data", (chunk) => String(chunk).includes(url) && resolve()))
  return { url, kill: () => server.kill() }
}

let browser: Browser

beforeAll(async () => {
  const executablePath = await Effect.runPromise(binary("chromium", "chromium"))
  browser = await chromium.launch({ executablePath, args: ["--no-sandbox", "--disable-gpu"] })
})

afterAll(async () => {
  await browser?.close()
})

describe("mcp app: the demo's counter view in chromium", () => {
  it("initializes, gets the input and the result, calls its app-only tool; what it says reaches stdout", async () => {
    const app = mcpApp(stdio, "show_counter", "--args", "{\"start\":5}")
    const page = await browser.newPage()
    try {
      const url = await app.line(0)
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/$/)
      await page.goto(url)
      const view = await viewFrame(page)
      // The tool's input, then its result, delivered through AppBridge.
      await textIs(view, "#input", "{\"start\":5}")
      await textIs(view, "#count", "5")
      await textIs(view, "#status", "ready")
      await page.waitForFunction(() => document.getElementById("status")?.textContent === "result delivered")
      // The button calls counter_increment (visibility ["app"]) through the bridge and our client.
      await view.click("#increment")
      await textIs(view, "#count", "6")
      await textIs(view, "#status", "ready")
      // The view's origin is the sandbox's, not the host page's.
      assert.notStrictEqual(await view.evaluate(() => window.origin), new URL(url).origin)

      // A ui/message from the view: one JSON line on stdout after the URL.
      await view.evaluate(() =>
        window.parent.postMessage({
          jsonrpc: "2.0",
          id: 1001,
          method: "ui/message",
          params: { role: "user", content: [{ type: "text", text: "hello from the view" }] }
        }, "*")
      )
      const said = JSON.parse(await app.line(1))
      assert.strictEqual(said.method, "ui/message")
      assert.deepStrictEqual(said.params.content, [{ type: "text", text: "hello from the view" }])

      // A tool the server does not list is refused by the host, and the view told so.
      const refused = await view.evaluate(() =>
        new Promise<string>((resolve) => {
          window.addEventListener("message", (event) => {
            if (event.data?.id === 1002) resolve(event.data.error?.message ?? "answered")
          })
          window.parent.postMessage({
            jsonrpc: "2.0",
            id: 1002,
            method: "tools/call",
            params: { name: "nope", arguments: {} }
          }, "*")
        })
      )
      assert.match(refused, /tool nope is not listed by the server/)

      // The sandbox's CSP (connect-src 'none': the view declared no connectDomains) refuses a fetch of
      // the host page's origin: a no-cors fetch, which CORS alone would let through (opaque).
      const fetched = await view.evaluate((origin) =>
        new Promise<string>((resolve) => {
          document.addEventListener(
            "securitypolicyviolation",
            (event) => resolve(`blocked ${event.effectiveDirective}`)
          )
          fetch(`${origin}/session`, { mode: "no-cors" }).then(() => resolve("fetched"), () => undefined)
        }), new URL(url).origin)
      assert.strictEqual(fetched, "blocked connect-src")

      // Interrupted: the view is torn down (ui/resource-teardown, answered) before the host stops.
      app.stop()
      await app.exited
      assert.match(app.stderr(), /^mcp app: the view was torn down$/m)
      await page.waitForFunction(() => document.getElementById("status")?.textContent === "torn down")
    } finally {
      // Stopped with its page open: the view answers its teardown, and the host ends at once.
      app.stop()
      await app.exited
      await page.close()
    }
  })

  it("over HTTP: a flood of bridge requests refused beyond the bound, malformed ones too; the host goes on", async () => {
    const server = await everythingOverHttp()
    const app = mcpApp(server.url, "show_counter")
    const page = await browser.newPage()
    try {
      await page.goto(await app.line(0))
      const view = await viewFrame(page)
      await textIs(view, "#status", "ready")
      // 500 tools/call at once: at most 16 are in flight; the others are refused at once.
      const answers = await view.evaluate(() =>
        new Promise<{ readonly ok: number; readonly refused: number }>((resolve) => {
          let ok = 0
          let refused = 0
          window.addEventListener("message", (event) => {
            const id = event.data?.id
            if (typeof id !== "number" || id < 5000) return
            if (event.data.error !== undefined && /too many/.test(event.data.error.message)) refused++
            else if (event.data.result !== undefined) ok++
            if (ok + refused === 500) resolve({ ok, refused })
          })
          for (let i = 0; i < 500; i++) {
            window.parent.postMessage({
              jsonrpc: "2.0",
              id: 5000 + i,
              method: "tools/call",
              params: { name: "counter_increment", arguments: { count: i } }
            }, "*")
          }
        })
      )
      assert.isAbove(answers.ok, 0)
      assert.isAbove(answers.refused, 0)
      // The host process bounds them too, whoever posts (its page or not): 200 at once straight to it.
      const url = new URL(await app.line(0))
      const posted = await Promise.all(
        Array.from(
          { length: 200 },
          (_, i) => post(url, { method: "tools/call", params: { name: "counter_increment", arguments: { count: i } } })
        )
      )
      assert.isAbove(posted.filter((a) => a.result !== undefined).length, 0)
      assert.isAbove(posted.filter((a) => /too many bridge requests in flight/.test(a.error?.message ?? "")).length, 0)
      // Malformed messages (not JSON-RPC, a method that is not a string) are dropped by the bridge; a request
      // over the size bound of one message is refused, in one line.
      const oversized = await view.evaluate(() =>
        new Promise<string>((resolve) => {
          window.addEventListener("message", (event) => {
            if (event.data?.id === 9000) resolve(event.data.error?.message ?? "answered")
          })
          for (const junk of ["junk", 42, null, { jsonrpc: "2.0" }, { jsonrpc: "2.0", id: 8999, method: 5 }]) {
            window.parent.postMessage(junk, "*")
          }
          window.parent.postMessage({
            jsonrpc: "2.0",
            id: 9000,
            method: "tools/call",
            params: { name: "counter_increment", arguments: { count: 1, pad: "x".repeat(2 * 1024 * 1024) } }
          }, "*")
        })
      )
      assert.strictEqual(oversized, "a bridge message is at most 1048576 bytes")
      // The host still serves the view.
      await view.click("#increment")
      await textIs(view, "#count", "1")
    } finally {
      // Stopped with its page open: the view answers its teardown, and the host ends at once.
      app.stop()
      await app.exited
      await page.close()
      server.kill()
    }
  })
})

describe("mcp app: the host page's server answers its page alone", () => {
  it("another site's request gets nothing but the page (fetch metadata, Origin); the page cannot be framed", async () => {
    const app = mcpApp(stdio, "show_counter")
    try {
      const url = new URL(await app.line(0))
      const get = (at: string, headers: Record<string, string>) =>
        new Promise<{ readonly status: number; readonly csp: string }>((resolve, reject) => {
          const request = http.get(new URL(at, url), { headers, agent: false }, (response) => {
            response.destroy()
            resolve({ status: response.statusCode!, csp: String(response.headers["content-security-policy"] ?? "") })
          })
          request.on("error", reject)
        })
      const page = await get("/", { "sec-fetch-site": "cross-site" })
      assert.strictEqual(page.status, 200)
      assert.match(page.csp, /frame-ancestors 'none'/)
      for (const at of ["/events", "/session", "/result", "/host.js"]) {
        const crossSite = await get(at, { "sec-fetch-site": "cross-site", origin: "http://elsewhere.example" })
        assert.strictEqual(crossSite.status, 403, at)
        assert.strictEqual((await get(at, {})).status, 403, at)
      }
      assert.strictEqual((await get("/session", { "sec-fetch-site": "same-origin" })).status, 200)
      assert.strictEqual((await get("/session", { origin: url.origin })).status, 200)
    } finally {
      app.stop()
      await app.exited
    }
  })
})

describe("mcp app: a server nobody here wrote (@modelcontextprotocol/server-basic-vanillajs, its view the official App)", () => {
  const basic = path.join(root, "test/node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js")

  it("renders the view with the tool's result; its call, message and log go through our host", async () => {
    const app = mcpApp(`stdio:${process.execPath} ${basic} --stdio`, "get-time")
    const page = await browser.newPage()
    try {
      await page.goto(await app.line(0))
      const proxy = await page.waitForSelector("iframe").then((frame) => frame.contentFrame())
      const view = await proxy!.waitForSelector("iframe").then((frame) => frame.contentFrame())
      // The tool's result (an ISO time) shown by the App class's ontoolresult.
      const time = /^\d{4}-\d\d-\d\dT/
      await view!.waitForFunction(
        (re) => new RegExp(re).test(document.getElementById("server-time")?.textContent ?? ""),
        time.source
      )
      await page.waitForFunction(() => document.getElementById("status")?.textContent === "result delivered")
      // Its button calls get-time through the bridge (callServerTool): the time is shown again.
      await view!.evaluate(() => (document.getElementById("server-time")!.textContent = "waiting"))
      await view!.click("#get-time-btn")
      await view!.waitForFunction(
        (re) => new RegExp(re).test(document.getElementById("server-time")?.textContent ?? ""),
        time.source
      )
      // sendMessage and sendLog: a JSON line each on stdout.
      await view!.fill("#message-text", "hello from the official App")
      await view!.click("#send-message-btn")
      const message = JSON.parse(await app.line(1))
      assert.strictEqual(message.method, "ui/message")
      assert.deepStrictEqual(message.params.content, [{ type: "text", text: "hello from the official App" }])
      await view!.fill("#log-text", "a log line")
      await view!.click("#send-log-btn")
      const log = JSON.parse(await app.line(2))
      assert.deepStrictEqual(log, { method: "notifications/message", params: { level: "info", data: "a log line" } })
    } finally {
      // Stopped with its page open: the view answers its teardown, and the host ends at once.
      app.stop()
      await app.exited
      await page.close()
    }
  })
})

describe("mcp app: a view made with the official App class, served by our server", () => {
  const fixture = path.join(root, "test/cli/fixtures/apps-server.mjs")

  /** A local server answering every request 200 (to any origin, CORS-wise): its origin. */
  const origin = async (): Promise<{ readonly url: string; readonly close: () => void }> => {
    const server = http.createServer((_, response) => {
      response.writeHead(200, { "access-control-allow-origin": "*", "content-type": "text/plain" })
      response.end("hello")
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()))
    return {
      url: `http://127.0.0.1:${(server.address() as { readonly port: number }).port}`,
      close: () => server.close()
    }
  }

  it("input and result delivered; its app-only tool answers, a model-only one is refused; CSP: the declared origin only", async () => {
    const allowed = await origin()
    const denied = await origin()
    const app = mcpApp(
      `stdio:${process.execPath} ${fixture} ${allowed.url} ${denied.url}`,
      "show",
      "--args",
      "{\"word\":\"hi\"}"
    )
    const page = await browser.newPage()
    try {
      await page.goto(await app.line(0))
      const proxy = await page.waitForSelector("iframe").then((frame) => frame.contentFrame())
      const view = (await proxy!.waitForSelector("iframe").then((frame) => frame.contentFrame()))!
      await textIs(view, "#status", "connected")
      await textIs(view, "#input", "{\"word\":\"hi\"}")
      await textIs(view, "#result", "shown: hi")
      await view.click("#call")
      await textIs(view, "#called", "echo: from the view")
      await view.click("#call-secret")
      await view.waitForFunction(() => document.getElementById("called-secret")?.textContent !== "")
      assert.match(
        (await view.textContent("#called-secret"))!,
        /^refused: .*tool secret may not be called by a view \(its visibility has no "app"\)/
      )
      await view.click("#fetch")
      await textIs(view, "#fetched", "allowed ok 200, denied blocked")
    } finally {
      // Stopped with its page open: the view answers its teardown, and the host ends at once.
      app.stop()
      await app.exited
      await page.close()
      allowed.close()
      denied.close()
    }
  })
  it("host context: theme, display modes, the container's dimensions given and their changes followed; fullscreen taken, pip refused; a file downloaded", async () => {
    const app = mcpApp(`stdio:${process.execPath} ${fixture}`, "show", "--args", "{\"word\":\"hi\"}")
    await inView(app, async (view, page) => {
      await textIs(view, "#status", "connected")
      /** Waits until the view's host context has `expected`'s fields (JSON-equal, whatever the keys' order). */
      const contextHas = (expected: Record<string, unknown>) =>
        view.waitForFunction((e) => {
          const canon = (x: unknown): unknown =>
            Array.isArray(x)
              ? x.map(canon)
              : typeof x === "object" && x !== null
              ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, canon((x as Record<string, unknown>)[k])]))
              : x
          const c = JSON.parse(document.getElementById("context")?.textContent || "{}")
          return Object.entries(e).every(([k, v]) => JSON.stringify(canon(c[k])) === JSON.stringify(canon(v)))
        }, expected)
      // The page's body has a margin of 16 px on each side: the container is 32 px narrower than the window.
      await contextHas({
        theme: "light",
        displayMode: "inline",
        availableDisplayModes: ["inline", "fullscreen"],
        containerDimensions: { maxWidth: 768, maxHeight: 2000 },
        platform: "web"
      })
      await page.emulateMedia({ colorScheme: "dark" })
      await contextHas({ theme: "dark" })
      await page.setViewportSize({ width: 600, height: 500 })
      await contextHas({ containerDimensions: { maxWidth: 568, maxHeight: 2000 } })
      // A mode this host does not have: the current one answered, nothing changed.
      await view.click("#pip")
      await textIs(view, "#mode", "inline")
      await view.click("#fullscreen")
      await textIs(view, "#mode", "fullscreen")
      await contextHas({ displayMode: "fullscreen", containerDimensions: { width: 600, height: 500 } })
      assert.deepInclude(await page.locator("#sandbox").boundingBox(), { x: 0, y: 0, width: 600, height: 500 })
      await view.click("#inline")
      await textIs(view, "#mode", "inline")
      await contextHas({ displayMode: "inline", containerDimensions: { maxWidth: 568, maxHeight: 2000 } })
      assert.strictEqual((await page.locator("#sandbox").boundingBox())!.x, 16)
      // A file the view offers: the user asked first; refused, nothing saved and the view told isError.
      const asked: Array<string> = []
      page.once("dialog", (dialog) => {
        asked.push(dialog.message())
        void dialog.dismiss()
      })
      await view.click("#download")
      await textIs(view, "#downloaded", "failed")
      assert.deepStrictEqual(asked, ["The view offers file:///notes.txt. Download?"])
      // More than 16 items (or 8 MiB) in a request: refused unasked.
      const many = await view.evaluate(() =>
        new Promise<unknown>((resolve) => {
          window.addEventListener("message", (event) => {
            if (event.data?.id === 1003) resolve(event.data.result ?? event.data.error)
          })
          const contents = Array.from({ length: 17 }, (_, i) => ({
            type: "resource",
            resource: { uri: `file:///${i}.txt`, mimeType: "text/plain", text: "x" }
          }))
          window.parent.postMessage({ jsonrpc: "2.0", id: 1003, method: "ui/download-file", params: { contents } }, "*")
        })
      )
      assert.deepStrictEqual(many, { isError: true })
      const big = await view.evaluate(() =>
        new Promise<unknown>((resolve) => {
          window.addEventListener("message", (event) => {
            if (event.data?.id === 1004) resolve(event.data.result ?? event.data.error)
          })
          const contents = [{
            type: "resource",
            resource: { uri: "file:///big.txt", text: "x".repeat(9 * 1024 * 1024) }
          }]
          window.parent.postMessage({ jsonrpc: "2.0", id: 1004, method: "ui/download-file", params: { contents } }, "*")
        })
      )
      assert.deepStrictEqual(big, { isError: true })
      assert.deepStrictEqual(asked.length, 1)
      // Accepted: saved by the browser under its name, what was offered said on stdout.
      page.once("dialog", (dialog) => void dialog.accept())
      const [download] = await Promise.all([page.waitForEvent("download"), view.click("#download")])
      assert.strictEqual(download.suggestedFilename(), "notes.txt")
      const saved = await download.createReadStream()
      let text = ""
      for await (const chunk of saved) text += chunk
      assert.strictEqual(text, "hello from the view")
      await textIs(view, "#downloaded", "done")
      assert.deepStrictEqual(JSON.parse(await app.line(1)), {
        method: "ui/download-file",
        params: { contents: [{ type: "resource", uri: "file:///notes.txt", mimeType: "text/plain", bytes: 19 }] }
      })
    }, { viewport: { width: 800, height: 600 }, colorScheme: "light" })
  })
})

describe("mcp app: the README's Apps section (test/readme/clock.ts, run by tsx)", () => {
  it("shows the clock's view (clock.html, read from the folder the server runs in) with the time its tool answered", async () => {
    // As the README runs it: in the folder of clock.ts and clock.html.
    const app = mcpAppWith(
      { cwd: path.join(root, "test/readme") },
      `stdio:${process.execPath} --conditions=@effect-mcp/source --import tsx clock.ts`,
      "show_time"
    )
    await inView(app, async (view, page) => {
      await view.waitForFunction(() => /^\d{4}-\d\d-\d\dT/.test(document.getElementById("time")?.textContent ?? ""))
      await page.waitForFunction(() => document.getElementById("status")?.textContent === "result delivered")
    })
  })
})

describe("mcp app: what it cannot show is one line on stderr, exit 1", () => {
  it("a view over the bound, of the wrong MIME type, or that the server does not serve: nothing served", async () => {
    const bad = `stdio:${process.execPath} ${path.join(root, "test/cli/fixtures/bad-apps-server.mjs")}`
    const cases = [
      ["big", "View ui://bad/big: its HTML is at least 5242902 bytes, over the bound of 4194304"],
      ["wrong_mime", "View ui://bad/wrong: it is served as text/html, not text/html;profile=mcp-app"],
      [
        "missing",
        "View ui://bad/missing: the server cannot give it (MCP error -32602: Resource ui://bad/missing not found)"
      ]
    ] as const
    await Promise.all(cases.map(async ([tool, reason]) => {
      const app = mcpApp(bad, tool)
      assert.strictEqual(await app.exited, 1, tool)
      assert.strictEqual(app.stderr(), `mcp: ${reason}\n`)
    }))
  })

  it("a tool without a view, one for its view only, one not listed", async () => {
    const cases = [
      ["add", "tool add has no view (no _meta.ui.resourceUri)"],
      ["counter_increment", "tool counter_increment is for its view only (visibility [\"app\"])"],
      ["nope", "tool nope is not listed by the server"]
    ] as const
    await Promise.all(cases.map(async ([tool, reason]) => {
      const app = mcpApp(stdio, tool)
      assert.strictEqual(await app.exited, 1, tool)
      assert.strictEqual(app.stderr(), `mcp: ${reason}\n`)
    }))
  })
})

// Authorization is the client's HTTP, the same on every Node: run where CI runs the suite first (Node 20), as
// test/auth/Cli.test.ts is.
describe.runIf(process.versions.node.startsWith("20."))("mcp app: an HTTP server that asks for authorization", () => {
  it.scopedLive(
    "authorizes as the other commands do (the URL on stderr, the user's browser through it), then serves the view; the view's calls carry the token",
    () =>
      Effect.gen(function*() {
        const fixture = yield* Auth.start({ apps: true })
        const user = Auth.makeBrowser()
        const directory = yield* Effect.acquireRelease(
          Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "mcp-app-auth-"))),
          (directory) => Effect.sync(() => fs.rmSync(directory, { recursive: true, force: true }))
        )
        // The user's configuration out of reach: a token file of the test's own.
        const home = path.join(directory, "home")
        const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") }
        for (const name of Object.keys(env)) {
          if (name.startsWith("MCP_")) delete env[name]
        }
        const authorizations: Array<Promise<void>> = []
        const app = mcpAppWith(
          {
            env,
            onStderr: (line) => {
              const url = /^mcp: to authorize, open (\S+)$/.exec(line)?.[1]
              if (url !== undefined) authorizations.push(Effect.runPromise(user.onUrl(url)))
            }
          },
          fixture.url,
          "show_whoami",
          "--token-store",
          path.join(directory, "tokens.json")
        )
        yield* Effect.promise(() =>
          inView(app, async (view) => {
            // Printed once the authorization was done: the page's URL comes after it.
            assert.strictEqual(user.opened.length, 1, app.stderr())
            await Promise.all(authorizations)
            await textIs(view, "#answer", Auth.whoamiAnswer)
            await view.click("#ask")
            await textIs(view, "#asked", Auth.whoamiAnswer)
          })
        )
        // Asked for authorization first (a 401 without a token); then every request it served (the tool's call,
        // the view's read, the view's own call) carried a token for it.
        assert.isAtLeast(fixture.seen.refused.withoutToken, 1)
        assert.strictEqual(fixture.seen.authorizations, 1)
        assert.isAtLeast(fixture.seen.served.length, 3)
        for (const request of fixture.seen.served) assert.strictEqual(request.audience, fixture.resource)
        assert.notInclude(app.stderr(), "eyJ", "no token printed")
      }),
    120_000
  )
})
