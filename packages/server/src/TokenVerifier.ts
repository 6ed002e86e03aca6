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
 * Why a token was refused is for the server's log (`TokenRejected.reason`, at Debug level); the
 * client is told no more than RFC 6750's `invalid_token`.
 *
 * @since 0.1.0
 */
import { AuthInfo } from "@effect-mcp/core"
import type * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import type * as Jose from "jose"
import type * as OAuth from "oauth4webapi"
import * as Issuer from "./internal/issuer.js"

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

const strings = (u: unknown): ReadonlyArray<string> =>
  typeof u === "string" ? [u] : Array.isArray(u) ? u.filter((s): s is string => typeof s === "string") : []

/** `scope` (a space-separated string, RFC 9068 / 7662), or `scp` (a string or an array: Entra, Okta). */
const scopesOf = (claims: Record<string, unknown>): ReadonlyArray<string> => {
  const scope = claims.scope ?? claims.scp
  if (typeof scope === "string") return scope.split(" ").filter((s) => s !== "")
  return strings(scope)
}

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
): Effect.Effect<AuthInfo.AuthInfo, TokenRejected> => {
  const subject = claims.sub
  if (typeof subject !== "string" || subject === "") {
    return Effect.fail(new TokenRejected({ reason: "the token has no subject (sub)" }))
  }
  const clientId = typeof claims.client_id === "string"
    ? claims.client_id
    : typeof claims.azp === "string"
    ? claims.azp
    : undefined
  return Effect.succeed(
    new AuthInfo.AuthInfo({
      subject,
      clientId: Option.fromNullable(clientId),
      scopes: scopesOf(claims),
      expiresAt: typeof claims.exp === "number" ? Option.some(new Date(claims.exp * 1000)) : Option.none(),
      audience: strings(claims.aud),
      issuer: typeof claims.iss === "string" ? Option.some(claims.iss) : Option.none(),
      claims,
      token: Redacted.make(token)
    })
  )
}

/**
 * The audiences a token for `resource` may name: it, and it with or without a trailing slash.
 *
 * @since 0.1.0
 * @category utils
 */
export const audiencesFor = (resource: string): ReadonlyArray<string> =>
  resource.endsWith("/") ? [resource, resource.slice(0, -1)] : [resource, `${resource}/`]

// ---------------------------------------------------------------------------- discovery

const isLoopback = (url: URL) =>
  url.hostname === "localhost" || url.hostname === "127.0.0.1" || url.hostname === "[::1]"

/** Reads every answer of an authorization server, bounded (`Issuer.maxAnswerBytes`). */
const bounded = Issuer.boundedFetch()

/**
 * Options every oauth4webapi request takes: plain HTTP to loopback only (unless allowed), a
 * timeout (and the request's interruption), the answer bounded.
 */
const requestOptions = (
  oauth: typeof OAuth,
  url: URL,
  allowInsecure: boolean,
  timeoutSeconds: number,
  signal: AbortSignal
) => ({
  [oauth.allowInsecureRequests]: allowInsecure || isLoopback(url),
  [oauth.customFetch]: bounded,
  signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutSeconds * 1000)])
})

const loadOAuth = Effect.promise(() => import("oauth4webapi"))

/**
 * The metadata of the authorization server `issuer`: RFC 8414 (path-inserted), then OpenID
 * Connect discovery; its `issuer` must be `issuer`, exactly.
 */
const discover = (
  oauth: typeof OAuth,
  issuer: string,
  allowInsecure: boolean,
  timeoutSeconds: number
): Effect.Effect<OAuth.AuthorizationServer, VerifierUnavailable> => {
  const url = new URL(issuer)
  const attempt = (algorithm: "oauth2" | "oidc") =>
    Effect.tryPromise(async (signal) => {
      const response = await oauth.discoveryRequest(url, {
        algorithm,
        ...requestOptions(oauth, url, allowInsecure, timeoutSeconds, signal)
      })
      return await oauth.processDiscoveryResponse(url, response)
    })
  return Effect.orElse(attempt("oauth2"), () => attempt("oidc")).pipe(
    Effect.mapError((cause) =>
      new VerifierUnavailable({ reason: `no metadata could be read for the issuer ${issuer}`, cause })
    )
  )
}

/**
 * A value computed once when first needed and kept; a failure is not kept (the next call tries
 * again), and callers at the same time share one attempt. Once it succeeded, the value is read
 * without running the cache's effect again.
 */
