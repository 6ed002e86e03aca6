/**
 * `pnpm bench:app`: `mcp app` (the bundled command) from its start to the view's first paint, the demo's
 * counter view over stdio (the demo bundled too), in Debian's chromium driven by playwright-core (the
 * browser started once, before: a user's browser is running already). Median of BENCH_APP_RUNS (5):
 *
 * - server: the demo alone, spawned to its answer to `initialize` (the server's own startup);
 * - url: `mcp app` spawned to its first stdout line (the page's URL: the server started, the tool
 *   called, the view read and verified, both HTTP servers listening);
 * - painted: to the view painted with the tool's result (`#count` shows it at an animation frame, the time
 *   read in the page; the page opened in a tab made before `mcp app` starts).
 *
 * No target beyond "under a second after the server's own startup". A benchmark, not a test.
 *
 * BENCH_APP_MCP: bundles of `mcp` to compare (comma-separated paths, default apps/cli/dist/mcp.mjs), their
 * runs interleaved (the same machine's load for each), a table each.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { chromium } from "playwright-core"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const bundles = (process.env.BENCH_APP_MCP ?? path.join(root, "apps/cli/dist/mcp.mjs")).split(",")
const everything = path.join(root, "apps/everything/dist/everything.mjs")
const runs = Number(process.env.BENCH_APP_RUNS ?? 5)
const executablePath = ["/usr/bin/chromium", "/usr/local/bin/chromium"].find((p) => fs.existsSync(p))
if (executablePath === undefined) throw new Error("chromium is not installed (node scripts/services.mjs installs it)")

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

/** The demo spawned to its answer to `initialize`: ms. */
const serverStartup = () =>
  new Promise<number>((resolve) => {
    const started = performance.now()
    const child = spawn(process.execPath, [everything, "stdio"], { stdio: ["pipe", "pipe", "ignore"] })
    child.stdout.once("data", () => {
      resolve(performance.now() - started)
      child.kill()
    })
    child.stdin.write(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } }
      }) + "\n"
    )
  })

const browser = await chromium.launch({ executablePath, args: ["--no-sandbox", "--disable-gpu"] })
type Row = { server: number; url: number; painted: number }
const rows = new Map<string, Array<Row>>(bundles.map((mcp) => [mcp, []]))
try {
  for (let i = 0; i < runs * bundles.length; i++) {
    const mcp = bundles[i % bundles.length]!
    const server = await serverStartup()
    // A tab open already (a user's browser has one): the harness's own page creation is not mcp app's time.
    const page = await browser.newPage()
    const started = performance.now()
    const startedAt = performance.timeOrigin + started
    const child = spawn(process.execPath, [
      mcp,
      "app",
      `stdio:${process.execPath} ${everything} stdio`,
      "show_counter",
      "--args",
      "{\"start\":5}"
    ], { stdio: ["ignore", "pipe", "ignore"] })
    const url = await new Promise<string>((resolve) => {
      let seen = ""
      child.stdout.on("data", (chunk) => {
        seen += chunk
        if (seen.includes("\n")) resolve(seen.slice(0, seen.indexOf("\n")))
      })
    })
    const printed = performance.now() - started
    await page.goto(url, { waitUntil: "commit" })
    const proxy = await page.waitForSelector("iframe").then((frame) => frame.contentFrame())
    const view = (await proxy!.waitForSelector("iframe").then((frame) => frame.contentFrame()))!
    // Seen in the page, at the animation frame that draws it (polled at each one: the browser's clock, not
    // the round trips of the harness to it); at most that, if the count was shown before the polling began.
    const seen = await view.waitForFunction(
      () => document.getElementById("count")?.textContent === "5" && performance.timeOrigin + performance.now(),
      undefined,
      { polling: "raf" }
    )
    const painted = (await seen.jsonValue() as number) - startedAt
    rows.get(mcp)!.push({ server, url: printed, painted })
    await page.close()
    child.kill("SIGINT")
    await new Promise((resolve) => child.once("exit", resolve))
  }
} finally {
  await browser.close()
}
const ms = (n: number) => `${n.toFixed(0)} ms`
for (const [mcp, of] of rows) {
  process.stdout.write(
    `mcp app (${path.relative(process.cwd(), mcp)}), the demo's counter view (median of ${runs}):\n` +
      `  server startup (initialize answered)   ${ms(median(of.map((r) => r.server)))}\n` +
      `  mcp app start to the page's URL        ${ms(median(of.map((r) => r.url)))}\n` +
      `  mcp app start to the view's paint      ${ms(median(of.map((r) => r.painted)))}\n` +
      `  paint after the server's own startup   ${ms(median(of.map((r) => r.painted - r.server)))}\n`
  )
}
