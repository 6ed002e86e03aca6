/**
 * Agent Skills served over MCP: the skills extension `io.modelcontextprotocol/skills` (SEP-2640).
 * A skill is a directory with a `SKILL.md` (YAML frontmatter with at least `name` and
 * `description`) and any other files; each file is a resource (`skill://<skill-path>/<file>`), read
 * with `resources/read` and listed with `resources/list`, and the server answers `skills/list`,
 * `skills/get` and (unless `directoryRead: false`) `resources/directory/read`.
 *
 * A server serves skills when its context has the `Skills` service: provide `Skills.layer` (files
 * in memory) or `NodeSkills.layerDirectory` (a folder) to `McpServer.layer`. The skills are read,
 * checked and digested once, when the layer is built: a skill that breaks a rule of the Agent Skills
 * format or a limit fails the layer with a `SkillsError` naming the file and the rule.
 *
 * @example
 * ```ts
 * import { McpServer, Skills } from "@effect-mcp/server"
 * import { Layer } from "effect"
 *
 * const PdfSkill = Skills.layer({
 *   "pdf-processing/SKILL.md": "---\nname: pdf-processing\ndescription: Fill in PDF forms\n---\n\nSee references/FORMS.md.\n",
 *   "pdf-processing/references/FORMS.md": "# Forms\n"
 * })
 *
 * export const Server = McpServer.layer({
 *   serverInfo: { name: "docs", version: "1.0.0" },
 *   revisions: ["2025-11-25", "2026-07-28"]
 * }).pipe(Layer.provide(PdfSkill))
 * ```
 *
 * @since 0.1.0
 */
import type { Schema as McpSchema } from "@effect-mcp/core"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as modules from "./internal/lazy.js"
import type * as SkillsBuild from "./internal/skillsBuild.js"

/**
 * One file of a served skill: its path (relative to the skills' root), resource URI, size and
 * digest, and its content (as text when it is UTF-8 and not of a binary type).
 *
 * @since 0.1.0
 * @category models
 */
export interface File {
  readonly path: string
  readonly uri: string
  readonly size: number
  readonly digest: string
  readonly mimeType: string
  readonly bytes: Uint8Array
  readonly text: string | undefined
}

/**
 * One served skill: its `SKILL.md` URI, its skill path (`acme/billing/refunds`), its name and
 * description, the entry `skills/list` and `skills/get` answer with, and its files (`SKILL.md`
 * first; a nested skill's files are its enclosing skill's too).
 *
 * @since 0.1.0
 * @category models
 */
export interface Skill {
  readonly uri: string
  readonly path: string
  readonly name: string
  readonly description: string
  readonly entry: McpSchema.Skills.Skill
  readonly files: ReadonlyArray<File>
}

/**
 * The served skills, as the server reads them: the skills by URI order, every file of a skill by
 * URI, the directories (each with its direct children), and how they are served.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  readonly skills: ReadonlyArray<Skill>
  readonly files: ReadonlyMap<string, File>
  readonly directories: ReadonlyMap<string, ReadonlyArray<McpSchema.Resource.Resource>>
  /** Whether `resources/directory/read` is served (and `directoryRead: true` declared). */
  readonly directoryRead: boolean
  /** 2026-07-28: the caching hints of `skills/list`, `skills/get` and `resources/directory/read`. */
  readonly ttlMs: number
  readonly cacheScope: "public" | "private"
  /** Entries per page of `skills/list` and `resources/directory/read`. */
  readonly pageSize: number
}

/**
 * The skills a server serves. `McpServer.make` reads it from its context: with it, the server
 * declares the extension and serves its methods and files.
 *
 * @since 0.1.0
 * @category tags
 */
export class Skills extends Context.Tag("@effect-mcp/server/Skills")<Skills, Service>() {}

/**
 * A set of skills that cannot be served: the file (path relative to the skills' root; empty for
 * the whole set) and the rule it breaks.
 *
 * @since 0.1.0
 * @category errors
 */
export class SkillsError extends Data.TaggedError("SkillsError")<{
  readonly path: string
  readonly reason: string
}> {
  override get message(): string {
    return this.path === "" ? `Skills: ${this.reason}` : `Skills: ${this.path}: ${this.reason}`
  }
}

