/**
 * The schemas of `Schema/Skills.ts`, built when first asked for (`skills()`), not when the module is
 * evaluated: a server without skills never builds them (`Schema/Skills.ts` re-exports them, built on
 * its import, and the constants below).
 */
import * as Schema from "effect/Schema"
import {
  JsonValue,
  metaField,
  NonNegativeInt,
  PaginatedRequestParams,
  paginatedResultFields,
  RequestParams,
  Uri
} from "../../Schema/Base.js"
import { resource } from "./resource.js"

/** The extension identifier (`Schema/Skills.ts` re-exports it). */
export const extensionId = "io.modelcontextprotocol/skills" as const

const make = () => {
  const SkillsExtensionCapability = Schema.Struct({
    directoryRead: Schema.optional(Schema.Boolean)
  }).annotations({ identifier: "SkillsExtensionCapability" })

  const Digest = Schema.String.pipe(Schema.pattern(/^sha256:[0-9a-f]{64}$/)).annotations({
    identifier: "Digest"
  })

  const SkillResource = Schema.Struct({
    uri: Uri,
    digest: Digest,
    size: NonNegativeInt
  }).annotations({ identifier: "SkillResource" })

  const SkillFrontmatter = Schema.Struct(
    { name: Schema.String, description: Schema.String },
    Schema.Record({ key: Schema.String, value: JsonValue })
  ).annotations({ identifier: "SkillFrontmatter" })

  const SkillResources = Schema.Union(Schema.Array(SkillResource), Schema.Literal("dynamic")).annotations({
    identifier: "SkillResources"
  })

  const Skill = Schema.Struct({
    uri: Uri,
    frontmatter: SkillFrontmatter,
    resources: SkillResources
  }).annotations({ identifier: "Skill" })

  const ListSkillsResult = Schema.Struct({
    ...paginatedResultFields,
    skills: Schema.Array(Skill)
  }).annotations({ identifier: "ListSkillsResult" })

  const GetSkillRequestParams = Schema.Struct({
    ...RequestParams.fields,
    uri: Uri
  }).annotations({ identifier: "GetSkillRequestParams" })

  const GetSkillResult = Schema.Struct({
    ...metaField,
    skill: Skill
  }).annotations({ identifier: "GetSkillResult" })

  const ReadResourceDirectoryRequestParams = Schema.Struct({
    ...PaginatedRequestParams.fields,
    uri: Uri
  }).annotations({ identifier: "ReadResourceDirectoryRequestParams" })

  const ReadResourceDirectoryResult = Schema.Struct({
    ...paginatedResultFields,
    resources: Schema.Array(resource().Resource)
  }).annotations({ identifier: "ReadResourceDirectoryResult" })

  return {
    SkillsExtensionCapability,
    Digest,
    SkillResource,
    SkillFrontmatter,
    SkillResources,
    Skill,
    ListSkillsRequestParams: PaginatedRequestParams,
    ListSkillsResult,
    GetSkillRequestParams,
    GetSkillResult,
    ReadResourceDirectoryRequestParams,
    ReadResourceDirectoryResult
  }
}

let built: ReturnType<typeof make> | undefined

/** The schemas of `Schema/Skills.ts`, built on the first call. */
export const skills = (): ReturnType<typeof make> => built ??= make()
