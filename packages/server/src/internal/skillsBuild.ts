/**
 * The skills extension's building: a set of files made into served skills (checked, digested,
 * within the limits), once, when the skills are made. Loaded by `Skills.make` alone (through
 * `#modules`), apart from the serving (`skills.ts`), which the server loads: a server, or a
 * Worker's bundle, that makes no skills carries neither this nor the YAML parser of the
 * frontmatter (`SkillFormat.parseFrontmatter`, yaml).
 */
import { SkillFormat } from "@effect-mcp/core"
import * as SkillsSchema from "@effect-mcp/core/Schema/Skills"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Skills from "../Skills.js"
import * as McpSchema from "./mcpSchema.js"
import { definitionOf } from "./skills.js"

type SkillResource = McpSchema.Skills.SkillResource

const manifest = SkillsSchema.manifestName
const directory = SkillsSchema.directoryMimeType

// ---------------------------------------------------------------------------- paths and types

/** Why a relative path is not one a skill may have, if it is not. */
const pathProblem = (path: string): string | undefined => {
  if (path.length === 0) return "an empty path"
  if (path.length > 4096) return "a path longer than 4096 characters"
  if (path.startsWith("/")) return "an absolute path"
  if (/[\\\0]/.test(path)) return "a path with a backslash or a NUL"
  const segments = path.split("/")
  if (segments.some((s) => s === "" || s === "." || s === "..")) return "a path with an empty, . or .. segment"
  return undefined
}

const byExtension: Readonly<Record<string, string>> = {
  md: "text/markdown",
  markdown: "text/markdown",
  txt: "text/plain",
  py: "text/x-python",
  sh: "application/x-sh",
  js: "text/javascript",
  mjs: "text/javascript",
  ts: "text/typescript",
  json: "application/json",
  yaml: "application/yaml",
  yml: "application/yaml",
  toml: "application/toml",
  xml: "application/xml",
  html: "text/html",
  css: "text/css",
  csv: "text/csv",
  svg: "image/svg+xml",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  pdf: "application/pdf",
  zip: "application/zip"
}

/** Served as bytes (a base64 blob) whatever they hold. */
const binary = /^(image\/(?!svg)|application\/(pdf|zip|octet-stream))/

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

/** The text of bytes, when they are UTF-8 (a byte order mark kept: the digest covers it). */
const textOf = (bytes: Uint8Array): string | undefined => {
  try {
    return strictUtf8.decode(bytes)
  } catch {
    return undefined
  }
}

/** The URI of a path: `<scheme>://` and its segments, each percent-encoded as needed. */
const uriOf = (scheme: string, path: string) =>
  `${scheme}://${path.split("/").map(SkillFormat.encodeSegment).join("/")}`

const parentOf = (path: string) => {
  const at = path.lastIndexOf("/")
  return at < 0 ? "" : path.slice(0, at)
}

const baseName = (path: string) => path.slice(path.lastIndexOf("/") + 1)

// ---------------------------------------------------------------------------- building

/** What is wrong with a set of skills, at a path (the public module makes it a `SkillsError`). */
export interface Problem {
  readonly path: string
  readonly reason: string
}

const fail = (path: string, reason: string) => Effect.fail<Problem>({ path, reason })

/** A limit or an option that is not a whole number in range: the caller's mistake, said now. */
const checkCount = (name: string, value: number, min: number) =>
  Number.isSafeInteger(value) && value >= min
    ? Effect.void
    : Effect.dieMessage(`effect-mcp: Skills ${name} must be a whole number of at least ${min} (got ${value})`)

