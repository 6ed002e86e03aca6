/**
 * `npm create @effect-mcp` and `npx @effect-mcp/cli` as a user gets them: every package packed with `pnpm pack`
 * (which builds it, and bundles the two commands), and nothing else of this repository used.
 *
 * - `create-effect-mcp` runs from its tarball (`npm exec --package=<tgz>`, what `npm create @effect-mcp` does with
 *   the registry's), in an empty folder.
 * - The project it writes names our packages by version (`^0.1.0`); they are not on the registry yet, so the test
 *   rewrites each `@effect-mcp/…` of its `package.json` to `file:<its tarball>`, and adds an `overrides` entry of
 *   the same for each, so that the ones it gets through another (`@effect-mcp/core`) come from the tarballs too.
 *   Everything else comes from the registry of today, with the project's own ranges, and plain `npm install` (no
 *   `--legacy-peer-deps`): a range that resolves to a line our packages refuse fails here.
 * - In it: `npm install`, `npx tsc`, `npx vitest run`, `node dist/server.js` (a handshake over its stdin) and
 *   `npx @effect-mcp/cli tools stdio:node dist/server.js` (unquoted, as the README says it; and `mcp` from its
 *   tarball alone, `npm exec --package=<tgz>`, in an empty folder: no dependency to install; and its `mcp app`,
 *   the file taken out of the tarball alone, rendering the demo's view in chromium with the page's script it
 *   carries: no esbuild, no ext-apps beside it). Once with the
 *   defaults, once with every extra: its HTTP endpoint an OAuth resource server (401 and its metadata), sessions and
 *   tasks on a real `redis-server` (the server's connections seen by Redis), spans exported over OTLP to a collector
 *   of the test's (each extra alone is compiled by `apps/create/test`, every combination).
 * - The hint `NodeTelemetry` prints when its optional packages are missing, installed exactly as it says (in the
 *   default project, which has none of them), after which what asked for them works.
 *
 * One npm cache folder serves every install of the file. CI runs it under Node 20 and Node 22.
 */
