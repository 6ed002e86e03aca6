/**
 * The host side of the skills extension: listing and getting entries, and loading a skill from
 * its entry. Nothing is fetched ahead of need: listing reads no file; loading reads `SKILL.md`
 * alone; a supporting file is read when asked for. Every file read is checked against the held
 * entry (listed there, its size, then its digest; `SKILL.md`'s frontmatter field by field) and
 * never handed out unverified. Everything the server sends is bounded: the listing by a count of
 * entries and of pages, an entry by the extension's limits before any file of it is read.
 */
import { Schema as McpSchema, SkillFormat } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as ClientError from "../ClientError.js"
import type * as McpClient from "../McpClient.js"
import * as Skills from "../Skills.js"
import { fromBase64 } from "./bytes.js"

type Skill = McpSchema.Skills.Skill
type SkillResource = McpSchema.Skills.SkillResource

const extension = McpSchema.Skills.extensionId
const manifest = McpSchema.Skills.manifestName

const limitsOf = (options: Skills.Options | undefined) => ({
  maxSkills: options?.maxSkills ?? 10_000,
  maxPages: options?.maxPages ?? 100,
  maxResourcesPerSkill: options?.maxResourcesPerSkill ?? McpSchema.Skills.maxResourcesPerSkill,
  maxSkillSize: options?.maxSkillSize ?? McpSchema.Skills.maxSkillSize
})

/** The server's settings of the extension, if it declared it. */
export const declared = (client: McpClient.Service): McpSchema.Skills.SkillsExtensionCapability | undefined => {
  const settings = client.serverCapabilities.extensions?.[extension]
  return settings === undefined ? undefined : settings as McpSchema.Skills.SkillsExtensionCapability
}

const requireDeclared = (client: McpClient.Service, setting?: "directoryRead") => {
  const settings = declared(client)
  return settings === undefined || (setting !== undefined && settings[setting] !== true)
    ? Effect.fail(new Skills.NotDeclared({ extension, ...(setting !== undefined ? { setting } : {}) }))
    : Effect.void
}

// ---------------------------------------------------------------------------- entries

export const list = (
  client: McpClient.Service,
  options?: Skills.Options
): Effect.Effect<ReadonlyArray<Skill>, ClientError.ClientError | Skills.NotDeclared | Skills.ListingTooLong> =>
  Effect.gen(function*() {
    yield* requireDeclared(client)
    const limits = limitsOf(options)
    const skills: Array<Skill> = []
    const seen = new Set<string>()
    let cursor: string | undefined
    for (let pages = 1;; pages++) {
      const page = yield* client.request("skills/list", cursor === undefined ? {} : { cursor })
      if (skills.length + page.skills.length > limits.maxSkills) {
        return yield* new Skills.ListingTooLong({ limit: limits.maxSkills, unit: "skills" })
      }
      skills.push(...page.skills)
      const next = page.nextCursor
      if (next === undefined || next === "") return skills
      // A cursor given again would page forever.
      if (seen.has(next) || pages >= limits.maxPages) {
        return yield* new Skills.ListingTooLong({ limit: limits.maxPages, unit: "pages" })
      }
      seen.add(next)
      cursor = next
    }
  })

export const get = (
  client: McpClient.Service,
  uri: string
): Effect.Effect<Skill, ClientError.ClientError | Skills.NotDeclared> =>
  Effect.zipRight(
    requireDeclared(client),
    Effect.map(client.request("skills/get", { uri }), (result) => result.skill)
  )

export const readDirectory = (
  client: McpClient.Service,
  uri: string,
  options?: Skills.Options
): Effect.Effect<
  ReadonlyArray<McpSchema.Resource.Resource>,
  ClientError.ClientError | Skills.NotDeclared | Skills.ListingTooLong
