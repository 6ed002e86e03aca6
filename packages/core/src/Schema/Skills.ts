/**
 * The skills extension `io.modelcontextprotocol/skills` (SEP-2640): a server serves Agent Skills
 * (a directory with a `SKILL.md` and its files) as resources, and lists them with `skills/list`,
 * names one with `skills/get`, and (with `directoryRead`) lists a directory's children with
 * `resources/directory/read`.
 *
 * A skill entry carries the skill's `SKILL.md` frontmatter verbatim and a complete manifest of its
 * files, each with the SHA-256 digest and the size of its bytes, so that a client verifies every
 * file it reads against the entry it holds.
 *
 * The types have one shape in every revision; in 2026-07-28 the method catalog adds the envelope
 * (`resultType`, and `ttlMs` / `cacheScope` on the results of `skills/list` and `skills/get`).
 *
 * @since 0.1.0
 */
import * as Built from "../internal/schema/skills.js"
import { PaginatedRequestParams } from "./Base.js"

const built = Built.skills()

/**
 * The extension identifier, the key in `capabilities.extensions`.
 *
 * @since 0.1.0
 * @category constants
 */
export const extensionId = Built.extensionId

/**
 * The file every skill has at its root.
 *
 * @since 0.1.0
 * @category constants
 */
export const manifestName = "SKILL.md" as const

/**
 * The `mimeType` of a directory resource (`resources/directory/read`).
 *
 * @since 0.1.0
 * @category constants
 */
export const directoryMimeType = "inode/directory" as const

/**
 * The most resource entries a host must accept in one skill, `SKILL.md` included.
 *
 * @since 0.1.0
 * @category constants
 */
export const maxResourcesPerSkill = 512

/**
 * The most bytes a host must accept in one skill: the sum of its files' `size` (16 MiB).
 *
 * @since 0.1.0
 * @category constants
 */
export const maxSkillSize = 16 * 1024 * 1024

/**
 * The extension's settings: `directoryRead` when the server serves `resources/directory/read`
 * (an empty object: supported, no optional features).
 *
 * @since 0.1.0
 * @category schemas
 */
export const SkillsExtensionCapability = built.SkillsExtensionCapability

/**
 * @since 0.1.0
 * @category models
 */
export type SkillsExtensionCapability = typeof SkillsExtensionCapability.Type

/**
 * The digest of a file's bytes: `sha256:` and 64 lowercase hexadecimal digits.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Digest = built.Digest

/**
 * One file of a skill: its resource URI, and the digest and size (in bytes) of its content.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SkillResource = built.SkillResource

/**
 * @since 0.1.0
 * @category models
 */
export type SkillResource = typeof SkillResource.Type

/**
 * A skill's `SKILL.md` frontmatter, as a JSON object: `name` and `description`, and every other
 * field its author wrote.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SkillFrontmatter = built.SkillFrontmatter

/**
 * @since 0.1.0
 * @category models
 */
export type SkillFrontmatter = typeof SkillFrontmatter.Type

/**
 * The files of a skill: every one of them, or `"dynamic"` when the server generates its content
 * and publishes no digests.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SkillResources = built.SkillResources

/**
 * The entry of one skill: the URI of its `SKILL.md`, its frontmatter and its files. The same in
 * `skills/list` and `skills/get`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Skill = built.Skill

/**
 * @since 0.1.0
 * @category models
 */
export type Skill = typeof Skill.Type

/**
 * Params of `skills/list`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ListSkillsRequestParams = PaginatedRequestParams

/**
 * @since 0.1.0
 * @category models
 */
export type ListSkillsRequestParams = typeof ListSkillsRequestParams.Type

/**
 * Result of `skills/list`: a page of entries (an entry is never split across pages).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ListSkillsResult = built.ListSkillsResult

/**
 * @since 0.1.0
 * @category models
 */
export type ListSkillsResult = typeof ListSkillsResult.Type

/**
 * Params of `skills/get`: the URI of a skill's `SKILL.md`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const GetSkillRequestParams = built.GetSkillRequestParams

/**
 * @since 0.1.0
 * @category models
 */
export type GetSkillRequestParams = typeof GetSkillRequestParams.Type

/**
 * Result of `skills/get`: the skill's entry (no cursor: one entry is not a list).
 *
 * @since 0.1.0
 * @category schemas
 */
export const GetSkillResult = built.GetSkillResult

/**
 * @since 0.1.0
 * @category models
 */
export type GetSkillResult = typeof GetSkillResult.Type

/**
 * Params of `resources/directory/read`: the URI of a directory resource.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ReadResourceDirectoryRequestParams = built.ReadResourceDirectoryRequestParams

/**
 * @since 0.1.0
 * @category models
 */
export type ReadResourceDirectoryRequestParams = typeof ReadResourceDirectoryRequestParams.Type

/**
 * Result of `resources/directory/read`: the directory's direct children, files with their
 * resource metadata and subdirectories as directory resources (`mimeType: "inode/directory"`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ReadResourceDirectoryResult = built.ReadResourceDirectoryResult

/**
 * @since 0.1.0
 * @category models
 */
export type ReadResourceDirectoryResult = typeof ReadResourceDirectoryResult.Type