import { Services } from "@effect-mcp/test-support"
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { execFile, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { chromium } from "playwright-core"
import * as Packed from "../support/Packed.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
/** Ours, by folder: what a project may name, and the two commands. */
const folders = {
  core: "packages/core",
  server: "packages/server",
  client: "packages/client",
  "platform-node": "packages/platform-node",
  redis: "packages/redis",
  cli: "apps/cli",
  create: "apps/create"
} as const

const work = fs.mkdtempSync(path.join(os.tmpdir(), "effect-mcp-create-"))

/**
 * What every command of the project runs with: this test's Node first on the PATH (npm is `#!/usr/bin/env node`),
 * no colours, one npm cache for every install of the file.
 */
const { FORCE_COLOR: _, ...inherited } = process.env
const env: Record<string, string | undefined> = {
  ...inherited,
  NO_COLOR: "1",
  PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}`,
  npm_config_cache: path.join(work, "npm-cache"),
  npm_config_audit: "false",
  npm_config_fund: "false",
  npm_config_update_notifier: "false"
}

/** A command run to its end without blocking the worker; its stdout, or a failure with both outputs. */
const run = async (
  command: string,
  args: ReadonlyArray<string>,
  cwd: string,
  extra: Record<string, string> = {}
): Promise<string> => {
  try {
    const { stdout } = await promisify(execFile)(command, [...args], {
      cwd,
      env: { ...env, ...extra },
      encoding: "utf8",
      maxBuffer: 16 * 1024 * 1024
    })
    return stdout
  } catch (error) {
    const failed = error as { message: string; stdout?: string; stderr?: string }
    throw new Error(`${command} ${args.join(" ")}: ${failed.message}\n${failed.stdout ?? ""}\n${failed.stderr ?? ""}`)
  }
}

const npm = (args: ReadonlyArray<string>, cwd: string, extra: Record<string, string> = {}) =>
  run("npm", args, cwd, extra)
const npx = (args: ReadonlyArray<string>, cwd: string, extra: Record<string, string> = {}) =>
  run("npx", args, cwd, extra)

type Ours = keyof typeof folders

/** Every package packed (once in the run: `Packed.packed`). */
const packed: Promise<Record<Ours, string>> = (async () => {
  const destination = Packed.packedFolder
  const tarballs: Partial<Record<Ours, string>> = {}
  for (const [name, folder] of Object.entries(folders) as ReadonlyArray<[Ours, string]>) {
    tarballs[name] = await Packed.packed(folder)
  }
  // The two commands are one bundle each (`scripts/bundle.mjs`: the entry and the chunks it loads when first
  // used), with nothing to install beside it.
  for (const [name, bin] of [["cli", "mcp"], ["create", "create"]] as const) {
    const listing = (await run("tar", ["-tzf", tarballs[name]!], destination)).trim().split("\n").sort()
    const chunk = new RegExp(`^package/dist/${bin}-.+-[A-Z0-9]{8}\\.mjs$`)
    assert.deepStrictEqual(listing.filter((file) => !chunk.test(file)), [
      "package/LICENSE",
      "package/README.md",
      `package/dist/${bin}.mjs`,
      "package/package.json"
    ])
    const manifest = JSON.parse(await run("tar", ["-xzOf", tarballs[name]!, "package/package.json"], destination))
    assert.isUndefined(manifest.dependencies, `@effect-mcp/${name} has no dependencies`)
    assert.isUndefined(manifest.private)
  }
  return tarballs as Record<Ours, string>
})()
// Awaited by the tests; a failure is theirs, not an unhandled rejection of the module.
packed.catch(() => undefined)

/**
 * `mcp app` of the packed `mcp.mjs` (and its chunks), taken out of its tarball into a folder of its own (nothing
 * beside it to bundle the page's script with: it carries it): the demo's counter view (the workspace's build, over
 * stdio) rendered in chromium, the tool's result shown. What it printed: the URL, and its lines on stderr.
 */
const appFromTarball = async (tarball: string) => {
  const folder = fs.mkdtempSync(path.join(work, "mcp-alone-"))
  await run("tar", ["-xzf", tarball, "-C", folder, "--wildcards", "package/dist/mcp*.mjs"], folder)
  const mcp = path.join(folder, "package/dist/mcp.mjs")
  const help = await run(process.execPath, [mcp, "app", "--help"], folder)
  assert.include(help, "Calls a tool that has a view (MCP Apps)")
  const demo = `stdio:${process.execPath} ${path.join(root, "apps/everything/dist/main.js")} stdio`
  const child = spawn(process.execPath, [mcp, "app", demo, "show_counter", "--args", "{\"start\":5}"], {
    cwd: folder,
    env,
    stdio: ["ignore", "pipe", "pipe"]
  })
  let stderr = ""
  child.stderr.on("data", (chunk) => (stderr += chunk))
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve))
  const url = await Promise.race([
    new Promise<string>((resolve) => {
      let stdout = ""
      child.stdout.on("data", (chunk) => {
        stdout += chunk
        if (stdout.includes("\n")) resolve(stdout.slice(0, stdout.indexOf("\n")))
      })
    }),
    exited.then((code) => Promise.reject(new Error(`mcp app exited ${code}: ${stderr}`)))
  ])
  const browser = await chromium.launch({
    executablePath: await Effect.runPromise(Services.binary("chromium", "chromium")),
    args: ["--no-sandbox", "--disable-gpu"]
  })
  try {
    const page = await browser.newPage()
    await page.goto(url)
    const proxy = await page.waitForSelector("iframe").then((frame) => frame.contentFrame())
    const view = await proxy!.waitForSelector("iframe").then((frame) => frame.contentFrame())
    await view!.waitForFunction(() => document.getElementById("count")?.textContent === "5")
    await page.waitForFunction(() => document.getElementById("status")?.textContent === "result delivered")
  } finally {
    await browser.close()
    child.kill("SIGINT")
  }
  await exited
  return { url, stderr }
}

/** Makes a project with `create-effect-mcp` from its tarball, pointed at our tarballs, and installs it. */
const project = async (name: string, flags: ReadonlyArray<string>): Promise<string> => {
  const tarballs = await packed
  const folder = path.join(work, "projects")
  fs.mkdirSync(folder, { recursive: true })
  const said = await npm(
    ["exec", "--yes", `--package=${tarballs.create}`, "--", "create-effect-mcp", name, ...flags],
    folder
  )
  assert.include(said, `Created ${name}`)
  const dir = path.join(folder, name)
  const file = path.join(dir, "package.json")
  const manifest = JSON.parse(fs.readFileSync(file, "utf8"))
  const tarball = (dep: string) => `file:${tarballs[dep.slice("@effect-mcp/".length) as Ours]}`
  for (const field of ["dependencies", "devDependencies"]) {
    for (const dep of Object.keys(manifest[field])) {
      if (dep.startsWith("@effect-mcp/")) {
        // The version the project was given is the one packed.
        assert.strictEqual(
          manifest[field][dep],
          `^${JSON.parse(fs.readFileSync(path.join(root, "apps/create/package.json"), "utf8")).version}`
        )
        manifest[field][dep] = tarball(dep)
      }
    }
  }
  manifest.overrides = Object.fromEntries(
    (["core", "server", "client", "platform-node", "redis", "cli"] as const).map((
      name
    ) => [`@effect-mcp/${name}`, `file:${tarballs[name]}`])
  )
  fs.writeFileSync(file, JSON.stringify(manifest, null, 2))
  await npm(["install", "--loglevel=error"], dir)
  return dir
}

/** Builds the project, runs its tests, and lists its tools with `mcp` over stdio. */
const buildTestList = async (dir: string, extra: Record<string, string> = {}) => {
  await npx(["tsc"], dir)
  assert.isTrue(fs.existsSync(path.join(dir, "dist/server.js")), "tsc wrote dist/server.js")
  const tested = await npx(["vitest", "run"], dir)
  assert.match(tested, /Tests\s+4 passed \(4\)/)
  const listed = await npx(["@effect-mcp/cli", "tools", "stdio:node", "dist/server.js"], dir, extra)
  assert.strictEqual(listed.trim(), "add  Adds two numbers")
}

/**
 * `node dist/server.js` over its stdin: the handshake and `tools/list`; `during` runs once it has answered
 * `initialize`. Its stdin closed, it exits 0.
 */
const handshake = (dir: string, extra: Record<string, string>, during: () => Promise<void> = async () => {}) =>
  new Promise<ReadonlyArray<unknown>>((resolve, reject) => {
    const child = spawn(process.execPath, ["dist/server.js"], { cwd: dir, env: { ...env, ...extra } })
    let stdout = ""
    let stderr = ""
    const answers: Array<{ id?: number; result?: unknown }> = []
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`)
    child.stderr.on("data", (chunk) => stderr += chunk)
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8")
      let end: number
      while ((end = stdout.indexOf("\n")) !== -1) {
        const line = stdout.slice(0, end)
        stdout = stdout.slice(end + 1)
        const answer = JSON.parse(line)
        answers.push(answer)
        if (answer.id === 1) {
          during().then(() => {
            send({ jsonrpc: "2.0", method: "notifications/initialized" })
            send({ jsonrpc: "2.0", id: 2, method: "tools/list" })
          }, reject)
        } else if (answer.id === 2) child.stdin.end()
      }
    })
    child.once(
      "exit",
      (code) => code === 0 ? resolve(answers) : reject(new Error(`node dist/server.js exited ${code}: ${stderr}`))
    )
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "test", version: "1.0.0" } }
    })
  })

