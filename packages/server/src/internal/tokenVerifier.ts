/**
 * The verifiers of `TokenVerifier`: JWTs against their issuer's key set, and RFC 7662
 * introspection. What each keeps is an Effect structure owned by the verifier, made in its scope:
 *
 * - what it uses of jose and oauth4webapi (`./oauthLibraries.ts`), imported once when a token first
 *   comes (`Effect.cached`);
 * - per issuer (at most {@link maxIssuers}), its metadata and key set, each a `Remote` of
 *   `./issuer.ts` (a `SynchronizedRef`: one fetch at a time in the verifier's fiber, a backoff,
 *   stale-while-revalidate, stale keys up to `maxStale`), found in an Effect `Cache`;
 * - the verified tokens (`./verified.ts`), read synchronously by the transport.
 *
 * Every time (an entry's age, a token's `exp` and `nbf`, jose's own checks) is read from the
 * verifier's `Clock`.
 */
import * as Cache from "effect/Cache"
import type * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import type { JWTVerifyGetKey } from "jose"
import type * as OAuth from "oauth4webapi"
import {
  type BackoffOptions,
  type Expected,
  type IntrospectionOptions,
  type JwtOptions,
  type Service,
  TokenRejected,
  VerifierUnavailable
} from "../TokenVerifier.js"
import { authInfoOf, strings } from "./claims.js"
import * as Issuer from "./issuer.js"
import type * as Libraries from "./oauthLibraries.js"
import * as Verified from "./verified.js"

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
  oauth: typeof Libraries,
  url: URL,
  allowInsecure: boolean,
  timeoutSeconds: number,
  signal: AbortSignal
) => ({
  [oauth.allowInsecureRequests]: allowInsecure || isLoopback(url),
  [oauth.customFetch]: bounded,
  signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutSeconds * 1000)])
})

/**
 * The metadata of the authorization server `issuer`: RFC 8414 (path-inserted), then OpenID
 * Connect discovery; its `issuer` must be `issuer`, exactly.
 */
