/**
 * The packages as a user gets them. Each one is packed with `pnpm pack` (which builds it: `prepack`), and a plain
 * project outside the workspace is made with exactly the lines of the README's "A project of your own": `npm init -y`,
 * the install lines against the registry of today, the README's `tsconfig.json`. Only the names `@effect-mcp/…`
 * become the tarballs (with the tarballs of their own `@effect-mcp` dependencies beside them), since the packages
 * are not on the registry yet. Then it is compiled with the project's own `tsc` (strict, NodeNext, library types
 * checked) and run: a client spawns the server of `packages/server/README.md` over stdio and calls its tool, and
 * the README's test-kit test runs under the project's own vitest.
 *
 * CI runs this file under Node 22 as well as the Node of the rest of the suite.
 */
import { assert, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"

const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, "../..")
const packages = ["core", "server", "client", "platform-node", "redis"] as const
const readme = fs.readFileSync(path.join(root, "README.md"), "utf8")

/**
 * The Node that runs this test runs everything in the project too (npm included: it is `#!/usr/bin/env node`), with
 * no colours (the outer vitest's FORCE_COLOR would reach the inner one).
 */
const { FORCE_COLOR: _, ...inherited } = process.env
const env = {
  ...inherited,
  NO_COLOR: "1",
  PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}`
}

/** A command run to its end without blocking the worker (a long install would starve vitest's own messages). */
const run = async (command: string, args: ReadonlyArray<string>, cwd: string): Promise<string> => {
  const { stdout } = await promisify(execFile)(command, [...args], {
    cwd,
    env,
    encoding: "utf8",
    maxBuffer: 16 * 1024 * 1024
  })
  return stdout
}

/** pnpm as this run was started with (CI: `npx pnpm@…`), else the one on the PATH. */
const pnpm = (args: ReadonlyArray<string>, cwd: string) => {
  const execpath = process.env.npm_execpath
  return execpath !== undefined && /pnpm/.test(execpath)
    ? run(process.execPath, [execpath, ...args], cwd)
    : run("pnpm", args, cwd)
}

/** The fenced blocks of `lang` in the README section whose heading is `heading`. */
const blocks = (heading: string, lang: string): ReadonlyArray<string> => {
  const start = readme.indexOf(`\n## ${heading}\n`)
  assert.isAbove(start, -1, `the README has a section "${heading}"`)
  const end = readme.indexOf("\n## ", start + 1)
  const section = readme.slice(start, end === -1 ? undefined : end)
  return [...section.matchAll(new RegExp("```" + lang + "\\n([\\s\\S]*?)```", "g"))].map((match) => match[1]!)
}

/** The commands of the section's shell block, a line each, comments dropped. */
const installLines = (): ReadonlyArray<string> =>
  blocks("A project of your own", "sh")[0]!.split("\n").map((line) => line.trim()).filter((line) =>
    line.length > 0 && !line.startsWith("#")
  )

/** What each package needs of ours (its `@effect-mcp` dependencies), read from its manifest. */
const ours = (name: string): ReadonlyArray<string> => {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, "packages", name, "package.json"), "utf8"))
  return Object.keys(manifest.dependencies ?? {}).filter((dep) => dep.startsWith("@effect-mcp/")).map((dep) =>
    dep.slice("@effect-mcp/".length)
  )
}

