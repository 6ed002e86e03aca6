/**
 * `mcp skills`: the skills a server serves (the skills extension), listed, shown, and pulled into a
 * folder. Pulling loads each skill (its `SKILL.md` verified: size, digest, frontmatter), reads every
 * file its entry lists, each verified, and only then writes them, under `<dir>/<skill path>/`: a
 * skill that fails verification writes nothing.
 *
 * @since 0.1.0
 */
import type { McpClient, McpSchema } from "@effect-mcp/client"
import { Skills } from "@effect-mcp/client"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"

/**
 * A skill whose URI names no folder it may be written to (`..`, an empty segment).
 *
 * @since 0.1.0
 * @category errors
 */
export class UnsafePath extends Data.TaggedError("UnsafePath")<{ readonly uri: string }> {
  override get message(): string {
    return `${this.uri} names no folder a skill may be written to`
  }
}

/**
 * The folder segments of a skill's URI: its skill path (`acme/billing/refunds` of
 * `skill://acme/billing/refunds/SKILL.md`), decoded, each one safe to write under.
 *
 * @since 0.1.0
 * @category pulling
 */
export const skillPath = (uri: string): ReadonlyArray<string> | undefined => {
  const at = uri.indexOf("://")
  if (at < 0 || !uri.endsWith("/SKILL.md")) return undefined
  const segments = uri.slice(at + 3, -"/SKILL.md".length).split("/")
  const decoded: Array<string> = []
  for (const segment of segments) {
    let value: string
    try {
      value = decodeURIComponent(segment)
    } catch {
      return undefined
    }
    if (value === "" || value === "." || value === ".." || /[/\\\0]/.test(value)) return undefined
    decoded.push(value)
  }
  return decoded
}

/**
 * The entries named by `wanted` (a `SKILL.md` URI, or a name), from the listing; a URI not listed
 * is asked for with `skills/get` (a listing may be partial). None wanted: every listed one.
 *
 * @since 0.1.0
 * @category pulling
 */
export const select = (
  client: McpClient.Service,
  wanted: ReadonlyArray<string>
) =>
  Effect.gen(function*() {
    const listed = yield* Skills.list(client)
    if (wanted.length === 0) return listed
    const picked: Array<McpSchema.Skills.Skill> = []
    for (const want of wanted) {
      const found = listed.filter((s) => s.uri === want || s.frontmatter.name === want)
      if (found.length > 0) picked.push(...found)
      else if (want.includes("://")) picked.push(yield* Skills.get(client, want))
      else return yield* Effect.fail(new Error(`no listed skill is named ${want}`))
    }
    return picked
  })

/**
 * One skill pulled: its URI, the folder it was written to, and its files there.
 *
 * @since 0.1.0
 * @category models
 */
export interface Pulled {
  readonly uri: string
  readonly folder: string
  readonly files: ReadonlyArray<string>
}

/**
 * Pulls a skill into `dir`: loads and verifies it, reads and verifies every listed file, then
 * writes them under `<dir>/<skill path>/`.
 *
 * @since 0.1.0
 * @category pulling
 */
export const pull = (client: McpClient.Service, entry: McpSchema.Skills.Skill, dir: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const segments = skillPath(entry.uri)
    if (segments === undefined) return yield* new UnsafePath({ uri: entry.uri })
    const skill = yield* Skills.load(client, entry)
    // Every file verified before anything is written.
    const files = yield* skill.readAll
    const folder = path.join(dir, ...segments)
    const written: Array<string> = []
    for (const file of files) {
      const target = path.join(folder, ...file.path.split("/"))
      yield* fs.makeDirectory(path.dirname(target), { recursive: true })
      yield* fs.writeFile(target, file.bytes)
      written.push(target)
    }
    return { uri: entry.uri, folder, files: written } satisfies Pulled
  })

/**
 * What `mcp skills list` shows of an entry: its URI, and its name and description.
 *
 * @since 0.1.0
 * @category rendering
 */
export const row = (entry: McpSchema.Skills.Skill): readonly [string, string] => [
  entry.uri,
  `${entry.frontmatter.name}: ${entry.frontmatter.description}`
]

/**
 * What `mcp skills get` shows of an entry: its fields, then its files with their sizes and digests.
 *
 * @since 0.1.0
 * @category rendering
 */
export const describe = (entry: McpSchema.Skills.Skill): ReadonlyArray<readonly [string, string]> => [
  ["uri", entry.uri],
  ...Object.entries(entry.frontmatter).map(([key, value]) =>
    [key, typeof value === "string" ? value : JSON.stringify(value)] as const
  ),
  ...(entry.resources === "dynamic"
    ? [["files", "dynamic (no digests)"] as const]
    : entry.resources.map((r) => [r.uri, `${r.size} bytes  ${r.digest.slice(0, 19)}…`] as const))
]