const discover = (
  oauth: typeof Libraries,
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

// ---------------------------------------------------------------------------- what a verifier keeps

/** The most issuers a verifier keeps metadata and keys of (the least recently used go first). */
export const maxIssuers = 64

/** What every verifier is made with: its clock, where its fetches run, its backoff. */
interface Base {
  readonly clock: Clock.Clock
  readonly fork: Issuer.Fork
  readonly backoff: Issuer.Backoff
  readonly timeoutSeconds: number
  readonly allowInsecure: boolean
}

const baseOf = (
  options: { readonly backoff?: BackoffOptions; readonly timeout?: Duration.DurationInput; allowInsecure?: boolean }
): Effect.Effect<Base, never, Scope.Scope> =>
  Effect.gen(function*() {
    return {
      clock: yield* Effect.clock,
      fork: Issuer.forkIn(yield* Effect.runtime<never>(), yield* Effect.scope),
      backoff: {
        initialMillis: Duration.toMillis(options.backoff?.initial ?? "1 second"),
        maxMillis: Duration.toMillis(options.backoff?.max ?? "1 minute")
      },
      timeoutSeconds: Duration.toSeconds(options.timeout ?? "5 seconds"),
      allowInsecure: options.allowInsecure === true
    }
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

/** A value fetched from an issuer, kept as `ages` say, on the verifier's clock and in its fibers. */
const remote = <A>(base: Base, fetch: Effect.Effect<A, VerifierUnavailable>, ages: Issuer.Ages) =>
  Issuer.makeRemote(fetch, {
    ages,
    backoff: base.backoff,
    clock: base.clock,
    fork: base.fork,
    unavailable: backingOff,
    stale: usedStale
  })

/** Metadata, fetched once and kept; a failure backs off. */
const metadataAges: Issuer.Ages = { maxAgeMillis: Infinity, maxStaleMillis: Infinity, cooldownMillis: Infinity }

/** The verified tokens kept (`cache: false`: none). */
const verifiedOf = (cache: JwtOptions["cache"], clock: Clock.Clock) =>
  cache === false ? undefined : Verified.make(cache ?? {}, clock)

// ---------------------------------------------------------------------------- JWT

const defaultAlgorithms = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]

const refused = new Set(["none", "HS256", "HS384", "HS512"])

/** Why jose refused a token, for the log. */
const joseRejection = (jose: typeof Libraries, cause: unknown): TokenRejected =>
  new TokenRejected({
    reason: cause instanceof jose.errors.JOSEError ? `${cause.code}: ${cause.message}` : String(cause),
    cause
  })

/**
 * Reads a key set (bounded, no redirects) as jose's local key set: what picks a token's key by
 * its header.
 */
const fetchKeys = (
  jose: typeof Libraries,
  url: URL,
  timeoutSeconds: number
): Effect.Effect<JWTVerifyGetKey, VerifierUnavailable> =>
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

/** The protected header and the claims of a JWT, not verified yet. */
const decoded = (jose: typeof Libraries, token: string) =>
  Effect.try({
    try: () => ({ header: jose.decodeProtectedHeader(token), claims: jose.decodeJwt(token) }),
    catch: (cause) => new TokenRejected({ reason: "not a JWT", cause })
  })

/** `TokenVerifier.jwt`. */
export const jwt = (options: JwtOptions): Effect.Effect<Service, never, Scope.Scope> =>
  Effect.gen(function*() {
    const base = yield* baseOf(options)
    const { allowInsecure, clock, timeoutSeconds } = base
    const algorithms = (options.algorithms ?? defaultAlgorithms).filter((alg) => !refused.has(alg))
    const maxAgeMillis = Duration.toMillis(options.cacheMaxAge ?? "10 minutes")
    const ages: Issuer.Ages = {
      maxAgeMillis,
      maxStaleMillis: Math.max(maxAgeMillis, Duration.toMillis(options.maxStale ?? "6 hours")),
      cooldownMillis: Duration.toMillis(options.cooldown ?? "30 seconds")
    }
    const libraries = yield* Effect.cached(Effect.promise(() => import("./oauthLibraries.js")))
    /** The key set of `issuer`: its `jwks_uri` from its metadata (unless `jwksUri` names it), then the keys. */
    const keySetOf = (issuer: string) => {
      const metadata = remote(
        base,
        Effect.flatMap(libraries, (oauth) => discover(oauth, issuer, allowInsecure, timeoutSeconds)),
        metadataAges
      )
      return remote(
        base,
        Effect.gen(function*() {
          const jose = yield* libraries
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
        ages
      )
    }
    // One key set per issuer, made when a token of that issuer first comes.
    const keySets = yield* Cache.make({
      capacity: maxIssuers,
      timeToLive: Duration.infinity,
      lookup: (issuer: string) => Effect.sync(() => keySetOf(issuer))
    })
    const verified = verifiedOf(options.cache, clock)

    const verify: Service["verify"] = (token, expected) =>
      Effect.gen(function*() {
        const jose = yield* libraries
        const { claims, header } = yield* decoded(jose, token)
        if (typeof header.alg !== "string" || !algorithms.includes(header.alg)) {
          return yield* new TokenRejected({ reason: `the algorithm ${String(header.alg)} is not taken` })
        }
        const issuer = claims.iss
        if (typeof issuer !== "string" || !expected.issuers.includes(issuer)) {
          return yield* new TokenRejected({ reason: `the issuer ${String(issuer)} is not one of those configured` })
        }
        const keySet = yield* keySets.get(issuer)
        const verifyWith = (keys: JWTVerifyGetKey) =>
          Effect.either(Effect.tryPromise({
            try: () =>
              jose.jwtVerify(token, keys, {
                issuer,
                audience: [...expected.audiences],
                algorithms,
                clockTolerance: expected.clockSkewSeconds,
                currentDate: new Date(clock.unsafeCurrentTimeMillis()),
                requiredClaims: ["exp"],
                ...(options.type !== undefined ? { typ: options.type } : {})
              }),
            catch: (cause) => cause
          }))
        const held = yield* keySet.get
        const first = yield* verifyWith(held.value)
        // A key the held set lacks: the issuer may have rotated its keys (fetched again at most
        // once per cooldown, never while backing off).
        const result = first._tag === "Left" && first.left instanceof jose.errors.JWKSNoMatchingKey
          ? yield* Effect.flatMap(
            keySet.refresh(held),
            Option.match({ onNone: () => Effect.succeed(first), onSome: (fresher) => verifyWith(fresher.value) })
          )
          : first
        if (result._tag === "Left") return yield* joseRejection(jose, result.left)
        const auth = yield* authInfoOf(token, result.right.payload)
        verified?.set(token, auth, expected)
        return auth
      })
    return verified === undefined ? { verify } : { verify, cached: verified.get }
  })

// ---------------------------------------------------------------------------- introspection

/** What an introspection answer says, checked as the transport would: audience, issuer, `exp`, `nbf` (at `now`). */
const rejectionOf = (claims: Record<string, unknown>, expected: Expected, now: number): string | undefined => {
  const audiences = strings(claims.aud)
  if (!expected.audiences.some((a) => audiences.includes(a))) return "the token's audience is not this resource"
  if (typeof claims.iss === "string" && !expected.issuers.includes(claims.iss)) {
    return "the token's issuer is not one of those configured"
  }
  // With several issuers, an answer must say whose token it is.
  if (typeof claims.iss !== "string" && expected.issuers.length > 1) return "the introspection answer names no issuer"
  const skew = expected.clockSkewSeconds * 1000
  if (typeof claims.exp === "number" && claims.exp * 1000 + skew <= now) return "the token expired"
  if (typeof claims.nbf === "number" && claims.nbf * 1000 - skew > now) return "the token is not valid yet (nbf)"
  return undefined
}

/** `TokenVerifier.introspection`. */
export const introspection = (options: IntrospectionOptions): Effect.Effect<Service, never, Scope.Scope> =>
  Effect.gen(function*() {
    const base = yield* baseOf(options)
    const { allowInsecure, clock, timeoutSeconds } = base
    const verified = verifiedOf(options.cache, clock)
    const client: OAuth.Client = { client_id: options.clientId }
    const oauth = yield* Effect.cached(Effect.promise(() => import("./oauthLibraries.js")))
    // The endpoint's metadata, found once per first issuer expected (a verifier may serve several
    // transports) and kept.
    const servers = yield* Cache.make({
      capacity: maxIssuers,
      timeToLive: Duration.infinity,
      lookup: (issuer: string) =>
        Effect.sync(() =>
          remote(
            base,
            Effect.gen(function*() {
              if (options.endpoint !== undefined) {
                return { issuer, introspection_endpoint: options.endpoint } satisfies OAuth.AuthorizationServer
              }
              const metadata = yield* discover(yield* oauth, issuer, allowInsecure, timeoutSeconds)
              if (metadata.introspection_endpoint === undefined) {
                return yield* new VerifierUnavailable({
                  reason: `the metadata of ${issuer} names no introspection_endpoint`
                })
              }
              return metadata
            }),
            metadataAges
          )
        )
    })

    /** The answer of the endpoint of `as` about `token`. */
    const introspect = (oauth: typeof Libraries, as: OAuth.AuthorizationServer, token: string) =>
      Effect.tryPromise({
        try: async (signal) => {
          const response = await oauth.introspectionRequest(
            as,
            client,
            oauth.ClientSecretBasic(Redacted.value(options.clientSecret)),
            token,
            requestOptions(oauth, new URL(as.introspection_endpoint!), allowInsecure, timeoutSeconds, signal)
          )
          return await oauth.processIntrospectionResponse(as, client, response)
        },
        catch: (cause) => new VerifierUnavailable({ reason: "the introspection endpoint did not answer", cause })
      })

    const verify: Service["verify"] = (token, expected) =>
      Effect.gen(function*() {
        const found = verified?.get(token, expected)
        if (found !== undefined) return found
        const now = clock.unsafeCurrentTimeMillis()
        const server = yield* servers.get(expected.issuers[0])
        const as = (yield* server.get).value
        const answer = yield* introspect(yield* oauth, as, token)
        if (!answer.active) return yield* new TokenRejected({ reason: "the token is not active" })
        // oauth4webapi's answer is a JSON object of the endpoint's (its claims named, any others kept).
        const claims: Record<string, unknown> = answer
        const reason = rejectionOf(claims, expected, now)
        if (reason !== undefined) return yield* new TokenRejected({ reason })
        const auth = yield* authInfoOf(token, claims)
        verified?.set(token, auth, expected)
        return auth
      })
    return verified === undefined ? { verify } : { verify, cached: verified.get }
  })
