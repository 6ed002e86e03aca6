/**
 * The official MCP conformance suite's server scenarios (`serverSuite.ts`, as on Node: a warning is
 * a failure) against the demo on the other runtimes, each served by its root script on a free
 * loopback port: `pnpm run everything:bun` and `everything:deno` (`scripts/everything-web.mjs`:
 * `apps/everything/src/web.ts` through `HttpTransport.toWebHandler`, both eras on one endpoint)
 * get every scenario of 2026-07-28 and of 2025-11-25 (a session the runtime's process keeps);
 * `everything:workerd` (`scripts/everything-workerd.mjs`: `apps/everything/src/worker.ts`, a Worker
 * serving 2026-07-28 alone, as a Worker keeps no session) gets every scenario of 2026-07-28.
 *
 * One server per runtime serves its eras one after the other; the three runtimes run at once (the
 * suite mostly waits on the server's timers and streams), each bundling into a directory of its
 * own. The runtimes come from the npm registry as the scripts get them (scripts/runtimes.json).
 * These runs do not depend on the Node that runs the suite: CI runs them on Node 20 only.
 */
import { afterAll, beforeAll, describe, it } from "@effect/vitest"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { passes2025, passes2026, type Run, run } from "./serverSuite.js"

const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, "../..")
const work = fs.mkdtempSync(path.join(os.tmpdir(), "conformance-runtimes-"))

/** A runtime serving the demo: its URL and the root script's process. */
interface Served {
  readonly url: string
  readonly child: ChildProcess
}

/** Serves the demo with a root script on a free port of 127.0.0.1: its URL once it listens. */
const serve = (script: string, args: ReadonlyArray<string>, dir: string): Promise<Served> =>
  new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [path.join(root, "scripts", script), ...args, "--port", "0", "--out-dir", dir],
      {
        cwd: root,
        env: {
          ...process.env,
          MCP_REQUEST_STATE_KEY: "the requestState key of the runtimes' conformance runs, 32+ bytes",
          NO_COLOR: "1"
        },
        stdio: ["ignore", "ignore", "pipe"]
      }
    )
    let err = ""
    child.stderr!.setEncoding("utf8").on("data", (text: string) => {
      err += text
      const listening = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err)
      if (listening !== null) resolve({ url: listening[1], child })
    })
    child.once(
      "exit",
      (code) => reject(new Error(`${script} ${args.join(" ")} exited (${code}) before listening: ${err}`))
    )
    child.once("error", reject)
  })

/** Stops a runtime (SIGTERM, which its script passes on) and waits for its exit. */
const stop = (served: Served) =>
  new Promise<void>((resolve) => {
    if (served.child.exitCode !== null || served.child.signalCode !== null) return resolve()
    served.child.once("exit", () => resolve())
    served.child.kill("SIGTERM")
  })

type Era = Run["era"]

const runtimes: ReadonlyArray<{
  readonly name: string
  readonly script: string
  readonly args: ReadonlyArray<string>
  readonly eras: ReadonlyArray<Era>
}> = [
  { name: "Bun", script: "everything-web.mjs", args: ["bun"], eras: ["2026-07-28", "2025-11-25"] },
  { name: "Deno", script: "everything-web.mjs", args: ["deno"], eras: ["2026-07-28", "2025-11-25"] },
  {
    name: "workerd",
    script: "everything-workerd.mjs",
    args: ["--host", "127.0.0.1"],
    eras: ["2026-07-28"]
  }
]

/** Each runtime's run of each era, by `runtime era`: started by `beforeAll`, awaited by each test. */
const runs = new Map<string, Promise<Run>>()

/** Each runtime stopped once its eras have run (or its server did not start). */
const stopped: Array<Promise<void>> = []

beforeAll(() => {
  for (const runtime of runtimes) {
    const dir = path.join(work, runtime.name)
    fs.mkdirSync(dir)
    const served = serve(runtime.script, runtime.args, dir)
    // The eras one after the other on the one server, then the server stopped.
    let previous: Promise<unknown> = served
    for (const era of runtime.eras) {
      const result = previous.then(() => served).then((server) => run(server.url, era))
      // Awaited by its test; handled here so that it is not an unhandled rejection before then.
      result.catch(() => undefined)
      runs.set(`${runtime.name} ${era}`, result)
      previous = result
    }
    stopped.push(previous.then(() => undefined, () => undefined).then(() => served).then(stop, () => undefined))
  }
})

afterAll(async () => {
  await Promise.all(stopped)
  fs.rmSync(work, { recursive: true, force: true })
}, 30_000)

for (const runtime of runtimes) {
  describe(`official conformance suite, server, the demo on ${runtime.name}`, () => {
    for (const era of runtime.eras) {
      it(`passes every ${era} scenario, nothing warned`, async () => {
        const result = await runs.get(`${runtime.name} ${era}`)!
        ;(era === "2026-07-28" ? passes2026 : passes2025)(result, `${runtime.name} ${era}`)
      }, 300_000)
    }
  })
}
