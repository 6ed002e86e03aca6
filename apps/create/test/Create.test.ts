/**
 * `create-effect-mcp` at the command line (the built `dist/main.js`, as its bundle runs it): what it
 * writes for the flags given, what it refuses, and every combination of choices compiled with the
 * project's own `tsconfig.json` against this repository's packages (their `dist` types, as a user's
 * install has them). `test/pack/Create.test.ts` installs, builds, tests and runs what it writes from
 * the packed tarballs.
 */
import { assert, describe, it } from "@effect/vitest"
import { execFile, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import * as Template from "../src/Template.js"
import * as Versions from "../src/Versions.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..")
const main = path.join(root, "apps/create/dist/main.js")

const create = async (args: ReadonlyArray<string>, cwd: string) => {
  try {
    const { stderr, stdout } = await promisify(execFile)(process.execPath, [main, ...args], {
      cwd,
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1" }
    })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string }
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr }
  }
}

const manifest = (file: string) => JSON.parse(fs.readFileSync(file, "utf8"))

/** Every subset of the extras. */
const subsets = Template.extras.reduce<ReadonlyArray<ReadonlyArray<Template.Extra>>>(
  (sets, extra) => [...sets, ...sets.map((set) => [...set, extra])],
  [[]]
)

describe("create-effect-mcp", () => {
  it("writes a project of the flags' choices, and says what to run next", async () => {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "effect-mcp-create-"))
    try {
      const made = await create(
        ["My Server", "--transport", "both", "--era", "stateless", "--extras", "tests,telemetry"],
        work
      )
      assert.strictEqual(made.code, 0, made.stderr)
      assert.include(
        made.stdout,
        "Created my-server in My Server (stdio and HTTP, the stateless era, tests, telemetry)"
      )
      assert.include(made.stdout, "npx @effect-mcp/cli tools stdio:node dist/server.js")
      const project = path.join(work, "My Server")
      const written = (file: string) => fs.readFileSync(path.join(project, file), "utf8")
      const pkg = manifest(path.join(project, "package.json"))
      assert.strictEqual(pkg.name, "my-server")
      assert.strictEqual(pkg.type, "module")
      assert.deepStrictEqual(Object.keys(pkg.dependencies).sort(), [
        "@effect-mcp/core",
        "@effect-mcp/platform-node",
        "@effect-mcp/server",
        "@effect/opentelemetry",
        "@effect/platform",
        "@effect/platform-node",
        "@opentelemetry/api",
        "@opentelemetry/exporter-trace-otlp-proto",
        "@opentelemetry/resources",
        "@opentelemetry/sdk-trace-base",
        "@opentelemetry/sdk-trace-node",
        "effect"
      ])
      assert.strictEqual(pkg.dependencies.effect, "^3.22.4")
      assert.strictEqual(pkg.devDependencies["@effect-mcp/cli"], "^0.1.0")
      assert.strictEqual(pkg.scripts["start:http"], "node dist/server.js http")
      assert.include(written("src/app.ts"), "revisions: Revision.stateless")
      assert.include(written("src/server.ts"), "NodeTelemetry.layerFromEnv")
      assert.deepStrictEqual(JSON.parse(written("tsconfig.json")).compilerOptions, {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        skipLibCheck: true,
        rootDir: "src",
        outDir: "dist",
        types: ["node"]
      })
      assert.include(written("README.md"), "\"mcpServers\"")
      assert.include(written("README.md"), "npx @effect-mcp/cli tools stdio:node dist/server.js")

      // With --yes and nothing else: stdio, both eras, tests.
      const defaults = await create(["plain", "--yes"], work)
      assert.strictEqual(defaults.code, 0, defaults.stderr)
      assert.include(defaults.stdout, "(stdio, both eras, tests)")
      assert.deepStrictEqual(fs.readdirSync(path.join(work, "plain")).sort(), [
        ".gitignore",
        "README.md",
        "package.json",
        "src",
        "test",
        "tsconfig.json"
      ])
    } finally {
      fs.rmSync(work, { recursive: true, force: true })
    }
  }, 60_000)

  it("asks at a terminal what the flags do not say, each question once the last is answered", async () => {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "effect-mcp-create-"))
    try {
      // A terminal of its own (util-linux `script`); each answer typed once its question is on the screen.
      const answers: ReadonlyArray<readonly [string, string]> = [
        ["Where should the project go?", "asked\r"],
        ["How is the server reached?", "\x1b[B\r"], // down: HTTP
        ["Which eras does it serve?", "\x1b[B\x1b[B\r"], // down, down: stateless
        ["What comes with it?", "\r"] // tests, as offered
      ]
      const screen = await new Promise<string>((resolve, reject) => {
        const child = spawn("script", ["-qefc", `'${process.execPath}' '${main}'`, "/dev/null"], { cwd: work })
        let all = ""
        let since = ""
        let next = 0
        child.stdout.on("data", (chunk: Buffer) => {
          all += chunk.toString("utf8")
          since += chunk.toString("utf8")
          if (next < answers.length && since.includes(answers[next]![0])) {
            since = ""
            child.stdin.write(answers[next++]![1])
          }
        })
        child.once("error", reject)
        child.once("exit", (code) => code === 0 ? resolve(all) : reject(new Error(`exit ${code}: ${all}`)))
      })
      assert.include(screen, "authorization", "offered for a server over HTTP")
      assert.include(screen, "Created asked in asked (HTTP, the stateless era, tests)")
      const pkg = manifest(path.join(work, "asked/package.json"))
      assert.strictEqual(pkg.scripts.start, "node dist/server.js http")
      assert.include(fs.readFileSync(path.join(work, "asked/src/app.ts"), "utf8"), "revisions: Revision.stateless")
      assert.isTrue(fs.existsSync(path.join(work, "asked/test/server.test.ts")))
    } finally {
      fs.rmSync(work, { recursive: true, force: true })
    }
  }, 60_000)

  it("refuses, in one line and writing nothing, what it cannot make", async () => {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "effect-mcp-create-"))
    try {
      const auth = await create(["a", "--transport", "stdio", "--extras", "auth", "--yes"], work)
      assert.strictEqual(auth.code, 1)
      assert.strictEqual(
        auth.stderr,
        "create-effect-mcp: auth protects the HTTP endpoint: choose --transport http or both with it\n"
      )
      const unknown = await create(["b", "--extras", "tests,mongo", "--yes"], work)
      assert.strictEqual(unknown.code, 1)
      assert.strictEqual(
        unknown.stderr,
        "create-effect-mcp: --extras: mongo is not one of tests, auth, redis, telemetry (or none)\n"
      )
      fs.mkdirSync(path.join(work, "c"))
      fs.writeFileSync(path.join(work, "c", "keep.txt"), "mine")
      const taken = await create(["c", "--yes"], work)
      assert.strictEqual(taken.code, 1)
      assert.strictEqual(taken.stderr, "create-effect-mcp: c is not empty: give a new directory\n")
      assert.deepStrictEqual(fs.readdirSync(work).sort(), ["c"])
      assert.deepStrictEqual(fs.readdirSync(path.join(work, "c")), ["keep.txt"])
    } finally {
      fs.rmSync(work, { recursive: true, force: true })
    }
  }, 60_000)

  it("gives the ranges this repository builds and tests with", () => {
    const pinned: Record<string, string> = {}
    for (
      const file of ["package.json", "apps/cli/package.json", "apps/everything/package.json", "test/package.json"]
    ) {
      const { dependencies = {}, devDependencies = {} } = manifest(path.join(root, file))
      Object.assign(pinned, devDependencies, dependencies)
    }
    for (const [name, range] of Object.entries(Versions.ranges)) {
      // `^x.y.z` of the version pinned here (`@types/node` is a range here too).
      assert.strictEqual(range, pinned[name]!.startsWith("^") ? pinned[name] : `^${pinned[name]}`, name)
    }
    for (
      const dir of ["packages/core", "packages/server", "packages/client", "packages/platform-node", "packages/redis"]
    ) {
      assert.strictEqual(manifest(path.join(root, dir, "package.json")).version, Versions.effectMcp, dir)
    }
    for (const dir of ["apps/cli", "apps/create"]) {
      assert.strictEqual(manifest(path.join(root, dir, "package.json")).version, Versions.effectMcp, dir)
    }
  })

  it("writes projects that compile, in every combination", async () => {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "effect-mcp-combinations-"))
    try {
      // What a project imports, resolved as this repository has it (our packages' built types).
      const modules = path.join(work, "node_modules")
      const link = (name: string) => {
        const found = [path.join(root, "test/node_modules", name), path.join(root, "node_modules", name)].find((dir) =>
          fs.existsSync(dir)
        )
        assert.isDefined(found, name)
        fs.mkdirSync(path.dirname(path.join(modules, name)), { recursive: true })
        fs.symlinkSync(fs.realpathSync(found!), path.join(modules, name))
      }
      for (const name of ["core", "server", "client", "platform-node", "redis"]) link(`@effect-mcp/${name}`)
      for (const name of ["effect", "@effect/platform", "@effect/platform-node", "@effect/vitest", "vitest"]) {
        link(name)
      }
      link("@types/node")
      const projects: Array<string> = []
      for (const transport of Template.transports) {
        for (const era of Template.eras) {
          for (const extras of subsets) {
            const choices: Template.Choices = {
              name: `${transport}-${era}-${extras.join("-")}`,
              transport,
              era,
              extras
            }
            if (Template.refusal(choices) !== undefined) continue
            const dir = path.join(work, choices.name)
            for (const file of Template.files(choices)) {
              fs.mkdirSync(path.dirname(path.join(dir, file.path)), { recursive: true })
              fs.writeFileSync(path.join(dir, file.path), file.text)
            }
            projects.push(choices.name)
          }
        }
      }
      assert.strictEqual(projects.length, 3 * 3 * 16 - 3 * 8)
      // Every project's sources and tests in one program, under the options of the projects' own tsconfig.
      const own = JSON.parse(fs.readFileSync(path.join(work, projects[0]!, "tsconfig.json"), "utf8"))
      const { outDir: _, rootDir: __, ...options } = own.compilerOptions
      fs.writeFileSync(
        path.join(work, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: { ...options, noEmit: true },
          include: projects.flatMap((name) => [`${name}/src`, `${name}/test`])
        })
      )
      await promisify(execFile)(process.execPath, [path.join(root, "node_modules/typescript/bin/tsc"), "-p", work], {
        cwd: work,
        encoding: "utf8",
        maxBuffer: 16 * 1024 * 1024
      }).catch((error: { stdout: string }) => assert.fail(error.stdout))
    } finally {
      fs.rmSync(work, { recursive: true, force: true })
    }
  }, 300_000)
})
