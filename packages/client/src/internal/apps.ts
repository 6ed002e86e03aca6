/**
 * The client side of MCP Apps: the declaration, tools' links read and typed, and a view fetched and
 * verified (URI, MIME type, size, UTF-8, `_meta.ui`) before any of it is handed out.
 */
import { Schema as McpSchema } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as AppView from "../AppView.js"
import type * as ClientError from "../ClientError.js"
import type * as McpClient from "../McpClient.js"
import * as Asks from "./asks.js"
import { fromBase64 } from "./bytes.js"

const Apps = McpSchema.Apps

export const declare = <O extends McpClient.Options<any>>(options: O): O => {
  const capabilities = options.capabilities ?? Asks.capabilitiesOf(options.handlers ?? {})
  const own = capabilities.extensions?.[Apps.extensionId] as { readonly mimeTypes?: unknown } | undefined
  const mimeTypes = Array.isArray(own?.mimeTypes) ? own.mimeTypes.map(String) : []
  return {
    ...options,
    capabilities: {
      ...capabilities,
      extensions: {
        ...capabilities.extensions,
        [Apps.extensionId]: {
          ...own,
          mimeTypes: mimeTypes.includes(Apps.mimeType) ? mimeTypes : [...mimeTypes, Apps.mimeType]
        }
      }
    }
  }
}

const decodeToolMeta = Schema.decodeUnknownEither(Apps.ToolMeta)
const decodeResourceMeta = Schema.decodeUnknownEither(Apps.ResourceMeta)

export const toolMeta = (tool: McpSchema.Tool.Tool): Option.Option<McpSchema.Apps.ToolMeta> => {
  const meta = tool._meta
  if (meta === undefined) return Option.none()
  const flat = meta[Apps.resourceUriKey]
  if (meta.ui === undefined && typeof flat !== "string") return Option.none()
  const decoded = decodeToolMeta(meta.ui ?? {})
  if (Either.isLeft(decoded)) return Option.none()
  const ui = decoded.right
  return Option.some(
    ui.resourceUri === undefined && typeof flat === "string"
      ? new Apps.ToolMeta({ ...ui, resourceUri: flat })
      : ui
  )
}

export const visibility = (tool: McpSchema.Tool.Tool): ReadonlyArray<McpSchema.Apps.Visibility> =>
  Option.match(toolMeta(tool), {
    onNone: () => Apps.defaultVisibility,
    onSome: (ui) => ui.visibility ?? Apps.defaultVisibility
  })

export const linked = (
  client: McpClient.Service
): Effect.Effect<ReadonlyArray<AppView.Linked>, ClientError.ClientError> =>
  Effect.map(client.listTools, (tools) =>
    tools.flatMap((tool): Array<AppView.Linked> => {
      const ui = toolMeta(tool)
      if (Option.isNone(ui)) return []
      const uri = ui.value.resourceUri
      return uri !== undefined && uri.startsWith(Apps.scheme)
        ? [{ tool, resourceUri: uri, visibility: ui.value.visibility ?? Apps.defaultVisibility }]
        : []
    }))

const utf8 = new TextDecoder("utf-8", { fatal: true })

/** The HTML of a content and its size in bytes, or why it is refused. */
const htmlOf = (
  content: { readonly text?: unknown; readonly blob?: unknown },
  maxBytes: number
): Either.Either<{ readonly html: string; readonly bytes: number }, string> => {
  const tooLarge = (bytes: string) => Either.left(`its HTML is ${bytes} bytes, over the bound of ${maxBytes}`)
  if (typeof content.text === "string") {
    // A UTF-16 code unit is at least one byte of UTF-8: a text longer than the bound is over it.
    if (content.text.length > maxBytes) return tooLarge(`at least ${content.text.length}`)
    const bytes = new TextEncoder().encode(content.text).length
    return bytes > maxBytes ? tooLarge(String(bytes)) : Either.right({ html: content.text, bytes })
  }
  if (typeof content.blob === "string") {
    const estimate = Math.floor(content.blob.length / 4) * 3 - 2
    if (estimate > maxBytes) return tooLarge(`at least ${estimate}`)
    const bytes = fromBase64(content.blob)
    if (bytes === undefined) return Either.left("its blob is not base64")
    if (bytes.length > maxBytes) return tooLarge(String(bytes.length))
    try {
      return Either.right({ html: utf8.decode(bytes), bytes: bytes.length })
    } catch {
      return Either.left("its HTML is not UTF-8")
    }
  }
  return Either.left("its content has neither text nor blob")
}

