/**
 * The host side of the skills extension `io.modelcontextprotocol/skills` (SEP-2640), over a
 * connected `McpClient`: list the skills a server serves, get one by the URI of its `SKILL.md`,
 * and load one, reading and verifying its files.
 *
 * - **Nothing ahead of need.** `list` and `get` read entries only; `load` reads `SKILL.md` alone;
 *   a supporting file is read when `read` asks for it (and kept, verified, for the next ask).
 * - **Verified, or not at all.** Before any file of a skill is read, its entry is checked (its
 *   files within the skill's directory, `SKILL.md` listed, within the limits of 512 files and 16
 *   MiB). Each file read must be listed in the held entry (`UnlistedFile`), have its size
 *   (`SizeMismatch`) and its digest (`DigestMismatch`); `SKILL.md`'s frontmatter must equal the
 *   entry's, field by field (`FrontmatterMismatch`). Content that fails is never returned.
 * - **Bounded.** A listing stops with `ListingTooLong` past `maxSkills` entries or `maxPages` pages
 *   (or a cursor given twice).
 *
 * @example
 * ```ts
 * import { McpClient, Skills } from "@effect-mcp/client"
 * import { Effect } from "effect"
 *
 * export const firstSkill = Effect.gen(function*() {
 *   const client = yield* McpClient.McpClient
 *   const [entry] = yield* Skills.list(client)
 *   const skill = yield* Skills.load(client, entry)
 *   // The instructions, verified; a supporting file, read and verified when it is needed.
 *   const forms = yield* skill.read("references/FORMS.md")
 *   return { instructions: skill.text, forms: forms.text }
 * })
 * ```
 *
 * @since 0.1.0
 */
import type { Schema as McpSchema } from "@effect-mcp/core"
import * as Data from "effect/Data"
import type * as Effect from "effect/Effect"
import type * as ClientError from "./ClientError.js"
import * as internal from "./internal/skills.js"
import type * as McpClient from "./McpClient.js"

/**
 * The bounds of what a server may send (defaults: 10,000 entries and 100 pages a listing; the
 * extension's 512 files and 16 MiB a skill, which every host must accept).
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Entries of one listing (`list`), or children of one directory (`readDirectory`). */
  readonly maxSkills?: number
  /** Pages of one listing. */
  readonly maxPages?: number
  /** Files of one skill, `SKILL.md` included (`load`). */
  readonly maxResourcesPerSkill?: number
  /** Bytes of one skill's files together (`load`). */
  readonly maxSkillSize?: number
}

/**
 * A verified file of a skill: its URI, its path within the skill (`references/FORMS.md`), its bytes,
 * and its text when they are UTF-8.
 *
 * @since 0.1.0
 * @category models
 */
export interface File {
  readonly uri: string
  readonly path: string
  readonly mimeType?: string
  readonly bytes: Uint8Array
  readonly text: string | undefined
}

/**
 * A loaded skill: the entry it was loaded from (held: every read is checked against it), its
 * verified `SKILL.md` and its text, and the files it lists, each read (and verified) on demand.
 *
 * @since 0.1.0
 * @category models
 */
export interface Loaded {
  readonly entry: McpSchema.Skills.Skill
  readonly manifest: File
  /** The text of `SKILL.md`: its frontmatter and instructions. */
  readonly text: string
  /** The files the entry lists (`SKILL.md` first), none read but `SKILL.md`. */
  readonly files: ReadonlyArray<{ readonly uri: string; readonly path: string }>
  /** A listed file, by URI or by path within the skill; read and verified at its first ask. */
  readonly read: (uriOrPath: string) => Effect.Effect<File, ReadError>
  /** Every listed file, read and verified, in the entry's order. */
  readonly readAll: Effect.Effect<ReadonlyArray<File>, ReadError>
}

/**
 * The server did not declare the extension (or, for `readDirectory`, its `directoryRead`
 * setting): nothing was sent.
 *
 * @since 0.1.0
 * @category errors
 */
export class NotDeclared extends Data.TaggedError("NotDeclared")<{
  readonly extension: string
  readonly setting?: string
}> {
  override get message(): string {
    return this.setting === undefined
      ? `The server does not declare the ${this.extension} extension`
      : `The server does not declare ${this.setting} of the ${this.extension} extension`
  }
}

/**
 * A listing past its bound: more than `limit` entries, or more than `limit` pages (a cursor given
 * twice included).
 *
 * @since 0.1.0
 * @category errors
 */
export class ListingTooLong extends Data.TaggedError("ListingTooLong")<{
  readonly limit: number
  readonly unit: "skills" | "pages"
}> {
  override get message(): string {
    return `The server's listing goes past ${this.limit} ${this.unit}`
  }
}