const once = <A, E>(effect: Effect.Effect<A, E>): Effect.Effect<Effect.Effect<A, E>> =>
  Effect.map(Effect.cachedInvalidateWithTTL(effect, Duration.infinity), ([cached, invalidate]) => {
    let value: { readonly a: A } | undefined
    const attempt = Effect.tap(Effect.tapError(cached, () => invalidate), (a) => {
      value = { a }
    })
    return Effect.suspend(() => value === undefined ? attempt : Effect.succeed(value.a))
  })

// ---------------------------------------------------------------------------- backoff

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

const backoffOf = (options: BackoffOptions | undefined): Issuer.Backoff => ({
  initialMillis: Duration.toMillis(options?.initial ?? "1 second"),
  maxMillis: Duration.toMillis(options?.max ?? "1 minute")
})

/** The error of a call refused while a fetch backs off. */
const backingOff = (last: VerifierUnavailable | undefined, waitMillis: number) =>
  new VerifierUnavailable({
    reason: `${last?.reason ?? "the authorization server could not be reached"} ` +
      `(not asked again for ${Math.ceil(waitMillis / 1000)} s)`,
    cause: last?.cause
  })

/** A fetch again failed, and what was fetched before is used meanwhile: said in the log. */
const usedStale = (error: VerifierUnavailable, ageMillis: number) =>
  Effect.logWarning(
    `effect-mcp: ${error.reason}; what was fetched ${Math.round(ageMillis / 60_000)} min ago is used meanwhile`,
    error.cause
  )

/** Metadata, fetched once and kept; a failure backs off. */
const metadataAges: Issuer.Ages = { maxAgeMillis: Infinity, maxStaleMillis: Infinity, cooldownMillis: Infinity }

// ---------------------------------------------------------------------------- verified tokens

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

/** The characters of claims as JSON (Infinity when they are none). */
const claimsLength = (claims: Record<string, unknown>): number => {
  try {
    return JSON.stringify(claims).length
  } catch {
    return Infinity
  }
}

/**
 * Verified tokens, by their text, oldest first (a Map keeps insertion order), bounded in count and
 * in characters (tokens and claims), each entry and together.
 */
class Verified {
  private readonly entries = new Map<
    string,
    {
      readonly auth: AuthInfo.AuthInfo
      readonly until: number
      readonly expected: Expected
      readonly length: number
    }
  >()
  private length = 0
  private readonly maxEntries: number
  private readonly maxLength: number
  private readonly maxEntryLength: number
  private readonly maxAgeMillis: number
  constructor(options: CacheOptions) {
    this.maxEntries = options.maxEntries ?? 10_000
    this.maxLength = options.maxLength ?? 8 * 1024 * 1024
    this.maxEntryLength = Math.min(options.maxEntryLength ?? 64 * 1024, this.maxLength)
    this.maxAgeMillis = Duration.toMillis(options.maxAge ?? "5 minutes")
  }
  get(token: string, expected: Expected): AuthInfo.AuthInfo | undefined {
    const entry = this.entries.get(token)
    if (entry === undefined) return undefined
    if (entry.until <= Date.now() || entry.expected !== expected) {
      this.delete(token)
      return undefined
    }
    return entry.auth
  }
  set(token: string, auth: AuthInfo.AuthInfo, expected: Expected): void {
    if (this.maxEntries <= 0 || token.length > this.maxEntryLength || this.entries.has(token)) return
    const length = token.length + claimsLength(auth.claims)
    if (length > this.maxEntryLength) return
    const expires = AuthInfo.expiresAtMillis(auth)
    const until = Math.min(Date.now() + this.maxAgeMillis, expires ?? Infinity)
    while (this.entries.size >= this.maxEntries || this.length + length > this.maxLength) {
      this.delete(this.entries.keys().next().value!)
    }
    this.entries.set(token, { auth, until, expected, length })
    this.length += length
  }
  private delete(token: string): void {
    const entry = this.entries.get(token)
    if (entry === undefined) return
    this.entries.delete(token)
    this.length -= entry.length
  }
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

const defaultAlgorithms = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]

const refused = new Set(["none", "HS256", "HS384", "HS512"])

/** Why jose refused a token, for the log. */
const joseRejection = (jose: typeof Jose, cause: unknown): TokenRejected =>
  new TokenRejected({
    reason: cause instanceof jose.errors.JOSEError ? `${cause.code}: ${cause.message}` : String(cause),
    cause
  })

/**
 * Reads a key set (bounded, no redirects) as jose's local key set: what picks a token's key by
 * its header.
 */