export const read = (
  client: McpClient.Service,
  uri: string,
  options?: AppView.ReadOptions
): Effect.Effect<AppView.View, ClientError.ClientError | AppView.InvalidView> =>
  Effect.gen(function*() {
    const invalid = (reason: string) => new AppView.InvalidView({ uri, reason })
    if (!uri.startsWith(Apps.scheme)) return yield* invalid(`a view's URI starts with ${Apps.scheme}`)
    const maxBytes = options?.maxBytes ?? AppView.defaultMaxBytes
    const result = yield* client.readResource(uri)
    const content = result.contents.find((c) => c.uri === uri)
    if (content === undefined) return yield* invalid("the server answered with no content of that URI")
    const mime = content.mimeType
    if (mime === undefined || !Apps.isViewMimeType(mime)) {
      return yield* invalid(`it is served as ${mime ?? "no MIME type"}, not ${Apps.mimeType}`)
    }
    const html = htmlOf(content as { readonly text?: unknown; readonly blob?: unknown }, maxBytes)
    if (Either.isLeft(html)) return yield* invalid(html.left)
    const ui = decodeResourceMeta(content._meta?.ui ?? {})
    if (Either.isLeft(ui)) {
      return yield* invalid(`its _meta.ui is not the specification's (${oneLine(ui.left.message)})`)
    }
    const bad = badDomain(ui.right)
    if (bad !== undefined) return yield* invalid(`its csp declares ${JSON.stringify(bad)}, which is not one source`)
    return { uri, mimeType: Apps.mimeType, html: html.right.html, bytes: html.right.bytes, ui: ui.right }
  })

const oneLine = (text: string): string => text.replace(/\s*\n\s*/g, " ")

// ---------------------------------------------------------------------------- what a host applies

/** One CSP source: no whitespace, quote, `;` or `,`, which would add sources or directives. */
const isSource = (domain: string): boolean => domain.length > 0 && !/[\s;,'"]/.test(domain)

const sources = (domains: ReadonlyArray<string> | undefined): Array<string> => (domains ?? []).filter(isSource)

/** The first declared domain that is not one CSP source, if any. */
export const badDomain = (ui: McpSchema.Apps.ResourceMeta): string | undefined => {
  const csp = ui.csp
  if (csp === undefined) return undefined
  for (const domains of [csp.connectDomains, csp.resourceDomains, csp.frameDomains, csp.baseUriDomains]) {
    const bad = (domains ?? []).find((d) => !isSource(d))
    if (bad !== undefined) return bad
  }
  return undefined
}

export const contentSecurityPolicy = (ui: McpSchema.Apps.ResourceMeta): string => {
  const resource = sources(ui.csp?.resourceDomains)
  const connect = sources(ui.csp?.connectDomains)
  const frame = sources(ui.csp?.frameDomains)
  const base = sources(ui.csp?.baseUriDomains)
  const directive = (name: string, own: ReadonlyArray<string>, declared: ReadonlyArray<string>, none: string) => {
    const all = [...own, ...declared]
    return `${name} ${all.length > 0 ? all.join(" ") : none}`
  }
  return [
    "default-src 'none'",
    directive("script-src", ["'self'", "'unsafe-inline'"], resource, ""),
    directive("style-src", ["'self'", "'unsafe-inline'"], resource, ""),
    directive("img-src", ["'self'", "data:"], resource, ""),
    directive("font-src", ["'self'", "data:"], resource, ""),
    directive("media-src", ["'self'", "data:"], resource, ""),
    directive("connect-src", [], connect, "'none'"),
    directive("frame-src", [], frame, "'none'"),
    directive("base-uri", [], base, "'self'"),
    "object-src 'none'"
  ].join("; ")
}

const features = [
  ["camera", "camera"],
  ["microphone", "microphone"],
  ["geolocation", "geolocation"],
  ["clipboardWrite", "clipboard-write"]
] as const

export const permissionsPolicy = (ui: McpSchema.Apps.ResourceMeta): string =>
  features.filter(([key]) => ui.permissions?.[key] !== undefined).map(([, feature]) => feature).join("; ")
