/**
 * How an HTTP transport with authorization on verifies the bearer token of a request: a service
 * that turns a token into who holds it (`AuthInfo`), or refuses it. Three to choose from:
 *
 * - {@link jwt}: JWT access tokens (RFC 9068, and the JWTs Keycloak, Auth0 and Entra issue),
 *   verified against the keys of the issuer's `jwks_uri` (found in its metadata, RFC 8414 or
 *   OpenID Connect discovery): kept, fetched again when they age and when a token names a key
 *   they lack (rotation, at most once per cooldown), and still used while fetching them again
 *   fails (up to `maxStale`);
 * - {@link introspection}: RFC 7662, for opaque tokens, each answer kept until the token expires
 *   (or a shorter bound);
 * - {@link make}: your own.
 *
 * An authorization server may be hostile or down. Every answer read from it (metadata, a key set,
 * an introspection answer) is read up to 1 MiB, counted as its bytes arrive: past that the
 * connection is dropped and the token is not verified (503). A fetch of metadata or keys that
 * failed is not tried again before a backoff passes (1 second, doubling at each failure, at most
 * a minute: see {@link BackoffOptions}), and callers at the same time share one fetch, which runs
 * in the verifier's own fiber (a verifier is made in a scope). Keys that aged are used at once
 * while they are fetched again behind.
 *
 * Whatever the verifier, the transport checks what it found again, always: the audience holds
 * this server's resource, the token has not expired (with the clock skew allowed), and its issuer
 * (when it names one) is one of the authorization servers configured. The built-in verifiers also
 * check `nbf`, the issuer and, for JWTs, the algorithm: one an asymmetric key allows, never `none`
 * or a shared secret.
 *
 * Every time a built-in verifier reads (its keys' ages, a backoff, a token's `exp` and `nbf`, how
 * long a verified token is kept) comes from the `Clock` of the scope it is made in: a verifier
 * made under a `TestClock` moves with `TestClock.adjust`.
 *
 * Why a token was refused is for the server's log (`TokenRejected.reason`, at Debug level); the
 * client is told no more than RFC 6750's `invalid_token`.
 *
 * @since 0.1.0
 */
import type { AuthInfo } from "@effect-mcp/core"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as Claims from "./internal/claims.js"
import * as modules from "./internal/lazy.js"
import type * as Verifiers from "./internal/tokenVerifier.js"

/**
 * What the transport expects of every token: set by its `auth` option.
 *
 * @since 0.1.0
 * @category models
 */
export interface Expected {
  /** This server's canonical resource URI (RFC 8707). */
  readonly resource: string
  /**
   * The audiences a token may name, one of which it must: the resource (with or without a
   * trailing slash), and those the transport's `auth.audiences` adds.
   */
  readonly audiences: ReadonlyArray<string>
  /** The issuers of the authorization servers whose tokens are taken. */
  readonly issuers: ReadonlyArray<string>
  /** The clock skew allowed on `exp` and `nbf`, in seconds. */
  readonly clockSkewSeconds: number
}

/**
 * The token is not one this server takes. `reason` is for the server's log only.
 *
 * @since 0.1.0
 * @category errors
 */
export class TokenRejected extends Data.TaggedError("TokenRejected")<{
  readonly reason: string
  readonly cause?: unknown
}> {}

/**
 * The token could not be verified right now: the authorization server's keys or its
 * introspection endpoint could not be reached. Answered 503: the client may try again.
 *
 * @since 0.1.0
 * @category errors
 */
export class VerifierUnavailable extends Data.TaggedError("VerifierUnavailable")<{
  readonly reason: string
  readonly cause?: unknown
}> {}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  readonly verify: (
    token: string,
    expected: Expected
  ) => Effect.Effect<AuthInfo.AuthInfo, TokenRejected | VerifierUnavailable>
  /**
   * The holder of a token this verifier verified a short while ago for the same expectations,
   * read synchronously (no fiber, no promise: the transport's fast path), or undefined. The
   * transport checks expiry and scopes again on every request either way.
   */
  readonly cached?: ((token: string, expected: Expected) => AuthInfo.AuthInfo | undefined) | undefined
}

/**
 * The verifier an HTTP transport with authorization on uses, when its `auth` option names none.
 *
 * @since 0.1.0
 * @category tags
 */
export class TokenVerifier extends Context.Tag("@effect-mcp/server/TokenVerifier")<TokenVerifier, Service>() {}