/**
 * What one server serves at most. The per-skill limits default to the extension's own (512 files,
 * 16 MiB), which every host accepts.
 *
 * @since 0.1.0
 * @category models
 */
export interface Limits {
  /** Skills (default 1,000). */
  readonly maxSkills: number
  /** Files in all (default 10,000). */
  readonly maxFiles: number
  /** Files of one skill, `SKILL.md` included (default 512). */
  readonly maxFilesPerSkill: number
  /** Bytes of one file (default 16 MiB). */
  readonly maxFileSize: number
  /** Bytes of one skill's files together (default 16 MiB). */
  readonly maxSkillSize: number
  /** Bytes of every file together (default 64 MiB). */
  readonly maxTotalSize: number
}

/**
 * @since 0.1.0
 * @category constants
 */
export const defaultLimits: Limits = {
  maxSkills: 1_000,
  maxFiles: 10_000,
  maxFilesPerSkill: 512,
  maxFileSize: 16 * 1024 * 1024,
  maxSkillSize: 16 * 1024 * 1024,
  maxTotalSize: 64 * 1024 * 1024
}

/**
 * How skills are served.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The URI scheme of the skills' resources (default `skill`). */
  readonly scheme?: string
  /** Serve `resources/directory/read` and declare `directoryRead: true` (default true). */
  readonly directoryRead?: boolean
  /** 2026-07-28: `ttlMs` of `skills/list`, `skills/get` and `resources/directory/read` results (default 0). */
  readonly ttlMs?: number
  /** 2026-07-28: `cacheScope` of `skills/list`, `skills/get` and `resources/directory/read` results (default `public`). */
  readonly cacheScope?: "public" | "private"
  /** Entries per page of `skills/list` and `resources/directory/read` (default 100). */
  readonly pageSize?: number
  readonly limits?: Partial<Limits>
  /**
   * The `mimeType` of a file, by its path (default: by its extension; `SKILL.md` is
   * `text/markdown`; other UTF-8 text `text/plain`, other bytes `application/octet-stream`).
   */
  readonly mimeType?: (path: string) => string | undefined
}

/**
 * Files by path relative to the skills' root (`pdf-processing/SKILL.md`): text (served as its
 * UTF-8 bytes) or bytes.
 *
 * @since 0.1.0
 * @category models
 */
export type Files =
  | Readonly<Record<string, string | Uint8Array>>
  | Iterable<readonly [string, string | Uint8Array]>

const encoder = new TextEncoder()

const isIterable = (files: Files): files is Iterable<readonly [string, string | Uint8Array]> =>
  typeof (files as { readonly [Symbol.iterator]?: unknown })[Symbol.iterator] === "function"

/**
 * Skills of files: every directory holding a `SKILL.md` is a skill, its skill path the directory's
 * path (`acme/billing/refunds`, whose name is `refunds`), its files every file beneath it. Each
 * skill is checked (its frontmatter parses, names its directory, has a description; no metadata
 * key is reserved; its files and bytes are within the limits) and each file digested (SHA-256).
 * Files outside every skill are not served.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: (files: Files, options?: Options) => Effect.Effect<Service, SkillsError> = /* @__PURE__ */
  Effect.fn("Skills.make")(function*(files: Files, options?: Options) {
    const bytes = new Map<string, Uint8Array>()
    for (const [path, content] of isIterable(files) ? files : Object.entries(files)) {
      if (bytes.has(path)) return yield* new SkillsError({ path, reason: "the path is given twice" })
      bytes.set(path, typeof content === "string" ? encoder.encode(content) : content)
    }
    const internal = yield* loadInternal()
    return yield* Effect.mapError(internal.build(bytes, options ?? {}, defaultLimits), (p) => new SkillsError(p))
  })

/**
 * The skills' building, loaded when skills are first made (a server without skills never loads it).
 * `make` is marked pure (`Effect.fn` makes a function and runs nothing): a bundle whose code never
 * makes skills leaves it out, and with it the building and the YAML parser (`internal/skillsBuild.ts`).
 */
const loadInternal = (): Effect.Effect<typeof SkillsBuild> => Effect.promise(() => modules.skillsBuild())

/**
 * The `Skills` of files in memory, as a layer (see `make`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (files: Files, options?: Options): Layer.Layer<Skills, SkillsError> =>
  Layer.effect(Skills, make(files, options))