/**
 * An entry that cannot be loaded, as it stands or as its files came: its URI and why (its files
 * outside its directory, past the limits, `"dynamic"`, a `SKILL.md` that is not text).
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidSkill extends Data.TaggedError("InvalidSkill")<{
  readonly uri: string
  readonly reason: string
}> {
  override get message(): string {
    return `The skill ${this.uri} cannot be loaded: ${this.reason}`
  }
}

/**
 * A file read is not the size its entry says: not what the entry described (the content was not
 * used).
 *
 * @since 0.1.0
 * @category errors
 */
export class SizeMismatch extends Data.TaggedError("SizeMismatch")<{
  readonly uri: string
  readonly expected: number
  readonly actual: number
}> {
  override get message(): string {
    return `${this.uri} is ${this.actual} bytes, not the ${this.expected} its entry lists: not used`
  }
}

/**
 * A file read does not have the digest its entry says (the content was not used).
 *
 * @since 0.1.0
 * @category errors
 */
export class DigestMismatch extends Data.TaggedError("DigestMismatch")<{
  readonly uri: string
  readonly expected: string
  readonly actual: string
}> {
  override get message(): string {
    return `${this.uri} has digest ${this.actual}, not the ${this.expected} its entry lists: not used`
  }
}

/**
 * `SKILL.md`'s frontmatter is not the entry's: the fields that differ (none when the file's does
 * not parse), and how. The skill is not loaded.
 *
 * @since 0.1.0
 * @category errors
 */
export class FrontmatterMismatch extends Data.TaggedError("FrontmatterMismatch")<{
  readonly uri: string
  readonly fields: ReadonlyArray<string>
  readonly detail: string
}> {
  override get message(): string {
    return `The frontmatter of ${this.uri} is not its entry's (${this.detail}): not loaded`
  }
}

/**
 * A read of a file the held entry does not list: a change to the skill, refused as a digest
 * mismatch would be (refresh the entry with `get`, then load it again).
 *
 * @since 0.1.0
 * @category errors
 */
export class UnlistedFile extends Data.TaggedError("UnlistedFile")<{
  readonly skill: string
  readonly uri: string
}> {
  override get message(): string {
    return `${this.uri} is not a file of ${this.skill} as its entry lists them`
  }
}

/**
 * What reading a file of a loaded skill may fail with.
 *
 * @since 0.1.0
 * @category errors
 */
export type ReadError = ClientError.ClientError | InvalidSkill | SizeMismatch | DigestMismatch | UnlistedFile

/**
 * What loading a skill may fail with.
 *
 * @since 0.1.0
 * @category errors
 */
export type LoadError = ClientError.ClientError | InvalidSkill | SizeMismatch | DigestMismatch | FrontmatterMismatch

/**
 * The server's settings of the extension, if it declared it (`{ directoryRead: true }`, `{}`).
 *
 * @since 0.1.0
 * @category accessors
 */
export const declared: (client: McpClient.Service) => McpSchema.Skills.SkillsExtensionCapability | undefined =
  internal.declared

/**
 * Every entry the server lists (`skills/list`, each page followed), no file read. An empty or
 * partial listing is no proof the server has no other skills: `get` one by its URI.
 *
 * @since 0.1.0
 * @category entries
 */
export const list: (
  client: McpClient.Service,
  options?: Options
) => Effect.Effect<ReadonlyArray<McpSchema.Skills.Skill>, ClientError.ClientError | NotDeclared | ListingTooLong> =
  internal.list

/**
 * The entry of the skill whose `SKILL.md` is at `uri` (`skills/get`; -32602 from a server that does
 * not serve it), no file read.
 *
 * @since 0.1.0
 * @category entries
 */
export const get: (
  client: McpClient.Service,
  uri: string
) => Effect.Effect<McpSchema.Skills.Skill, ClientError.ClientError | NotDeclared> = internal.get

/**
 * The children of a directory resource (`resources/directory/read`, each page followed), for a
 * server that declares `directoryRead`. A live view: it never extends a held entry.
 *
 * @since 0.1.0
 * @category entries
 */
export const readDirectory: (
  client: McpClient.Service,
  uri: string,
  options?: Options
) => Effect.Effect<
  ReadonlyArray<McpSchema.Resource.Resource>,
  ClientError.ClientError | NotDeclared | ListingTooLong
> = internal.readDirectory

/**
 * Loads a skill from its entry: checks the entry, reads its `SKILL.md` and verifies it (size,
 * digest, frontmatter). Its other files are read when asked for (`read`, `readAll`), each verified
 * against the entry.
 *
 * @since 0.1.0
 * @category loading
 */
export const load: (
  client: McpClient.Service,
  entry: McpSchema.Skills.Skill,
  options?: Options
) => Effect.Effect<Loaded, LoadError> = internal.load
