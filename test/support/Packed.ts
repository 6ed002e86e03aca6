/**
 * The packages as a registry would serve them: each packed with `pnpm pack` (which builds it: `prepack`), and the
 * commands that make a plain npm project of them outside the workspace. The same steps as test/pack, shared.
 */
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { runId } from "./Programs.js"

/** The repository's root. */
export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")

/** The packages a user installs, by their folder under `packages/` (and their name under `@effect-mcp/`). */
export const packages = ["core", "server", "client", "platform-node", "redis"] as const

/**
 * The Node that runs the tests runs everything in the project too (npm included: it is `#!/usr/bin/env node`), with
 * no colours (the outer vitest's FORCE_COLOR would reach an inner one).
 */
const { FORCE_COLOR: _, ...inherited } = process.env
export const env = {
  ...inherited,
  NO_COLOR: "1",
  PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}`
}

/**
 * A command run to its end without blocking the worker (a long install would starve vitest's own messages); its
 * output, or an error that says what it printed.
 */
export const run = async (command: string, args: ReadonlyArray<string>, cwd: string): Promise<string> => {
  try {
    const { stdout } = await promisify(execFile)(command, [...args], {
      cwd,
      env,
      encoding: "utf8",
      maxBuffer: 16 * 1024 * 1024
    })
    return stdout
  } catch (error) {
    // What it said, on either stream (tsc says what does not compile on stdout), at the end of the message.
    const { stderr = "", stdout = "" } = error as { stdout?: string; stderr?: string }
    throw new Error(`${[command, ...args].join(" ")} failed:\n${(stdout + stderr).slice(-4000)}`, { cause: error })
  }
}

/** pnpm as this run was started with (CI: `npx pnpm@…`), else the one on the PATH. */
export const pnpm = (args: ReadonlyArray<string>, cwd: string): Promise<string> => {
  const execpath = process.env.npm_execpath
  return execpath !== undefined && /pnpm/.test(execpath)
    ? run(process.execPath, [execpath, ...args], cwd)
    : run("pnpm", args, cwd)
}

/**
 * This run's tarballs (`Programs.runId`), removed when the run ends (`bundles.ts`): a package is packed once in a
 * run, by whichever test file asks first, whatever process it runs in; the others wait for that one.
 */
export const packedFolder = path.join(os.tmpdir(), `effect-mcp-packed-${runId}`)

/** Waits until `file` exists (a write of this run's, by another process or this one): its text. */
const written = async (file: string): Promise<string> => {
  for (;;) {
    // Watched before looking, so that a file made in between is not missed; the watcher closed either way.
    let watcher: fs.FSWatcher | undefined
    const changed = new Promise<void>((resolve) => {
      watcher = fs.watch(path.dirname(file), () => resolve())
    })
    try {
      if (fs.existsSync(file)) return fs.readFileSync(file, "utf8")
      await changed
    } finally {
      watcher!.close()
    }
  }
}

/**
 * The tarball of the package in `folder` (`packages/core`, `apps/cli`), packed once in this run: the first to ask
 * packs it (`pnpm pack`, which builds it: `prepack`), and a later or concurrent ask, from this process or another
 * of the run, gets the same file; a failure to pack is every asker's failure, with what pnpm said.
 */
export const packed = async (folder: string): Promise<string> => {
  const key = folder.replace(/[/\\]/g, "-")
  const done = path.join(packedFolder, `${key}.json`)
  fs.mkdirSync(packedFolder, { recursive: true })
  let first = true
  try {
    fs.mkdirSync(path.join(packedFolder, `${key}.lock`))
  } catch {
    first = false
  }
  if (first) {
    let outcome: { readonly tarball: string } | { readonly error: string }
    try {
      const destination = path.join(packedFolder, key)
      const out = await pnpm(["pack", "--pack-destination", destination], path.join(root, folder))
      const tarball = out.trim().split("\n").reverse().find((line) => line.trim().endsWith(".tgz"))!.trim()
      outcome = { tarball: path.isAbsolute(tarball) ? tarball : path.join(destination, path.basename(tarball)) }
    } catch (error) {
      outcome = { error: error instanceof Error ? error.message : String(error) }
    }
    // Whole or not at all: a reader never sees half of it.
    fs.writeFileSync(`${done}.tmp`, JSON.stringify(outcome))
    fs.renameSync(`${done}.tmp`, done)
  }
  const outcome = JSON.parse(await written(done)) as { readonly tarball?: string; readonly error?: string }
  if (outcome.tarball === undefined) throw new Error(`packing ${folder} failed: ${outcome.error}`)
  return outcome.tarball
}

/** Every package packed (once in this run: `packed`): its tarball's path, by the package's folder name. */
export const packAll = async (): Promise<Record<string, string>> => {
  const tarballs: Record<string, string> = {}
  for (const name of packages) tarballs[name] = await packed(`packages/${name}`)
  return tarballs
}

/** What a package needs of ours (its `@effect-mcp` dependencies), read from its manifest. */
export const ours = (name: string): ReadonlyArray<string> => {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, "packages", name, "package.json"), "utf8"))
  return Object.keys(manifest.dependencies ?? {}).filter((dep) => dep.startsWith("@effect-mcp/")).map((dep) =>
    dep.slice("@effect-mcp/".length)
  )
}

/** A path as one shell word. */
export const quoted = (file: string): string => `'${file.replace(/'/g, `'\\''`)}'`

/**
 * A command line with every `@effect-mcp/x` named by its tarball, and the tarballs of the packages they depend on
 * added (not on the registry yet, npm could not find them there). A name we do not have is an error.
 */
export const withTarballs = (line: string, tarballs: Record<string, string>): string => {
  const named = new Set<string>()
  const replaced = line.replace(/@effect-mcp\/([a-z-]+)/g, (_, name: string) => {
    if (!(name in tarballs)) throw new Error(`not a package of ours: @effect-mcp/${name} (in ${line})`)
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

/** The fenced blocks of `lang` in the section of `markdown` under the heading `## heading`. */
export const sectionBlocks = (markdown: string, heading: string, lang: string): ReadonlyArray<string> => {
  const start = markdown.indexOf(`\n## ${heading}\n`)
  if (start === -1) throw new Error(`no section "${heading}"`)
  const end = markdown.indexOf("\n## ", start + 1)
  const section = markdown.slice(start, end === -1 ? undefined : end)
  return [...section.matchAll(new RegExp("```" + lang + "\\n([\\s\\S]*?)```", "g"))].map((match) => match[1]!)
}
