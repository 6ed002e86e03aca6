/**
 * The Agent Skills format as both sides of the skills extension read it: a `SKILL.md` begins with
 * YAML frontmatter (parsed with the `yaml` package, YAML 1.2 core schema), a skill's name follows
 * the Agent Skills naming rules and ends its URI, and every file is known by the SHA-256 digest
 * and the size of its bytes.
 *
 * The server renders the frontmatter of what it serves with `parseFrontmatter`; the client parses
 * what it reads the same way and compares it with the entry it holds (`frontmatterDifferences`).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { manifestName } from "./Schema/Skills.js"

/**
 * The frontmatter block: `---`, the YAML, `---` (after an optional byte order mark).
 */
const block = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/

/**
 * The YAML text of a `SKILL.md`'s frontmatter, if it begins with one.
 *
 * @since 0.1.0
 * @category parsing
 */
export const frontmatterText = (text: string): string | undefined =>
  block.exec(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)?.[1]

/** A JSON value (finite numbers, plain objects and arrays), not too deep; else why not. */
const jsonProblem = (value: unknown, depth: number): string | undefined => {
  if (depth > 64) return "it is nested more than 64 deep"
  if (value === null || typeof value === "string" || typeof value === "boolean") return undefined
  if (typeof value === "number") return Number.isFinite(value) ? undefined : `${value} is not a JSON number`
  if (Array.isArray(value)) {
    for (const item of value) {
      const problem = jsonProblem(item, depth + 1)
      if (problem !== undefined) return problem
    }
    return undefined
  }
  if (typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    for (const item of Object.values(value)) {
      const problem = jsonProblem(item, depth + 1)
      if (problem !== undefined) return problem
    }
    return undefined
  }
  return `a ${typeof value} is not a JSON value`
}

/**
 * The frontmatter of a `SKILL.md`, as a JSON object; or why there is none (no leading `---`
 * block, YAML that does not parse, duplicate keys, a value JSON cannot carry, not a mapping).
 * Aliases are expanded at most 100 times (the `yaml` package's bound), so a small file cannot
 * expand to a large value.
 *
 * The `yaml` package is loaded on the first call (Node's module cache keeps it), so a server or a
 * client that never reads a skill never loads it.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseFrontmatter = (
  text: string
): Effect.Effect<Either.Either<Readonly<Record<string, unknown>>, string>> => {
  const yaml = frontmatterText(text)
  if (yaml === undefined) {
    return Effect.succeed(Either.left(`${manifestName} does not begin with a --- delimited YAML frontmatter`))
  }
  return Effect.map(Effect.promise(() => import("yaml")), (module) => parseWith(yamlParse(module), yaml))
}

/**
 * yaml's `parse`. Its build for Node is CommonJS, which a bundler with code splitting (esbuild's, as our own
 * bundles and a user's may be) gives to a dynamic import as its `default` alone, where Node gives its names too.
 */
const yamlParse = (module: typeof import("yaml")): typeof import("yaml").parse =>
  module.parse ?? (module as unknown as { readonly default: typeof import("yaml") }).default.parse

const parseWith = (
  parse: (source: string, options: { readonly maxAliasCount: number }) => unknown,
  yaml: string
): Either.Either<Readonly<Record<string, unknown>>, string> => {
  let value: unknown
  try {
    value = parse(yaml, { maxAliasCount: 100 })
  } catch (error) {
    return Either.left(`its frontmatter is not YAML: ${error instanceof Error ? error.message.split("\n")[0] : error}`)
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return Either.left("its frontmatter is not a mapping")
  }
  const problem = jsonProblem(value, 0)
  return problem === undefined
    ? Either.right(value as Record<string, unknown>)
    : Either.left(`its frontmatter is not JSON: ${problem}`)
}

const namePattern = /^(?!.*--)[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/

/**
 * Does `name` follow the Agent Skills naming rules: 1 to 64 characters, lowercase letters, digits
 * and hyphens, no hyphen first, last or twice in a row?
 *
 * @since 0.1.0
 * @category predicates
 */
export const isValidName = (name: string): boolean => namePattern.test(name)

/**
 * The skill's name as its `SKILL.md` URI says it (the segment before `/SKILL.md`), if the URI
 * ends so.
 *
 * @since 0.1.0
 * @category uris
 */
export const nameOf = (uri: string): string | undefined => {
  const at = uri.indexOf("://")
  if (at < 0) return undefined
  const segments = uri.slice(at + 3).split("/")
  if (segments.length < 2 || segments[segments.length - 1] !== manifestName) return undefined
  const name = segments[segments.length - 2]
  return name === "" ? undefined : decodeSegment(name)
}

/**
 * The skill's root directory (`skill://acme/refunds` of `skill://acme/refunds/SKILL.md`), if the
 * URI ends in `/SKILL.md`.
 *
 * @since 0.1.0
 * @category uris
 */
export const rootOf = (uri: string): string | undefined =>
  uri.endsWith(`/${manifestName}`) && nameOf(uri) !== undefined
    ? uri.slice(0, -(manifestName.length + 1))
    : undefined

/** A percent-decoded URI segment (as it came, when it is not well encoded). */
const decodeSegment = (segment: string): string => {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

/**
 * A path segment as a URI writes it: percent-encoded where RFC 3986 would have it.
 *
 * @since 0.1.0
 * @category uris
 */
export const encodeSegment = (segment: string): string =>
  encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)

const hex = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"))

/**
 * The digest of bytes as the extension writes it: `sha256:` and 64 lowercase hexadecimal digits
 * (WebCrypto).
 *
 * @since 0.1.0
 * @category digests
 */
export const digest = (bytes: Uint8Array): Effect.Effect<string> =>
  Effect.map(
    // WebCrypto takes a view of an ArrayBuffer, not of a shared one (copied then).
    Effect.promise(() =>
      globalThis.crypto.subtle.digest(
        "SHA-256",
        bytes.buffer instanceof ArrayBuffer ? bytes as Uint8Array<ArrayBuffer> : new Uint8Array(bytes)
      )
    ),
    (hash) => {
      let out = "sha256:"
      for (const byte of new Uint8Array(hash)) out += hex[byte]
      return out
    }
  )

const encoder = new TextEncoder()

/**
 * The UTF-8 bytes of a text.
 *
 * @since 0.1.0
 * @category digests
 */
export const utf8 = (text: string): Uint8Array => encoder.encode(text)

/** Do two JSON values have the same content (object keys in any order)? */
const sameJson = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]))
  }
  const ka = Object.keys(a)
  const kb = Object.keys(b)
  return ka.length === kb.length &&
    ka.every((k) => Object.hasOwn(b, k) && sameJson((a as any)[k], (b as any)[k]))
}

/**
 * The fields in which a file's frontmatter and an entry's differ (a field absent from one is
 * `null` there), compared field by field; empty when they are identical in content.
 *
 * @since 0.1.0
 * @category comparison
 */
export const frontmatterDifferences = (
  file: Readonly<Record<string, unknown>>,
  entry: Readonly<Record<string, unknown>>
): ReadonlyArray<string> => {
  const fields = new Set([...Object.keys(file), ...Object.keys(entry)])
  return Array.from(fields).filter((field) =>
    !sameJson(Object.hasOwn(file, field) ? file[field] : null, Object.hasOwn(entry, field) ? entry[field] : null)
  )
}