/**
 * A verifier of your own. What it returns is checked again by the transport (audience, expiry,
 * issuer): give it `audience`, `expiresAt` and `issuer` as the token says them.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (verify: Service["verify"], cached?: Service["cached"]): Service =>
  cached === undefined ? { verify } : { verify, cached }

/**
 * @since 0.1.0
 * @category layers
 */
export const layer = (verify: Service["verify"]): Layer.Layer<TokenVerifier> =>
  Layer.succeed(TokenVerifier, make(verify))

// ---------------------------------------------------------------------------- claims

/**
 * The holder a verified token's claims describe (`sub` required: sessions are bound to it), for a
 * verifier of your own that has the claims (a JWT's payload, an introspection answer).
 *
 * @since 0.1.0
 * @category constructors
 */
export const authInfoOf = (
  token: string,
  claims: Record<string, unknown>
): Effect.Effect<AuthInfo.AuthInfo, TokenRejected> =>
  // Read at the call, not when this module is evaluated: `internal/claims` imports `TokenRejected` from here, and
  // a bundle (the published layout) may evaluate this module first, when `Claims.authInfoOf` is not yet defined.
  Claims.authInfoOf(token, claims)

/**
 * The audiences a token for `resource` may name: it, and it with or without a trailing slash.
 *
 * @since 0.1.0
 * @category utils
 */
export const audiencesFor = (resource: string): ReadonlyArray<string> => Claims.audiencesFor(resource)

// ---------------------------------------------------------------------------- options

/**
 * How a fetch from an authorization server (its metadata, its keys) that failed is tried again:
 * not before `initial` has passed, a wait that doubles at each failure in a row, up to `max`.
 * Meanwhile nothing is fetched: a token that needs the fetch is answered 503 at once (a JWT whose
 * key is held is still verified with it). Times are read from `Clock`.
 *
 * @since 0.1.0
 * @category models
 */
export interface BackoffOptions {
  /** The wait after the first failure (default 1 second). */
  readonly initial?: Duration.DurationInput
  /** The longest wait (default 1 minute). */
  readonly max?: Duration.DurationInput
}

/**
 * Options of the cache of verified tokens: a token verified once is taken again, by its exact
 * text, until it expires or for `maxAge`, whichever comes first. What an entry holds is its token
 * and the claims found for it (a JWT's payload, an introspection answer), counted as characters
 * (the claims as JSON).
 *
 * @since 0.1.0
 * @category models
 */
export interface CacheOptions {
  /** The most tokens kept (default 10,000): the oldest go first. */
  readonly maxEntries?: number
  /** The most characters of tokens and claims kept, together (default 8 Mi): the oldest go first. */
  readonly maxLength?: number
  /**
   * The most characters of one entry, its token and claims (default 64 Ki): a token whose entry is
   * longer is not kept, and is verified again at each request.
   */
  readonly maxEntryLength?: number
  /**
   * The longest a verified token is kept (default 5 minutes): a key the issuer withdrew, or an
   * introspected token revoked, stops being taken within it.
   */
  readonly maxAge?: Duration.DurationInput
}

// ---------------------------------------------------------------------------- JWT

/**
 * Options of {@link jwt}.
 *
 * @since 0.1.0
 * @category models
 */
export interface JwtOptions {
  /**
   * The key set's URL, for every issuer, in place of the `jwks_uri` of the issuers' metadata
   * (for an authorization server that publishes no metadata).
   */
  readonly jwksUri?: string
  /**
   * The signature algorithms taken (default: RS256, RS384, RS512, PS256, PS384, PS512, ES256,
   * ES384, ES512, EdDSA). `none` and the HMAC algorithms are never taken.
   */
  readonly algorithms?: ReadonlyArray<string>
  /**
   * The `typ` header a token must have; default: any (Keycloak, Entra and Auth0 issue `JWT`).
   * `"at+jwt"` takes only access tokens of RFC 9068 (`typ: at+jwt`, or `application/at+jwt`),
   * so that an ID token or another JWT of the same issuer is never taken for one.
   */
  readonly type?: string
  /** Take `http:` issuers and key sets that are not on loopback (default false). */
  readonly allowInsecure?: boolean
  /** How long a fetch of metadata or keys may take (default 5 seconds). */
  readonly timeout?: Duration.DurationInput
  /** How long fetched keys are kept before they are fetched again (default 10 minutes). */
  readonly cacheMaxAge?: Duration.DurationInput
  /**
   * How long fetched keys are still used, counted from when they were fetched, while fetching
   * them again fails (default 6 hours; never less than `cacheMaxAge`): an issuer that is down
   * does not lock out the holders of tokens its held keys verify. Past it, 503.
   */
  readonly maxStale?: Duration.DurationInput
  /** The least time between two fetches of the keys, when a token names an unknown one (default 30 seconds). */
  readonly cooldown?: Duration.DurationInput
  /** How a fetch of metadata or keys that failed is tried again (see {@link BackoffOptions}). */
  readonly backoff?: BackoffOptions
  /**
   * Verified tokens kept, so that a client's next requests with the same token are not verified
   * again (see {@link CacheOptions}); `false`: every request's token is verified.
   */
  readonly cache?: CacheOptions | false
}