/** The served skills of a set of files (paths relative to the skills' root), or what is wrong with them. */
export const build = (
  files: ReadonlyMap<string, Uint8Array>,
  options: Skills.Options,
  defaults: Skills.Limits
): Effect.Effect<Skills.Service, Problem> =>
  Effect.gen(function*() {
    const limits: Skills.Limits = { ...defaults, ...options.limits }
    for (const [name, value] of Object.entries(limits)) yield* checkCount(name, value, 1)
    const scheme = options.scheme ?? "skill"
    if (!/^[a-z][a-z0-9+.-]*$/.test(scheme)) {
      return yield* Effect.dieMessage(`effect-mcp: Skills scheme ${JSON.stringify(scheme)} is not a URI scheme`)
    }
    const pageSize = options.pageSize ?? 100
    yield* checkCount("pageSize", pageSize, 1)
    const ttlMs = options.ttlMs ?? 0
    yield* checkCount("ttlMs", ttlMs, 0)
    if (files.size > limits.maxFiles) {
      return yield* fail("", `${files.size} files are more than maxFiles (${limits.maxFiles})`)
    }

    const served = yield* servedFiles(files, options, limits, scheme)

    // Every directory with a SKILL.md is a skill; its files are every file beneath it (a nested
    // skill's too: to the enclosing skill they are supporting files).
    const roots = Array.from(served.keys()).filter((p) => baseName(p) === manifest).map(parentOf).sort()
    if (roots.length > limits.maxSkills) {
      return yield* fail("", `${roots.length} skills are more than maxSkills (${limits.maxSkills})`)
    }
    const sorted = Array.from(served.values()).sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0))
    const skills: Array<Skills.Skill> = []
    const described = new Map<string, { readonly name: string; readonly description: string }>()
    for (const root of roots) {
      const skill = yield* skillAt(root, served, sorted, limits)
      described.set(skill.uri, { name: skill.name, description: skill.description })
      skills.push(skill)
    }
    skills.sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0))

    // Only the files of skills are served: anything else under the root is not.
    const inSkills = new Map<string, Skills.File>()
    for (const skill of skills) for (const file of skill.files) inSkills.set(file.uri, file)

    const directories = directoriesOf(inSkills, described, scheme)

    return {
      skills,
      files: inSkills,
      directories,
      directoryRead: options.directoryRead ?? true,
      ttlMs,
      cacheScope: options.cacheScope ?? "public",
      pageSize
    } satisfies Skills.Service
  })

/** The files, each checked and digested once. */
const servedFiles = (
  files: ReadonlyMap<string, Uint8Array>,
  options: Skills.Options,
  limits: Skills.Limits,
  scheme: string
): Effect.Effect<Map<string, Skills.File>, Problem> =>
  Effect.gen(function*() {
    let total = 0
    const served = new Map<string, Skills.File>()
    for (const [path, bytes] of files) {
      const problem = pathProblem(path)
      if (problem !== undefined) return yield* fail(path, `${problem} is not a skill file's`)
      if (bytes.length > limits.maxFileSize) {
        return yield* fail(path, `${bytes.length} bytes is more than maxFileSize (${limits.maxFileSize})`)
      }
      total += bytes.length
      if (total > limits.maxTotalSize) {
        return yield* fail(path, `the skills hold more than maxTotalSize (${limits.maxTotalSize} bytes)`)
      }
      const name = baseName(path)
      const dot = name.lastIndexOf(".")
      const guessed = options.mimeType?.(path) ??
        (name === manifest ? "text/markdown" : dot > 0 ? byExtension[name.slice(dot + 1).toLowerCase()] : undefined)
      const text = guessed !== undefined && binary.test(guessed) ? undefined : textOf(bytes)
      served.set(path, {
        path,
        uri: uriOf(scheme, path),
        size: bytes.length,
        digest: yield* SkillFormat.digest(bytes),
        mimeType: guessed ?? (text === undefined ? "application/octet-stream" : "text/plain"),
        bytes,
        text
      })
    }

    return served
  })