const toolNames = (answers: ReadonlyArray<unknown>) =>
  (answers.find((answer) => (answer as { id?: number }).id === 2) as { result: { tools: Array<{ name: string }> } })
    .result.tools.map((tool) => tool.name)

/** One command to Redis over RESP (a bulk string's text back). */
const redisCommand = (port: number, words: ReadonlyArray<string>) =>
  new Promise<string>((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1")
    let reply = ""
    socket.on("data", (chunk) => {
      reply += chunk.toString("utf8")
      const header = /^\$(\d+)\r\n/.exec(reply)
      if (header !== null && reply.length >= header[0].length + Number(header[1])) {
        socket.end()
        resolve(reply.slice(header[0].length, header[0].length + Number(header[1])))
      }
    })
    socket.on("error", reject)
    socket.write(`*${words.length}\r\n${words.map((word) => `$${Buffer.byteLength(word)}\r\n${word}\r\n`).join("")}`)
  })

interface Collector {
  readonly url: string
  readonly bodies: Array<{ readonly path: string; readonly body: Buffer }>
  readonly server: http.Server
}

/** An OTLP collector: the bodies POSTed to it, with their paths. */
const collector = Effect.acquireRelease(
  Effect.async<Collector>((resume) => {
    const bodies: Array<{ path: string; body: Buffer }> = []
    const server = http.createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        bodies.push({ path: request.url ?? "", body: Buffer.concat(chunks) })
        response.writeHead(200, { "content-type": request.headers["content-type"] ?? "application/json" }).end()
      })
    })
    server.listen(0, "127.0.0.1", () =>
      resume(Effect.succeed({
        url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
        bodies,
        server
      })))
  }),
  ({ server }) => Effect.sync(() => server.close())
)

/** `node dist/server.js http` until `use` is done: its URL once it says it listens (announce). */
const serveHttp = (dir: string, extra: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.async<{ readonly url: string; readonly child: ReturnType<typeof spawn> }, Error>((resume) => {
      const child = spawn(process.execPath, ["dist/server.js", "http"], { cwd: dir, env: { ...env, ...extra } })
      let stderr = ""
      child.stderr.on("data", (chunk) => {
        stderr += chunk
        const listening = /listening on (\S+)/.exec(stderr)
        if (listening !== null) resume(Effect.succeed({ url: listening[1]!, child }))
      })
      child.once("exit", (code) => resume(Effect.fail(new Error(`exited ${code}: ${stderr}`))))
    }),
    ({ child }) =>
      Effect.async<void>((resume) => {
        if (child.exitCode !== null) return resume(Effect.void)
        child.once("exit", () => resume(Effect.void))
        child.kill("SIGTERM")
      })
  )

