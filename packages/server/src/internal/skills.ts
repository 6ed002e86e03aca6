/**
 * The skills extension's serving: its methods over made skills (`skills/list`, `skills/get`,
 * `resources/directory/read`) and the resources that serve their files through `resources/read`.
 * The skills are made by `skillsBuild.ts` (loaded by `Skills.make` alone); everything is computed
 * then: a request is a lookup and a page.
 */
import { McpError } from "@effect-mcp/core"
import * as FeatureSchemas from "@effect-mcp/core/FeatureSchemas"
import * as Effect from "effect/Effect"
import * as Resource from "../Resource.js"
import type * as Skills from "../Skills.js"
import * as McpSchema from "./mcpSchema.js"
import type * as Serving from "./serving.js"
import * as Shape from "./shape.js"

/** The resource metadata of a served file: a SKILL.md's from its skill's frontmatter. */
export const definitionOf = (
  file: Skills.File,
  skill: { readonly name: string; readonly description: string } | undefined
): McpSchema.Resource.Resource =>
  skill !== undefined
    ? { uri: file.uri, name: skill.name, description: skill.description, mimeType: file.mimeType, size: file.size }
    : { uri: file.uri, name: file.path, mimeType: file.mimeType, size: file.size }

// ---------------------------------------------------------------------------- serving

/** The resources that serve the skills' files through `resources/read` (and list them). */
export const resources = (service: Skills.Service): ReadonlyArray<Resource.Resource> => {
  const bySkillUri = new Map(service.skills.map((s) => [s.uri, s]))
  return Array.from(service.files.values(), (file) => {
    const { uri: _uri, ...fields } = definitionOf(file, bySkillUri.get(file.uri))
    if (file.text !== undefined) return Resource.make(file.uri, fields, Effect.succeed(file.text))
    // A file of bytes: its base64 made at its first read and shared by every read after (a 16 MiB
    // file is 22 MB of base64, and 38 MB of garbage and a second of work each time it was made):
    // what a read makes is only its answer's JSON, which the HTTP layer bounds while it waits.
    let contents: Resource.ResourceContents | undefined
    return Resource.make(
      file.uri,
      fields,
      Effect.sync(() => contents ??= Resource.toResult(file.uri, file.mimeType, file.bytes).contents[0])
    )
  })
}

const encodeCursor = (after: string): string => btoa(encodeURIComponent(after))

const decodeCursor = (cursor: string): string | undefined => {
  try {
    return decodeURIComponent(atob(cursor))
  } catch {
    return undefined
  }
}

/** One page of `items` (sorted by `uri`) after the cursor. */
const page = <A extends { readonly uri: string }>(
  items: ReadonlyArray<A>,
  cursor: string | undefined,
  size: number
): Effect.Effect<{ readonly items: ReadonlyArray<A>; readonly nextCursor?: string }, McpError.InvalidParams> => {
  const after = cursor === undefined ? undefined : decodeCursor(cursor)
  if (cursor !== undefined && after === undefined) {
    return Effect.fail(new McpError.InvalidParams({ message: `Invalid cursor: ${JSON.stringify(cursor)}` }))
  }
  const start = after === undefined ? 0 : items.findIndex((a) => a.uri > after)
  const from = start < 0 ? items.length : start
  const slice = items.slice(from, from + size)
  return Effect.succeed(
    from + size < items.length ? { items: slice, nextCursor: encodeCursor(slice[slice.length - 1].uri) } : {
      items: slice
    }
  )
}

/** The settings the server declares under `capabilities.extensions`. */
export const settings = (service: Skills.Service): McpSchema.Skills.SkillsExtensionCapability =>
  service.directoryRead ? { directoryRead: true } : {}

/** The extension as the serving core takes it. */
export const extension = (service: Skills.Service): Serving.Extension => {
  const bySkillUri = new Map(service.skills.map((s) => [s.uri, s]))
  const entries = service.skills.map((s) => s.entry)
  const handlers: Serving.Extension["handlers"] = {
    "skills/list": (params) =>
      Effect.map(page(entries, params.cursor, service.pageSize), ({ items, ...rest }) => ({ skills: items, ...rest })),
    "skills/get": (params) => {
      const skill = bySkillUri.get(params.uri)
      return skill === undefined
        ? Effect.fail(
          new McpError.InvalidParams({ message: `No skill is served at ${params.uri}`, data: { uri: params.uri } })
        )
        : Effect.succeed({ skill: skill.entry })
    },
    ...(service.directoryRead
      ? {
        "resources/directory/read": (params, request) => {
          const found = service.directories.get(params.uri)
          if (found === undefined) {
            return Effect.fail(
              new McpError.InvalidParams({
                message: service.files.has(params.uri)
                  ? `${params.uri} is not a directory resource`
                  : `No directory resource is served at ${params.uri}`,
                data: { uri: params.uri }
              })
            )
          }
          return Effect.map(page(found, params.cursor, service.pageSize), ({ items, ...rest }) => ({
            resources: items.map((r) => Shape.resource(r, request.features)),
            ...rest
          }))
        }
      } satisfies Serving.Extension["handlers"]
      : {})
  }
  // 2026-07-28: the era puts the envelope on each result, and these hints on the cacheable ones
  // (skills/list, skills/get, resources/directory/read).
  return {
    id: FeatureSchemas.skillsExtensionId,
    settings: settings(service),
    handlers,
    resources: true,
    cacheHint: { ttlMs: service.ttlMs, cacheScope: service.cacheScope }
  }
}
