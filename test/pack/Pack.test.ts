/**
 * The packages as a user gets them. Each one is packed with `pnpm pack` (which builds it: `prepack`), and a plain
 * project outside the workspace is made with exactly the lines of the README's "A project of your own": `npm init -y`,
 * the install lines against the registry of today, the README's `tsconfig.json`. Only the names `@effect-mcp/…`
 * become the tarballs (with the tarballs of their own `@effect-mcp` dependencies beside them), since the packages
 * are not on the registry yet. Then it is compiled with the project's own `tsc` (strict, NodeNext, library types
 * checked) and run: a client spawns the server of `packages/server/README.md` over stdio and calls its tool, and
 * the README's test-kit test runs under the project's own vitest. The published layout is checked there too
 * (`publishedLayout`): entry points resolve to each package's `bundle/`, a deep entry works, a Tag is one whichever
 * entry point gives it, and a Worker bundled under the `workerd`/`worker` conditions links `#modules` statically.
 *
 * CI runs this file under Node 22 as well as the Node of the rest of the suite.
 */
import { assert, describe, it } from "@effect/vitest"
import * as esbuild from "esbuild"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { packages, packAll, root, run, sectionBlocks, withTarballs } from "../support/Packed.js"

const here = path.dirname(fileURLToPath(import.meta.url))
const readme = fs.readFileSync(path.join(root, "README.md"), "utf8")

/** The fenced blocks of `lang` in the README section whose heading is `heading`. */
const blocks = (heading: string, lang: string): ReadonlyArray<string> => sectionBlocks(readme, heading, lang)

/** The commands of the section's shell block, a line each, comments dropped. */
const installLines = (): ReadonlyArray<string> =>
  blocks("A project of your own", "sh")[0]!.split("\n").map((line) => line.trim()).filter((line) =>
    line.length > 0 && !line.startsWith("#")
  )

/**
 * The published layout (issue 42): every entry point, deep ones too, is the package's `bundle/` (esbuild, code
 * split over the entry points), a Tag or class is the same whichever entry point it comes from, and a Worker bundled
 * as wrangler does (the `workerd` and `worker` conditions) gets tsc's `dist/` (a module a file: the bundler leaves out
 * what the Worker never reaches), the server's statically linked `#modules`, no module of Effect or ours lazily
 * initialised, no yaml or skills' building, and answers a `tools/call`.
 */
const publishedLayout = async (project: string) => {
  const layout = JSON.parse((await run(process.execPath, ["dist/layout.js"], project)).trim())
  assert.deepStrictEqual(layout, {
    resolved: {
      "@effect-mcp/core": "@effect-mcp/core/bundle/index.js",
      "@effect-mcp/core/McpError": "@effect-mcp/core/bundle/McpError.js",
      "@effect-mcp/server": "@effect-mcp/server/bundle/index.js",
      "@effect-mcp/server/RelayTable": "@effect-mcp/server/bundle/RelayTable.js",
      "@effect-mcp/client": "@effect-mcp/client/bundle/index.js",
      "@effect-mcp/platform-node": "@effect-mcp/platform-node/bundle/index.js"
    },
    relay: true,
    tag: true,
    error: true,
    undefinedExports: []
  })
  const outfile = path.join(project, "worker.bundle.mjs")
  const built = await esbuild.build({
    entryPoints: [path.join(project, "dist/worker.js")],
    outfile,
    bundle: true,
    platform: "browser",
    format: "esm",
    conditions: ["workerd", "worker"],
    metafile: true,
    logLevel: "silent"
  })
  const inputs = Object.keys(built.metafile.inputs)
  assert.isTrue(inputs.some((file) => file.endsWith("@effect-mcp/server/dist/internal/modulesBundled.js")))
  assert.deepStrictEqual(inputs.filter((file) => /@effect-mcp\/[a-z-]+\/(bundle|src)\//.test(file)), [])
  assert.deepStrictEqual(inputs.filter((file) => file.endsWith("@effect-mcp/server/dist/internal/modules.js")), [])
  // What a server without skills never reaches has no bytes in it (`bundle/` keeps each namespace's members whole,
  // and with them yaml and the skills' building: 837 KB against 663). What the token verifiers use of jose and
  // oauth4webapi stays (`auth` without a `verifier` falls back to `TokenVerifier.jwt()`), behind a lazy initialiser:
  // `internal/oauthLibraries.js`, which imports nothing of Effect.
  const output = Object.values(built.metafile.outputs)[0]!.inputs
  const kept = Object.keys(output).filter((file) => output[file]!.bytesInOutput > 0)
  assert.deepStrictEqual(kept.filter((file) => /\/yaml\/|skillsBuild|SkillFormat/.test(file)), [])
  const wrapped = Array.from(fs.readFileSync(outfile, "utf8").matchAll(/__esm\(\{\s*"([^"]+)"\(\)/g), (m) => m[1]!)
  assert.deepStrictEqual(
    wrapped.filter((file) =>
      /(^|\/)(effect|@effect|@effect-mcp)\//.test(file) && !file.endsWith("server/dist/internal/oauthLibraries.js")
    ),
    []
  )
  const worker = (await import(pathToFileURL(outfile).href)).default
  const response: Response = await worker.fetch(
    new Request("http://localhost/mcp", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "add"
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: {
          name: "add",
          arguments: { a: 20, b: 22 },
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}
          }
        }
      })
    }),
    {},
    undefined
  )
  const text = await response.text()
  assert.strictEqual(response.status, 200, text)
  assert.include(text, "\"structuredContent\":{\"sum\":42}")
}

