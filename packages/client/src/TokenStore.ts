/**
 * Where `McpAuth` keeps what authorization gave it, per protected resource: the client
 * registrations it holds (one per authorization server, keyed by its issuer), and the tokens of
 * the authorization server in use. Swap it for a store of your own (the CLI keeps a file); the
 * default lives in memory, for the scope of the layer.
 *
 * Credentials are never reused across authorization servers: a registration is found by the
 * issuer it was made with, and tokens are only given to requests while the issuer they came from
 * is the one the resource names.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"

/**
 * A client registration at one authorization server: pre-registered, a client ID metadata
 * document's URL, or what dynamic registration gave.
 *
 * @since 0.1.0
 * @category models
 */
export interface Registration {
  readonly clientId: string
  readonly clientSecret?: Redacted.Redacted<string> | undefined
  /** How the token endpoint is authenticated, when the registration says (`client_secret_basic`, …). */
  readonly tokenEndpointAuthMethod?: string | undefined
}

/**
 * Tokens from one authorization server.
 *
 * @since 0.1.0
 * @category models
 */
export interface Tokens {
  /** The issuer that gave them. */
  readonly issuer: string
  readonly accessToken: Redacted.Redacted<string>
  /** `Bearer` or `DPoP`. */
  readonly tokenType: string
  readonly refreshToken?: Redacted.Redacted<string> | undefined
  /** Epoch millis when the access token expires, when the server said. */
  readonly expiresAt?: number | undefined
  /** How long the access token was given for, in milliseconds, when the server said. */
  readonly lifetime?: number | undefined
  /** The scopes granted (those asked, when the server did not say). */
  readonly scopes: ReadonlyArray<string>
}

/**
 * What is kept for one protected resource.
 *
 * @since 0.1.0
 * @category models
 */
export interface Entry {
  /** The resource, as its protected resource metadata names it (or the server's URL, without any). */
  readonly resource: string
  /** Registrations by issuer. */
  readonly registrations: Readonly<Record<string, Registration>>
  readonly tokens?: Tokens | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** The entry whose resource covers `url` (same origin, its path a prefix of the URL's), if any. */
  readonly load: (url: string) => Effect.Effect<Option.Option<Entry>>
  /** Keeps `entry`, replacing the one of its resource. */
  readonly save: (entry: Entry) => Effect.Effect<void>
  /** Forgets the entry whose resource covers `url`. */
  readonly remove: (url: string) => Effect.Effect<void>
}

/**
 * @since 0.1.0
 * @category tags
 */
export class TokenStore extends Context.Tag("@effect-mcp/client/TokenStore")<TokenStore, Service>() {}

/**
 * Does `resource` cover `url`: the same origin, and its path a prefix of the URL's (at a segment
 * boundary)? This is how a protected resource's identifier relates to the URLs it protects.
 *
 * @since 0.1.0
 * @category predicates
 */
export const covers = (resource: string, url: string): boolean => {
  let r: URL
  let u: URL
  try {
    r = new URL(resource)
    u = new URL(url)
  } catch {
    return false
  }
  if (r.origin !== u.origin) return false
  const prefix = r.pathname.endsWith("/") ? r.pathname : `${r.pathname}/`
  return u.pathname === r.pathname || `${u.pathname}/`.startsWith(prefix)
}

/**
 * Of `entries`, the one covering `url` with the longest resource.
 *
 * @since 0.1.0
 * @category utils
 */
export const find = (entries: Iterable<Entry>, url: string): Entry | undefined => {
  let best: Entry | undefined
  for (const entry of entries) {
    if (covers(entry.resource, url) && (best === undefined || entry.resource.length > best.resource.length)) {
      best = entry
    }
  }
  return best
}

/**
 * A store in memory, for as long as it is in scope.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeMemory: Effect.Effect<Service> = Effect.map(
  Ref.make<ReadonlyMap<string, Entry>>(new Map()),
  (ref): Service => ({
    load: (url) => Effect.map(Ref.get(ref), (all) => Option.fromNullable(find(all.values(), url))),
    save: (entry) => Ref.update(ref, (all) => new Map(all).set(entry.resource, entry)),
    remove: (url) =>
      Ref.update(ref, (all) => {
        const found = find(all.values(), url)
        if (found === undefined) return all
        const next = new Map(all)
        next.delete(found.resource)
        return next
      })
  })
)

/**
 * @since 0.1.0
 * @category layers
 */
export const layerMemory: Layer.Layer<TokenStore> = Layer.effect(TokenStore, makeMemory)