/**
 * Verifies JWT access tokens with the keys of their issuer (see the module's description). The
 * issuer is read from the token first, and must be one of those expected before any key is
 * fetched; then signature, algorithm, `typ` (when asked), `iss`, `aud`, `exp` (required) and `nbf`.
 *
 * The keys are jose's local key set, kept here rather than in jose's remote one: that one reads
 * the time from `Date.now`, fetches again at every token while its fetch fails, and drops its
 * keys once they age even when they cannot be fetched again. Keys that aged past `cacheMaxAge`
 * still verify at once while they are fetched again behind: a token waits for a fetch only when
 * no usable keys are held (or it names a key they lack), never for an issuer that is slow or
 * hangs while the held keys serve.
 *
 * Fetches run in fibers of the verifier, in the scope it is made in: closing the scope stops a
 * fetch under way ({@link layerJwt} is scoped to its layer).
 *
 * @since 0.1.0
 * @category constructors
 */
export const jwt = (options: JwtOptions = {}): Effect.Effect<Service, never, Scope.Scope> =>
  Effect.flatMap(verifiers(), (internal) => internal.jwt(options))

/**
 * @since 0.1.0
 * @category layers
 */
export const layerJwt = (options: JwtOptions = {}): Layer.Layer<TokenVerifier> =>
  Layer.scoped(TokenVerifier, jwt(options))

// ---------------------------------------------------------------------------- introspection

/**
 * Options of {@link introspection}.
 *
 * @since 0.1.0
 * @category models
 */
export interface IntrospectionOptions {
  /** This resource server's client at the authorization server. */
  readonly clientId: string
  /** Its secret (sent with HTTP Basic, `client_secret_basic`). */
  readonly clientSecret: Redacted.Redacted<string>
  /** The introspection endpoint, in place of the first issuer's `introspection_endpoint`. */
  readonly endpoint?: string
  /**
   * Answers kept, so that the next requests with the same token are not introspected again (see
   * {@link CacheOptions}: at most until the token expires, and `maxAge`, 5 minutes by default: a
   * revoked token is taken that long at most; an answer longer than `maxEntryLength` is not
   * kept); `false`: every request's token is introspected.
   */
  readonly cache?: CacheOptions | false
  /** Take `http:` endpoints that are not on loopback (default false). */
  readonly allowInsecure?: boolean
  /** How long a request may take (default 5 seconds). */
  readonly timeout?: Duration.DurationInput
  /**
   * How a fetch of the issuer's metadata that failed is tried again (see {@link BackoffOptions}).
   * The introspection requests themselves do not back off: each is about one token, and one
   * token the endpoint fails on must not keep the others out.
   */
  readonly backoff?: BackoffOptions
}

/**
 * Verifies tokens by asking the authorization server (RFC 7662): an active token whose `aud`
 * holds this resource, whose `iss` (when it says one) is expected, unexpired, and not before its
 * `nbf`. Each answer is kept until its token expires, at most `cache.maxAge`; refusals are not
 * kept. The issuer's metadata is fetched in a fiber of the verifier, in the scope it is made in
 * (closing it stops a fetch under way).
 *
 * @since 0.1.0
 * @category constructors
 */
export const introspection = (options: IntrospectionOptions): Effect.Effect<Service, never, Scope.Scope> =>
  Effect.flatMap(verifiers(), (internal) => internal.introspection(options))

/**
 * The verifiers' code, loaded when a verifier is first made (a server without one never loads it).
 * A function, not an Effect made when this module is evaluated: a bundler then leaves the verifiers
 * (and jose, oauth4webapi) out of a Worker that makes none.
 */
const verifiers = (): Effect.Effect<typeof Verifiers> => Effect.promise(() => modules.tokenVerifier())

/**
 * @since 0.1.0
 * @category layers
 */
export const layerIntrospection = (options: IntrospectionOptions): Layer.Layer<TokenVerifier> =>
  Layer.scoped(TokenVerifier, introspection(options))
