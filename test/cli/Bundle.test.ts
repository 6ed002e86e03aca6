/**
 * The bundled demo and `mcp` command (`scripts/bundle.mjs`, esbuild: what `pnpm start` and
 * `pnpm run mcp` run: an entry each, and the chunks it loads when first used, for a fast startup): the
 * bundled command calls a tool of the bundled demo over stdio, in both eras.
 */
import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")

describe("the bundles", () => {
  it("of the demo and of mcp work as the unbundled ones do", () => {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "effect-mcp-bundle-"))
    try {
      const bundle = (entry: string, out: string) =>
        execFileSync(process.execPath, [path.join(root, "scripts/bundle.mjs"), path.join(root, entry), out], {
          cwd: root
        })
      const everything = path.join(work, "everything.mjs")
      const mcp = path.join(work, "mcp.mjs")
      bundle("apps/everything/dist/main.js", everything)
      bundle("apps/cli/dist/main.js", mcp)
      // Split: what a part loads when first used (the HTTP transport, the client, OAuth, telemetry's export) is a
      // chunk beside the entry, read only if that part runs, not parsed at every start.
      for (const name of ["everything", "mcp"]) {
        const chunks = fs.readdirSync(work).filter((file) => new RegExp(`^${name}-.+-[A-Z0-9]{8}\\.mjs$`).test(file))
        assert.isAbove(chunks.length, 0, `${name}'s chunks: ${fs.readdirSync(work).join(", ")}`)
      }
      for (const era of ["handshake", "stateless"]) {
        const out = execFileSync(process.execPath, [
          mcp,
          "call",
          `stdio:${process.execPath} ${everything} stdio`,
          "add",
          "--args",
          "{\"a\":20,\"b\":22}",
          "--era",
          era
        ], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })
        assert.strictEqual(out.trim(), "{\"sum\":42}")
      }
    } finally {
      fs.rmSync(work, { recursive: true, force: true })
    }
  }, 60_000)
})
