/**
 * The packages as a user gets them: each one packed with `pnpm pack` (which builds it:
 * `prepack`), the tarballs installed with npm into a plain project outside the workspace, with
 * effect 3.22.3 (the peer ranges must accept it), a server and a client compiled there with
 * plain `tsc` (strict, NodeNext, library types checked), and run: the client spawns the server
 * over stdio and calls its tool. The server is the one `packages/server/README.md` shows.
 */
import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, "../..")
const packages = ["core", "server", "client", "platform-node"] as const

/** pnpm as this run was started with (CI: `npx pnpm@…`), else the one on the PATH. */
const pnpm = (args: ReadonlyArray<string>, cwd: string) => {
  const execpath = process.env.npm_execpath
  return execpath !== undefined && /pnpm/.test(execpath)
    ? execFileSync(process.execPath, [execpath, ...args], { cwd, encoding: "utf8" })
    : execFileSync("pnpm", args, { cwd, encoding: "utf8" })
}

const run = (command: string, args: ReadonlyArray<string>, cwd: string) =>
  execFileSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })

describe("the packages, packed and installed outside the workspace", () => {
  it("are what the README shows", () => {
    const readme = fs.readFileSync(path.join(root, "packages/server/README.md"), "utf8")
    assert.include(readme, fs.readFileSync(path.join(here, "project/server.ts"), "utf8").trim())
    for (const name of packages) {
      const manifest = JSON.parse(fs.readFileSync(path.join(root, "packages", name, "package.json"), "utf8"))
      for (const [peer, range] of Object.entries(manifest.peerDependencies ?? {})) {
        assert.match(String(range), /^\^/, `${manifest.name}: peer ${peer} is a range`)
      }
      assert.isTrue(fs.existsSync(path.join(root, "packages", name, "README.md")), `${manifest.name} has a README`)
      assert.isTrue(fs.existsSync(path.join(root, "packages", name, "LICENSE")), `${manifest.name} has a LICENSE`)
    }
  })

  it("install with npm, compile with plain tsc, and run", () => {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "effect-mcp-pack-"))
    try {
      const tarballs: Record<string, string> = {}
      for (const name of packages) {
        const out = pnpm(["pack", "--pack-destination", work], path.join(root, "packages", name))
        const tarball = out.trim().split("\n").reverse().find((line) => line.trim().endsWith(".tgz"))!.trim()
        const file = path.isAbsolute(tarball) ? tarball : path.join(work, path.basename(tarball))
        const listing = run("tar", ["-tzf", file], work)
        assert.include(listing, "package/dist/index.js", `${name}: the tarball has dist`)
        assert.include(listing, "package/dist/index.d.ts", `${name}: the tarball has types`)
        assert.include(listing, "package/README.md")
        assert.include(listing, "package/LICENSE")
        tarballs[`@effect-mcp/${name}`] = `file:${file}`
      }
      const project = path.join(work, "project")
      fs.mkdirSync(project)
      for (const file of ["server.ts", "client.ts", "tsconfig.json"]) {
        fs.copyFileSync(path.join(here, "project", file), path.join(project, file))
      }
      fs.writeFileSync(
        path.join(project, "package.json"),
        JSON.stringify(
          {
            name: "a-user-project",
            private: true,
            type: "module",
            dependencies: {
              ...tarballs,
              effect: "3.22.3",
              "@effect/platform": "0.97.2",
              "@effect/platform-node": "0.108.2"
            },
            devDependencies: { typescript: "5.9.3", "@types/node": "^20.19.0" }
          },
          null,
          2
        )
      )
      run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], project)
      run(process.execPath, [path.join(project, "node_modules/typescript/bin/tsc"), "-p", "."], project)
      const out = run(process.execPath, ["dist/client.js"], project)
      assert.deepStrictEqual(JSON.parse(out.trim()), {
        era: "handshake",
        tools: ["add"],
        structuredContent: { sum: 42 }
      })
    } finally {
      fs.rmSync(work, { recursive: true, force: true })
    }
  }, 300_000)
})