describe("npm create @effect-mcp and npx @effect-mcp/cli, from the packed tarballs", () => {
  it(
    "the default project installs, compiles, tests, runs and is listed; the telemetry hint installs as it says",
    async () => {
      const dir = await project("my-server", ["--yes"])
      await npx(["tsc", "-p", "test"], dir)
      await buildTestList(dir)
      assert.deepStrictEqual(toolNames(await handshake(dir, {})), ["add"])
      // And in an empty folder, from its tarball alone: one file, nothing else to install.
      const { cli } = await packed
      const empty = path.join(work, "empty")
      fs.mkdirSync(empty)
      const listed = await npm(
        ["exec", "--yes", `--package=${cli}`, "--", "mcp", "tools", "stdio:node", path.join(dir, "dist/server.js")],
        empty
      )
      assert.strictEqual(listed.trim(), "add  Adds two numbers")
      assert.deepStrictEqual(fs.readdirSync(empty), [])
      const app = await appFromTarball(cli)
      assert.match(app.url, /^http:\/\/127\.0\.0\.1:\d+\/$/)
      assert.notInclude(app.stderr, "cannot bundle", app.stderr)

      // The hint NodeTelemetry gives with none of its optional packages installed, followed to the letter until what
      // asked for them works (spans and metrics each name what they need).
      fs.writeFileSync(
        path.join(dir, "telemetry.mjs"),
        `import { NodeTelemetry } from "@effect-mcp/platform-node"
import { Effect, Layer } from "effect"
await Effect.runPromise(Effect.scoped(Layer.build(NodeTelemetry.layerFromEnv({ serviceName: "hint" }))))
`
      )
      const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9", OTEL_BSP_SCHEDULE_DELAY: "60000" }
      const hints: Array<string> = []
      for (let attempt = 0; attempt < 3; attempt++) {
        const outcome = await run(process.execPath, ["telemetry.mjs"], dir, otel).then(() => undefined, (e) => e)
        if (outcome === undefined) break
        const hint = /\((npm install [^)]*)\)/.exec(String(outcome))
        assert.isNotNull(hint, String(outcome))
        hints.push(hint![1]!)
        for (const word of hint![1]!.split(" ").slice(2)) {
          assert.match(word, /^@?[a-z0-9/.-]+@\^\d/, `${hint![1]}: ${word} names a range`)
        }
        await run("sh", ["-c", `${hint![1]} --loglevel=error`], dir)
      }
      assert.isAbove(hints.length, 0, "a hint was given")
      await run(process.execPath, ["telemetry.mjs"], dir, otel)
    },
    600_000
  )

  it.scoped("a project with every extra: authorization over HTTP, Redis, telemetry", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.promise(() =>
        project("every-extra", ["--transport", "both", "--era", "handshake", "--extras", "tests,auth,redis,telemetry"])
      )
      const redis = yield* Services.redisServer()
      const { bodies, url: otlp } = yield* collector
      const shared = { REDIS_URL: redis.url }
      yield* Effect.promise(() => buildTestList(dir, shared))

      // Over stdio: served with its state on Redis (connected while it runs), its spans exported on exit.
      const answers = yield* Effect.promise(() =>
        handshake(dir, { ...shared, OTEL_EXPORTER_OTLP_ENDPOINT: otlp }, async () => {
          const clients = /connected_clients:(\d+)/.exec(await redisCommand(redis.port, ["INFO", "clients"]))
          assert.isAtLeast(Number(clients![1]), 2, "the server is connected to Redis (and so is this test)")
        })
      )
      assert.deepStrictEqual(toolNames(answers), ["add"])
      const traces = bodies.filter((posted) => posted.path === "/v1/traces")
      assert.isAbove(traces.length, 0, "spans were exported")
      assert.isTrue(traces.some((posted) => posted.body.includes("every-extra")), "as the service every-extra")

      // Over HTTP: an OAuth resource server, the issuer from the environment.
      const issuer = "https://auth.example.com"
      const port = yield* Services.freePort
      const { url } = yield* serveHttp(dir, { ...shared, PORT: String(port), MCP_AUTH_ISSUER: issuer })
      assert.strictEqual(url, `http://127.0.0.1:${port}/mcp`)
      const refused = yield* Effect.promise(() =>
        fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })
        })
      )
      assert.strictEqual(refused.status, 401)
      assert.include(refused.headers.get("www-authenticate") ?? "", "resource_metadata=")
      const metadata = yield* Effect.promise(() =>
        fetch(new URL("/.well-known/oauth-protected-resource/mcp", url)).then((response) => response.json())
      )
      assert.deepStrictEqual(metadata.authorization_servers, [issuer])
      assert.strictEqual(metadata.resource, `http://localhost:${port}/mcp`)
    }), 600_000)
})

afterAll(() => fs.promises.rm(work, { recursive: true, force: true }), 120_000)