const fetchKeys = (
  jose: typeof Jose,
  url: URL,
  timeoutSeconds: number
): Effect.Effect<Jose.JWTVerifyGetKey, VerifierUnavailable> =>
  Effect.tryPromise({
    try: async (signal) => {
      const response = await bounded(url.href, {
        method: "GET",
        redirect: "manual",
        headers: { accept: "application/json, application/jwk-set+json" },
        signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutSeconds * 1000)])
      })
      if (response.status !== 200) throw new Error(`${url.href} answered ${response.status}`)
      return jose.createLocalJWKSet(await response.json())
    },
    catch: (cause) => new VerifierUnavailable({ reason: `the key set ${url.href} could not be read`, cause })
  })

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
  Effect.gen(function*() {
    const clock: Clock.Clock = yield* Effect.clock
    const fork = Issuer.forkIn(yield* Effect.runtime<never>(), yield* Effect.scope)
    const timeoutSeconds = Duration.toSeconds(options.timeout ?? "5 seconds")
    const algorithms = (options.algorithms ?? defaultAlgorithms).filter((alg) => !refused.has(alg))
    const allowInsecure = options.allowInsecure === true
    const backoff = backoffOf(options.backoff)
    const maxAgeMillis = Duration.toMillis(options.cacheMaxAge ?? "10 minutes")
    const ages: Issuer.Ages = {
      maxAgeMillis,
      maxStaleMillis: Math.max(maxAgeMillis, Duration.toMillis(options.maxStale ?? "6 hours")),
      cooldownMillis: Duration.toMillis(options.cooldown ?? "30 seconds")
    }
    const modules = yield* once(Effect.promise(() => Promise.all([import("jose"), import("oauth4webapi")])))
    // One key set per issuer, made when a token of that issuer first comes.
    const keySets = new Map<string, Issuer.Remote<Jose.JWTVerifyGetKey, VerifierUnavailable>>()
    const keySetOf = (issuer: string): Issuer.Remote<Jose.JWTVerifyGetKey, VerifierUnavailable> => {
      let found = keySets.get(issuer)
      if (found === undefined) {
        const metadata = Issuer.makeRemote(
          Effect.flatMap(modules, ([, oauth]) => discover(oauth, issuer, allowInsecure, timeoutSeconds)),
          { ages: metadataAges, backoff, clock, fork, unavailable: backingOff, stale: usedStale }
        )
        found = Issuer.makeRemote(
          Effect.gen(function*() {
            const [jose] = yield* modules
            const uri = options.jwksUri ?? (yield* metadata.get).value.jwks_uri
            if (uri === undefined) {
              return yield* new VerifierUnavailable({ reason: `the metadata of ${issuer} names no jwks_uri` })
            }
            const url = new URL(uri)
            if (url.protocol !== "https:" && !allowInsecure && !isLoopback(url)) {
              return yield* new VerifierUnavailable({ reason: `the key set ${uri} is not https` })
            }
            return yield* fetchKeys(jose, url, timeoutSeconds)
          }),
          { ages, backoff, clock, fork, unavailable: backingOff, stale: usedStale }
        )
        keySets.set(issuer, found)
      }
      return found
    }
    const verified = options.cache === false ? undefined : new Verified(options.cache ?? {})
    return make((token, expected) =>
      Effect.gen(function*() {
        const [jose] = yield* modules
        let header: Jose.ProtectedHeaderParameters
        let claims: Jose.JWTPayload
        try {
          header = jose.decodeProtectedHeader(token)
          claims = jose.decodeJwt(token)
        } catch (cause) {
          return yield* new TokenRejected({ reason: "not a JWT", cause })
        }
        if (typeof header.alg !== "string" || !algorithms.includes(header.alg)) {
          return yield* new TokenRejected({ reason: `the algorithm ${String(header.alg)} is not taken` })
        }
        const issuer = claims.iss
        if (typeof issuer !== "string" || !expected.issuers.includes(issuer)) {
          return yield* new TokenRejected({ reason: `the issuer ${String(issuer)} is not one of those configured` })
        }
        if (keySets.size >= 64 && !keySets.has(issuer)) {
          return yield* new VerifierUnavailable({ reason: "too many issuers" })
        }
        const keySet = keySetOf(issuer)
        const verifyWith = (keys: Jose.JWTVerifyGetKey) =>
          Effect.either(Effect.tryPromise({
            try: () =>
              jose.jwtVerify(token, keys, {
                issuer,
                audience: expected.audiences as Array<string>,
                algorithms,
                clockTolerance: expected.clockSkewSeconds,
                requiredClaims: ["exp"],
                ...(options.type !== undefined ? { typ: options.type } : {})
              }),
            catch: (cause) => cause
          }))
        const held = yield* keySet.get
        let result = yield* verifyWith(held.value)
        // A key the held set lacks: the issuer may have rotated its keys (fetched again at most
        // once per cooldown, never while backing off).
        if (result._tag === "Left" && result.left instanceof jose.errors.JWKSNoMatchingKey) {
          const fresher = yield* keySet.refresh(held)
          if (Option.isSome(fresher)) result = yield* verifyWith(fresher.value.value)
        }
        if (result._tag === "Left") return yield* joseRejection(jose, result.left)
        const auth = yield* authInfoOf(token, result.right.payload as Record<string, unknown>)
        verified?.set(token, auth, expected)
        return auth
      }), verified && ((token, expected) => verified.get(token, expected)))
  })

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
  Effect.gen(function*() {
    const clock: Clock.Clock = yield* Effect.clock
    const fork = Issuer.forkIn(yield* Effect.runtime<never>(), yield* Effect.scope)
    const timeoutSeconds = Duration.toSeconds(options.timeout ?? "5 seconds")
    const allowInsecure = options.allowInsecure === true
    const backoff = backoffOf(options.backoff)
    const verified = options.cache === false ? undefined : new Verified(options.cache ?? {})
    const client: OAuth.Client = { client_id: options.clientId }
    // The endpoint's metadata, found once per first issuer expected (a verifier may serve several
    // transports) and kept.
    const servers = new Map<
      string,
      Issuer.Remote<readonly [typeof OAuth, OAuth.AuthorizationServer], VerifierUnavailable>
    >()
    const serverOf = (expected: Expected) => {
      const found = servers.get(expected.issuers[0])
      if (found !== undefined) return found.get
      const made = Issuer.makeRemote(
        Effect.gen(function*() {
          const oauth = yield* loadOAuth
          const issuer = expected.issuers[0]
          if (options.endpoint !== undefined) {
            return [oauth, { issuer, introspection_endpoint: options.endpoint }] as const
          }
          const metadata = yield* discover(oauth, issuer, allowInsecure, timeoutSeconds)
          if (metadata.introspection_endpoint === undefined) {
            return yield* new VerifierUnavailable({
              reason: `the metadata of ${issuer} names no introspection_endpoint`
            })
          }
          return [oauth, metadata] as const
        }),
        { ages: metadataAges, backoff, clock, fork, unavailable: backingOff, stale: usedStale }
      )
      if (servers.size < 64) servers.set(expected.issuers[0], made)
      return made.get
    }
    return make((token, expected) =>
      Effect.gen(function*() {
        const found = verified?.get(token, expected)
        if (found !== undefined) return found
        const now = Date.now()
        const [oauth, as] = (yield* serverOf(expected)).value
        const endpoint = new URL(as.introspection_endpoint!)
        const answer = yield* Effect.tryPromise({
          try: async (signal) => {
            const response = await oauth.introspectionRequest(
              as,
              client,
              oauth.ClientSecretBasic(Redacted.value(options.clientSecret)),
              token,
              requestOptions(oauth, endpoint, allowInsecure, timeoutSeconds, signal)
            )
            return await oauth.processIntrospectionResponse(as, client, response)
          },
          catch: (cause) => new VerifierUnavailable({ reason: "the introspection endpoint did not answer", cause })
        })
        if (!answer.active) return yield* new TokenRejected({ reason: "the token is not active" })
        const claims = answer as unknown as Record<string, unknown>
        const audiences = strings(claims.aud)
        if (!expected.audiences.some((a) => audiences.includes(a))) {
          return yield* new TokenRejected({ reason: "the token's audience is not this resource" })
        }
        if (typeof claims.iss === "string" && !expected.issuers.includes(claims.iss)) {
          return yield* new TokenRejected({ reason: "the token's issuer is not one of those configured" })
        }
        // With several issuers, an answer must say whose token it is.
        if (typeof claims.iss !== "string" && expected.issuers.length > 1) {
          return yield* new TokenRejected({ reason: "the introspection answer names no issuer" })
        }
        const skew = expected.clockSkewSeconds * 1000
        if (typeof claims.exp === "number" && claims.exp * 1000 + skew <= now) {
          return yield* new TokenRejected({ reason: "the token expired" })
        }
        if (typeof claims.nbf === "number" && claims.nbf * 1000 - skew > now) {
          return yield* new TokenRejected({ reason: "the token is not valid yet (nbf)" })
        }
        const auth = yield* authInfoOf(token, claims)
        verified?.set(token, auth, expected)
        return auth
      }), verified && ((token, expected) => verified.get(token, expected)))
  })

/**
 * @since 0.1.0
 * @category layers
 */
export const layerIntrospection = (options: IntrospectionOptions): Layer.Layer<TokenVerifier> =>
  Layer.scoped(TokenVerifier, introspection(options))