/**
 * What the published layout's startup resolves of effect (issue 42): the README's server, spawned with a resolve
 * hook, answers `initialize` and a first `tools/call`; every bare `effect/…` specifier it resolved is listed with
 * the module that imported it. Node 22 reads effect's 40 kB `exports` again for each one (~1.3 M instructions), and
 * esbuild keeps one `import * as` per module of ours (the server's engine chunk imported `effect/Effect` 12 times),
 * so each package takes the effect modules it loads from its effect hubs (`scripts/bundle-package.mjs`): none of
 * ours resolves the same specifier twice.
 */
const effectResolves = (project: string) => {
  const file = path.join(project, "effect-resolves.txt")
  const initialize = {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "pack", version: "1.0.0" } }
  }
  const input = [
    initialize,
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "add", arguments: { a: 20, b: 22 } } }
  ].map((message) => JSON.stringify(message) + "\n").join("")
  const served = spawnSync(process.execPath, ["--import", "./effect-resolves.mjs", "dist/server.js"], {
    cwd: project,
    input,
    encoding: "utf8",
    env: { ...process.env, EFFECT_RESOLVES_FILE: file },
    timeout: 60_000
  })
  assert.include(served.stdout, "\"structuredContent\":{\"sum\":42}", served.stderr)
  const lines = fs.readFileSync(file, "utf8").split("\n").filter((line) => line.length > 0)
  const ours = new Map<string, number>()
  for (const line of lines) {
    const [specifier, parent] = line.split(" ")
    const owner = /\/node_modules\/@effect-mcp\/([^/]+)\//.exec(parent!)
    if (owner === null) continue
    const key = `@effect-mcp/${owner[1]} ${specifier}`
    ours.set(key, (ours.get(key) ?? 0) + 1)
  }
  assert.isAbove(ours.size, 0, lines.join("\n"))
  assert.deepStrictEqual(
    [...ours].filter(([, count]) => count > 1).map(([key, count]) => `${key}: ${count} times`),
    [],
    `${[...ours.values()].reduce((a, b) => a + b, 0)} bare effect/* specifiers resolved by ours`
  )
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
      const tarballs = await packAll()
      for (const [name, file] of Object.entries(tarballs)) {
        const listing = await run("tar", ["-tzf", file], work)
        assert.include(listing, "package/dist/index.js", `${name}: the tarball has dist`)
        assert.include(listing, "package/dist/index.d.ts", `${name}: the tarball has types`)
        assert.include(listing, "package/bundle/index.js", `${name}: the tarball has the bundled layout`)
        assert.include(listing, "package/bundle/index.js.map", `${name}: the bundled layout has source maps`)
        assert.include(listing, "package/README.md")
        assert.include(listing, "package/LICENSE")
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
      fs.copyFileSync(path.join(here, "project/layout.ts"), path.join(project, "layout.ts"))
      fs.copyFileSync(path.join(here, "project/worker.ts"), path.join(project, "worker.ts"))
      fs.copyFileSync(path.join(here, "project/effect-resolves.mjs"), path.join(project, "effect-resolves.mjs"))
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
      await publishedLayout(project)
      effectResolves(project)
      const tested = await run(process.execPath, [path.join(project, "node_modules/vitest/vitest.mjs"), "run"], project)
      assert.match(tested, /Tests\s+2 passed \(2\)/)
    } finally {
      fs.rmSync(work, { recursive: true, force: true })
    }
  }, 400_000)
})