> =>
  Effect.gen(function*() {
    yield* requireDeclared(client, "directoryRead")
    const limits = limitsOf(options)
    const children: Array<McpSchema.Resource.Resource> = []
    const seen = new Set<string>()
    let cursor: string | undefined
    for (let pages = 1;; pages++) {
      const page = yield* client.request("resources/directory/read", cursor === undefined ? { uri } : { uri, cursor })
      if (children.length + page.resources.length > limits.maxSkills) {
        return yield* new Skills.ListingTooLong({ limit: limits.maxSkills, unit: "skills" })
      }
      children.push(...page.resources)
      const next = page.nextCursor
      if (next === undefined || next === "") return children
      if (seen.has(next) || pages >= limits.maxPages) {
        return yield* new Skills.ListingTooLong({ limit: limits.maxPages, unit: "pages" })
      }
      seen.add(next)
      cursor = next
    }
  })

// ---------------------------------------------------------------------------- checking an entry

/** The path of a file within its skill (its URI past the skill's root, decoded), if it is a safe one. */
const relativePath = (root: string, uri: string): string | undefined => {
  if (!uri.startsWith(`${root}/`)) return undefined
  const segments = uri.slice(root.length + 1).split("/")
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
  return decoded.join("/")
}

/** A file of a checked entry: its listing and its path within the skill. */
interface Listed extends SkillResource {
  readonly path: string
}

/** The files of an entry, checked as the extension has them before any is read; or why it will not load. */
const check = (entry: Skill, limits: ReturnType<typeof limitsOf>): Either.Either<ReadonlyArray<Listed>, string> => {
  const root = SkillFormat.rootOf(entry.uri)
  const name = SkillFormat.nameOf(entry.uri)
  if (root === undefined || name === undefined) return Either.left(`its uri does not end in /${manifest}`)
  if (!SkillFormat.isValidName(name)) return Either.left(`its name ${JSON.stringify(name)} is not a skill name`)
  if (entry.frontmatter.name !== name) {
    return Either.left(`its frontmatter name ${JSON.stringify(entry.frontmatter.name)} is not its uri's ${name}`)
  }
  if (entry.resources === "dynamic") {
    return Either.left(`its resources are "dynamic": there is nothing to verify its files against`)
  }
  const resources = entry.resources
  if (resources.length > limits.maxResourcesPerSkill) {
    return Either.left(`it lists ${resources.length} files, more than ${limits.maxResourcesPerSkill}`)
  }
  const total = resources.reduce((n, r) => n + r.size, 0)
  if (total > limits.maxSkillSize) return Either.left(`its files hold ${total} bytes, more than ${limits.maxSkillSize}`)
  const listed: Array<Listed> = []
  const uris = new Set<string>()
  for (const resource of resources) {
    if (uris.has(resource.uri)) return Either.left(`it lists ${resource.uri} twice`)
    uris.add(resource.uri)
    const path = resource.uri === entry.uri ? manifest : relativePath(root, resource.uri)
    if (path === undefined) return Either.left(`${resource.uri} is not a file within ${root}`)
    listed.push({ ...resource, path })
  }
  if (!uris.has(entry.uri)) return Either.left(`its resources do not list its ${manifest}`)
  return Either.right(listed)
}

// ---------------------------------------------------------------------------- reading a file

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

/** The contents of `uri` in a `resources/read` result: the one of its URI, else the only one. */
const contentOf = (result: McpSchema.Resource.ReadResourceResult, uri: string) =>
  result.contents.find((c) => c.uri === uri) ?? (result.contents.length === 1 ? result.contents[0] : undefined)

type ReadFailure =
  | ClientError.ClientError
  | Skills.SizeMismatch
  | Skills.DigestMismatch
  | Skills.InvalidSkill

/**
 * Reads one listed file and verifies it: its size (before any hashing, and before a blob is decoded
 * when its length already tells), then its digest.
 */