/** The skill whose SKILL.md is in `root`: checked, with its files (every served file beneath it). */
const skillAt = (
  root: string,
  served: ReadonlyMap<string, Skills.File>,
  sorted: ReadonlyArray<Skills.File>,
  limits: Skills.Limits
): Effect.Effect<Skills.Skill, Problem> =>
  Effect.gen(function*() {
    const at = root === "" ? manifest : `${root}/${manifest}`
    if (root === "") return yield* fail(at, "a SKILL.md at the root: put it in a directory named after its skill")
    const own = served.get(at)!
    const name = baseName(root)
    if (!SkillFormat.isValidName(name)) {
      return yield* fail(
        at,
        `the skill's directory ${JSON.stringify(name)} is not a skill name (1-64 lowercase letters, digits and ` +
          "hyphens, no hyphen first, last or twice in a row)"
      )
    }
    if (own.text === undefined) return yield* fail(at, "it is not UTF-8 text")
    const parsed = yield* SkillFormat.parseFrontmatter(own.text)
    if (Either.isLeft(parsed)) return yield* fail(at, parsed.left)
    const frontmatter = parsed.right
    if (frontmatter.name !== name) {
      return yield* fail(
        at,
        `its frontmatter name ${JSON.stringify(frontmatter.name)} is not its directory's name ${JSON.stringify(name)}`
      )
    }
    const description = frontmatter.description
    if (typeof description !== "string" || description.trim().length === 0 || description.length > 1024) {
      return yield* fail(at, "its frontmatter description is not a string of 1 to 1024 characters")
    }
    const metadata = frontmatter.metadata
    if (typeof metadata === "object" && metadata !== null && !Array.isArray(metadata)) {
      const reserved = Object.keys(metadata).find((key) => key.startsWith("io.modelcontextprotocol/"))
      if (reserved !== undefined) {
        return yield* fail(at, `its metadata key ${reserved} is reserved for MCP extensions (none is defined)`)
      }
    }
    const prefix = `${root}/`
    const members = sorted.filter((f) => f.path.startsWith(prefix) && f !== own)
    const count = members.length + 1
    if (count > limits.maxFilesPerSkill) {
      return yield* fail(at, `the skill has ${count} files, more than maxFilesPerSkill (${limits.maxFilesPerSkill})`)
    }
    const size = members.reduce((n, f) => n + f.size, own.size)
    if (size > limits.maxSkillSize) {
      return yield* fail(at, `the skill holds ${size} bytes, more than maxSkillSize (${limits.maxSkillSize})`)
    }
    const resources: ReadonlyArray<SkillResource> = [own, ...members].map((f) => ({
      uri: f.uri,
      digest: f.digest,
      size: f.size
    }))
    return {
      uri: own.uri,
      path: root,
      name,
      description,
      entry: {
        uri: own.uri,
        frontmatter: frontmatter as McpSchema.Skills.SkillFrontmatter,
        resources
      },
      files: [own, ...members]
    } satisfies Skills.Skill
  })

/**
 * The directories: every level of every served file's path (the skill roots, their
 * subdirectories, and the prefixes above them), each with its direct children.
 */
const directoriesOf = (
  inSkills: ReadonlyMap<string, Skills.File>,
  described: ReadonlyMap<string, { readonly name: string; readonly description: string }>,
  scheme: string
): Map<string, ReadonlyArray<McpSchema.Resource.Resource>> => {
  const children = new Map<string, Map<string, McpSchema.Resource.Resource>>()
  const childrenOf = (dir: string) => {
    let found = children.get(dir)
    if (found === undefined) children.set(dir, found = new Map())
    return found
  }
  for (const file of inSkills.values()) {
    const parent = parentOf(file.path)
    childrenOf(parent).set(file.uri, definitionOf(file, described.get(file.uri)))
    for (let dir = parent; dir !== ""; dir = parentOf(dir)) {
      const above = parentOf(dir)
      if (above === "") break
      const uri = uriOf(scheme, dir)
      childrenOf(above).set(uri, { uri, name: baseName(dir), mimeType: directory })
    }
  }
  const directories = new Map<string, ReadonlyArray<McpSchema.Resource.Resource>>()
  for (const [dir, entries] of children) {
    if (dir === "") continue
    directories.set(
      uriOf(scheme, dir),
      Array.from(entries.values()).sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0))
    )
  }

  return directories
}
