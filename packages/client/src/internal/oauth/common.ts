/**
 * What the OAuth flow of `McpAuth` shares: the resources it knows, what it runs on (`Env`), what a
 * challenge said, which URLs it may use as OAuth endpoints, and how a step's failure reads.
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import type * as Clock from "effect/Clock"
import type * as Deferred from "effect/Deferred"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import type * as oauth from "oauth4webapi"
import type * as AuthorizationCode from "../../AuthorizationCode.js"
import * as ClientError from "../../ClientError.js"
import type { Options } from "../../McpAuth.js"
import type * as TokenStore from "../../TokenStore.js"

/** The largest OAuth response read (metadata, a token, a registration): 1 MiB. */
export const maxResponseBytes = 1024 * 1024

/** What a 401 or 403 said, from any of its challenges. */
export interface Challenge {
  readonly scopes: ReadonlyArray<string> | undefined
  readonly resourceMetadata: string | undefined
  readonly error: string | undefined
}

export const challengeOf = (challenges: ReadonlyArray<ClientError.Challenge>): Challenge => {
  let scopes: ReadonlyArray<string> | undefined
  let resourceMetadata: string | undefined
  let error: string | undefined
  for (const c of challenges) {
    if (scopes === undefined && c.params.scope !== undefined) scopes = splitScopes(c.params.scope)
    if (resourceMetadata === undefined && c.params.resource_metadata !== undefined) {
      resourceMetadata = c.params.resource_metadata
    }
    if (error === undefined && c.params.error !== undefined) error = c.params.error
  }
  return { scopes, resourceMetadata, error }
}

export const splitScopes = (scope: string): ReadonlyArray<string> => scope.split(/\s+/).filter((s) => s.length > 0)

export const union = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): ReadonlyArray<string> =>
  Array.from(new Set([...a, ...b]))

export const isLoopback = (url: URL) =>
  url.hostname === "localhost" || url.hostname === "127.0.0.1" || url.hostname === "[::1]"

/**
 * Why the client will not use `url` as an OAuth endpoint, or undefined when it may: every endpoint
 * (metadata, registration, authorization, token, an identity provider's) is https, or plain HTTP
 * to a loopback host (anywhere with `allowInsecure`); no other scheme, ever. `server`, the MCP
 * server's URL, for the protected resource metadata alone: on that server's own origin, it is
 * read over plain HTTP when the server itself is (its bearer tokens go there anyway).
 */
const refusalOf = (env: Env, url: string, server?: string): string | undefined => {
  const parsed = URL.canParse(url) ? new URL(url) : undefined
  if (parsed === undefined) return "is not a URL"
  if (parsed.protocol === "https:") return undefined
  if (parsed.protocol !== "http:") return `is not an https URL (${parsed.protocol} is never followed)`
  if (isLoopback(parsed) || env.options.allowInsecure === true) return undefined
  if (server !== undefined && URL.canParse(server) && new URL(server).origin === parsed.origin) return undefined
  return "is not on https (plain HTTP only to a loopback host; allowInsecure permits it)"
}

/** `url`, when the client may use it as an OAuth endpoint (see {@link refusalOf}). */
export const allowed = (
  env: Env,
  step: Step,
  url: string,
  server?: string
): Effect.Effect<string, ClientError.AuthorizationFailed> => {
  const refusal = refusalOf(env, url, server)
  return refusal === undefined ? Effect.succeed(url) : Effect.fail(failed(step, url, refusal))
}

/** The protected resource metadata in use. */
export interface ResourceMetadata {
  readonly resource: string
  readonly authorizationServers: ReadonlyArray<string>
  readonly scopesSupported: ReadonlyArray<string> | undefined
}

/** One protected resource (the origin of the MCP server), as the layer knows it. */
export interface Resource {
  /** The first URL authorized on it: what discovery starts from. */
  readonly serverUrl: string
  readonly lock: Effect.Semaphore
  /** What is kept (loaded from the store once). */
  entry: TokenStore.Entry | undefined
  loaded: boolean
  /** The authorization server in use, once discovered. */
  as: oauth.AuthorizationServer | undefined
  metadata: ResourceMetadata | undefined
  /** Authorizations since the last answer that was not a 401 or 403. */
  attempts: number
  /** Its DPoP key (RFC 9449), made at the first grant, when DPoP is on. */
  dpop: Dpop | undefined
  /** The authorization under way, which every request refused meanwhile waits for. */
  flow: Deferred.Deferred<void, ClientError.AuthError> | undefined
}

/** A DPoP key: oauth4webapi's handle for the token endpoint, and what the resource's proofs are signed with. */
export interface Dpop {
  readonly handle: oauth.DPoPHandle
  readonly privateKey: CryptoKey
  readonly jwk: Record<string, unknown>
  /** The resource server's last `DPoP-Nonce`. */
  nonce: string | undefined
}

export const makeResource = (serverUrl: string): Resource => ({
  serverUrl,
  lock: Effect.unsafeMakeSemaphore(1),
  entry: undefined,
  loaded: false,
  as: undefined,
  metadata: undefined,
  attempts: 0,
  dpop: undefined,
  flow: undefined
})

/** What the flow runs on. */
export interface Env {
  readonly client: HttpClient.HttpClient
  readonly store: TokenStore.Service
  readonly code: Option.Option<AuthorizationCode.Service>
  readonly options: Options
  readonly runtime: Runtime.Runtime<never>
  /** The layer's: authorizations run in it, so that a request given up does not end one under way. */
  readonly scope: Scope.Scope
  /** How long one OAuth request may take. */
  readonly timeout: Duration.Duration
  /** The layer's: when tokens expire, and whether one is about to. */
  readonly clock: Clock.Clock
}

export type Step = ClientError.AuthorizationFailed["step"]

/** One line of at most `max` characters: what an endpoint said is shown, never a page of it. */
export const cut = (text: string, max: number) => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

export const failed = (step: Step, url: string, reason: string, cause?: unknown) =>
  new ClientError.AuthorizationFailed({
    step,
    url: cut(url, 200),
    reason: cut(reason, 300),
    ...(cause !== undefined ? { cause } : {})
  })