const readVerified = (
  client: McpClient.Service,
  skill: string,
  file: Listed
): Effect.Effect<Skills.File, ReadFailure> =>
  Effect.gen(function*() {
    const result = yield* client.readResource(file.uri)
    const content = contentOf(result, file.uri)
    if (content === undefined) {
      return yield* new Skills.InvalidSkill({ uri: skill, reason: `resources/read of ${file.uri} answered no content` })
    }
    const tooLong = (actual: number) => new Skills.SizeMismatch({ uri: file.uri, expected: file.size, actual })
    let bytes: Uint8Array
    let text: string | undefined
    if ("text" in content) {
      // Each UTF-16 unit is at least one byte: a text longer than the size is too long, unencoded.
      if (content.text.length > file.size) return yield* tooLong(SkillFormat.utf8(content.text).length)
      bytes = SkillFormat.utf8(content.text)
      text = content.text
    } else {
      const blob = content.blob
      if (Math.floor(blob.replace(/=+$/, "").length * 3 / 4) > file.size + 2) {
        return yield* tooLong(Math.floor(blob.length * 3 / 4))
      }
      const decoded = fromBase64(blob)
      if (decoded === undefined) {
        return yield* new Skills.InvalidSkill({ uri: skill, reason: `${file.uri} came as a blob that is not base64` })
      }
      bytes = decoded
    }
    if (bytes.length !== file.size) return yield* tooLong(bytes.length)
    const actual = yield* SkillFormat.digest(bytes)
    if (actual !== file.digest) {
      return yield* new Skills.DigestMismatch({ uri: file.uri, expected: file.digest, actual })
    }
    if (text === undefined) {
      try {
        text = strictUtf8.decode(bytes)
      } catch {
        text = undefined
      }
    }
    return {
      uri: file.uri,
      path: file.path,
      ...(content.mimeType !== undefined ? { mimeType: content.mimeType } : {}),
      bytes,
      text
    }
  })

// ---------------------------------------------------------------------------- loading

export const load = (
  client: McpClient.Service,
  entry: Skill,
  options?: Skills.Options
): Effect.Effect<Skills.Loaded, Skills.LoadError> =>
  Effect.gen(function*() {
    const checked = check(entry, limitsOf(options))
    if (Either.isLeft(checked)) return yield* new Skills.InvalidSkill({ uri: entry.uri, reason: checked.left })
    const listed = checked.right
    const own = listed.find((f) => f.uri === entry.uri)!
    const skillMd = yield* readVerified(client, entry.uri, own)
    if (skillMd.text === undefined) {
      return yield* new Skills.InvalidSkill({ uri: entry.uri, reason: `its ${manifest} is not UTF-8 text` })
    }
    const parsed = yield* SkillFormat.parseFrontmatter(skillMd.text)
    if (Either.isLeft(parsed)) {
      return yield* new Skills.FrontmatterMismatch({ uri: entry.uri, fields: [], detail: parsed.left })
    }
    const differing = SkillFormat.frontmatterDifferences(parsed.right, entry.frontmatter)
    if (differing.length > 0) {
      return yield* new Skills.FrontmatterMismatch({
        uri: entry.uri,
        fields: differing,
        detail: `the file and the entry differ in ${differing.join(", ")}`
      })
    }

    // Verified files, kept for the skill's lifetime (bounded by its size limit, checked above).
    const cache = new Map<string, Skills.File>([[own.uri, skillMd]])
    const byUri = new Map(listed.map((f) => [f.uri, f]))
    const byPath = new Map(listed.map((f) => [f.path, f]))
    const root = SkillFormat.rootOf(entry.uri)!
    const read = (target: string): Effect.Effect<Skills.File, Skills.ReadError> => {
      const file = byUri.get(target) ?? byPath.get(target)
      if (file === undefined) {
        // A file the held entry does not list is a change to the skill: a verification failure.
        const uri = target.includes("://") ? target : `${root}/${target}`
        return Effect.fail(new Skills.UnlistedFile({ skill: entry.uri, uri }))
      }
      const kept = cache.get(file.uri)
      return kept !== undefined
        ? Effect.succeed(kept)
        : Effect.tap(readVerified(client, entry.uri, file), (verified) =>
          Effect.sync(() => cache.set(file.uri, verified)))
    }
    return {
      entry,
      manifest: skillMd,
      text: skillMd.text,
      files: listed.map(({ path, uri }) => ({ uri, path })),
      read,
      readAll: Effect.forEach(listed, (f) =>
        read(f.uri))
    } satisfies Skills.Loaded
  })