/** A path as one shell word. */
const quoted = (file: string) => `'${file.replace(/'/g, `'\\''`)}'`

/** A README line with every `@effect-mcp/x` named by its tarball, and the tarballs it depends on added. */
const withTarballs = (line: string, tarballs: Record<string, string>): string => {
  const named = new Set<string>()
  const replaced = line.replace(/@effect-mcp\/([a-z-]+)/g, (_, name: string) => {
    assert.property(tarballs, name, `the README names a package we have: @effect-mcp/${name}`)
    named.add(name)
    return quoted(tarballs[name]!)
  })
  const closure = new Set<string>()
  const visit = (name: string) => {
    for (const dep of ours(name)) {
      if (!named.has(dep) && !closure.has(dep)) {
        closure.add(dep)
        visit(dep)
      }
    }
  }
  named.forEach(visit)
  return [replaced, ...[...closure].map((name) => quoted(tarballs[name]!))].join(" ")
}

describe("the packages, packed and installed outside the workspace", () => {
  it("are what the READMEs show, and every install line gives the ranges that work", () => {
    const serverReadme = fs.readFileSync(path.join(root, "packages/server/README.md"), "utf8")
    assert.include(serverReadme, fs.readFileSync(path.join(here, "project/server.ts"), "utf8").trim())
    const lines = installLines()
    assert.include(readme.split("\n").slice(0, 20).join("\n"), lines[1]!, "the first install line is the project's")
    for (const name of packages) {
      const manifest = JSON.parse(fs.readFileSync(path.join(root, "packages", name, "package.json"), "utf8"))
      for (const [peer, range] of Object.entries(manifest.peerDependencies ?? {})) {
        // A caret range, or a bounded one (`>=0.200.0 <0.300.0`, for OpenTelemetry's 0.x exporters).
        assert.match(String(range), /^(\^|>=\d+\.\d+\.\d+ <\d)/, `${manifest.name}: peer ${peer} is a range`)
      }
      assert.deepStrictEqual(
        manifest.engines,
        JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).engines
      )
      const own = fs.readFileSync(path.join(root, "packages", name, "README.md"), "utf8")
      assert.isTrue(fs.existsSync(path.join(root, "packages", name, "LICENSE")), `${manifest.name} has a LICENSE`)
      // An unpinned `effect`, `@effect/platform`, `@effect/platform-node`, `@effect/vitest` or `vitest` resolves to
      // a line these packages do not support (effect 4, vitest 4): every install line pins them.
      for (const text of [readme, own]) {
        for (const install of text.split("\n").filter((line) => /^npm (install|i)\b/.test(line))) {
          for (const word of install.split(/\s+/)) {
            assert.notMatch(word, /^(effect|@effect\/[a-z-]+|vitest|typescript)$/, `${install}: ${word} has no range`)
          }
        }
      }
    }
  })

  it("install with the README's lines, compile with its tsconfig, run, and test with the test kit", async () => {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "effect-mcp-pack-"))
    try {
      const tarballs: Record<string, string> = {}
      for (const name of packages) {
        const out = await pnpm(["pack", "--pack-destination", work], path.join(root, "packages", name))
        const tarball = out.trim().split("\n").reverse().find((line) => line.trim().endsWith(".tgz"))!.trim()
        const file = path.isAbsolute(tarball) ? tarball : path.join(work, path.basename(tarball))
        const listing = await run("tar", ["-tzf", file], work)
        assert.include(listing, "package/dist/index.js", `${name}: the tarball has dist`)
        assert.include(listing, "package/dist/index.d.ts", `${name}: the tarball has types`)
        assert.include(listing, "package/README.md")
        assert.include(listing, "package/LICENSE")
        tarballs[name] = file
      }
      const project = path.join(work, "project")
      fs.mkdirSync(project)
      for (const line of installLines()) {
        await run("sh", ["-c", `${withTarballs(line, tarballs)} --no-audit --no-fund --loglevel=error`], project)
      }
      const manifest = JSON.parse(fs.readFileSync(path.join(project, "package.json"), "utf8"))
      assert.strictEqual(manifest.type, "module")
      assert.match(manifest.dependencies.effect, /^\^3\./)
      const tsconfig = blocks("A project of your own", "json")[0]!
      fs.writeFileSync(path.join(project, "tsconfig.json"), tsconfig)
      fs.copyFileSync(path.join(here, "project/server.ts"), path.join(project, "server.ts"))
      fs.copyFileSync(path.join(here, "project/client.ts"), path.join(project, "client.ts"))
      // The README's test-kit test of its services server, verbatim (test/readme checks they are the README's).
      fs.copyFileSync(path.join(root, "test/readme/services.ts"), path.join(project, "services.ts"))
      fs.copyFileSync(path.join(root, "test/readme/Testing.test.ts"), path.join(project, "Testing.test.ts"))

      await run(process.execPath, [path.join(project, "node_modules/typescript/bin/tsc"), "-p", "."], project)
      const out = await run(process.execPath, ["dist/client.js"], project)
      assert.deepStrictEqual(JSON.parse(out.trim()), {
        // A first server serves both eras; the client's probe finds the stateless one.
        era: "stateless",
        tools: ["add"],
        structuredContent: { sum: 42 },
        text: "{\"sum\":3}"
      })
      const tested = await run(process.execPath, [path.join(project, "node_modules/vitest/vitest.mjs"), "run"], project)
      assert.match(tested, /Tests\s+2 passed \(2\)/)
    } finally {
      fs.rmSync(work, { recursive: true, force: true })
    }
  }, 400_000)
})
