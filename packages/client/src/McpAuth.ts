/**
 * OAuth 2.1 authorization for MCP clients, as an `HttpClient` layer under the HTTP transports
 * (`McpClientTransport.layerHttp`, `layerSse`), in both eras. It adds the token to every request,
 * in the `Authorization` header; on a 401 it discovers (RFC 9728, then RFC 8414 / OpenID
 * Connect; a 2025-03-26 server's defaults), registers (pre-registered, a client ID metadata
 * document, dynamic registration), authorizes and retries; on a 403 `insufficient_scope` it steps
 * up with the scopes held and those asked. Requests in flight share one authorization per server,
 * which runs in the layer's scope: a request given up meanwhile does not end it, and the requests
 * after it wait for it rather than start another.
 *
 * ```ts
 * const transport = McpClientTransport.layerHttp({ url }).pipe(
 *   Layer.provide(McpAuth.layer({ clientName: "my agent" })),
 *   Layer.provide(NodeOAuth.layerLoopback()), // where the user is sent, and comes back
 *   Layer.provide(NodeHttpClient.layerUndici)
 * )
 * ```
 *
 * What it keeps goes to the `TokenStore` in context (in memory when there is none); the
 * authorization code comes from the `AuthorizationCode` in context. Secrets are `Redacted`. Its
 * failures are `ClientError.AuthError`s, met by the request they were for.
 *
 * @since 0.1.0
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { AuthorizationCode } from "./AuthorizationCode.js"
import * as ClientError from "./ClientError.js"
import * as Challenges from "./internal/challenges.js"
import * as OAuth from "./internal/oauth.js"
import * as TokenStore from "./TokenStore.js"

/**
 * How tokens are had.
 *
 * - `authorization_code` (the default): a user authorizes, through the `AuthorizationCode` service.
 * - `client_credentials`: the client is its own resource owner (machine to machine, SEP-1046),
 *   authenticated with its secret (`client_secret_basic`) or a private key (`private_key_jwt`).
 * - `jwt_bearer`: an assertion from elsewhere (a workload's identity token, SEP-1933) is exchanged
 *   for a token (RFC 7523), once: a refused assertion is not retried.
 *
 * @since 0.1.0
 * @category models
 */
export type Grant =
  | { readonly type: "authorization_code" }
  | {
    readonly type: "client_credentials"
    readonly clientId: string
    readonly clientSecret?: Redacted.Redacted<string> | undefined
    readonly privateKey?: {
      /** A PKCS #8 PEM. */
      readonly pem: Redacted.Redacted<string>
      /** Default ES256. */
      readonly algorithm?: string | undefined
      readonly kid?: string | undefined
    } | undefined
  }
  | {
    readonly type: "jwt_bearer"
    readonly clientId?: string | undefined
    readonly assertion: Effect.Effect<Redacted.Redacted<string>, ClientError.AuthorizationFailed>
  }
  | {
    /**
     * Enterprise-managed authorization (SEP-990): the user's ID token from the enterprise's
     * identity provider is exchanged there (RFC 8693) for an identity assertion grant (ID-JAG)
     * for this server's authorization server, which gives the token for it (RFC 7523).
     */
    readonly type: "enterprise"
    readonly clientId: string
    readonly clientSecret?: Redacted.Redacted<string> | undefined
    readonly idToken: Effect.Effect<Redacted.Redacted<string>, ClientError.AuthorizationFailed>
    readonly identityProvider: {
      readonly issuer: string
      /** Default: from the identity provider's metadata. */
      readonly tokenEndpoint?: string | undefined
      readonly clientId: string
      readonly clientSecret?: Redacted.Redacted<string> | undefined
    }
  }

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** A pre-registered client: its id (and secret), used with the authorization server it was registered with. */
  readonly clientId?: string | undefined
  readonly clientSecret?: Redacted.Redacted<string> | undefined
  /** The issuer `clientId` was registered with (default: whichever the server names). */
  readonly issuer?: string | undefined
  /** The URL of this client's ID metadata document, used where the authorization server supports them. */
  readonly clientMetadataUrl?: string | undefined
  /** The name dynamic registration gives (default "effect-mcp"). */
  readonly clientName?: string | undefined
  /** More client metadata for dynamic registration (RFC 7591). */
  readonly clientMetadata?: Readonly<Record<string, unknown>> | undefined
  /** Default `authorization_code`. */
  readonly grant?: Grant | undefined
  /** Authorizations in a row that may end in another 401 or 403 before the request fails (default 3). */
  readonly maxAttempts?: number | undefined
  /**
   * How long before its expiry a token is refreshed, in milliseconds (default 60,000). Expiry is read
   * on the `Clock` the layer is built with (a `TestClock` moves it).
   */
  readonly refreshMargin?: number | undefined
  /**
   * Plain HTTP to OAuth endpoints on hosts that are not loopback hosts (default false: refused).
   * Every endpoint is held to it alike: protected resource and authorization server metadata,
   * registration, authorization (where the user is sent), token, an identity provider's. One
   * exception needs no flag: a plain-HTTP MCP server's own protected resource metadata, on that
   * server's origin, is read (its bearer tokens are sent there anyway); its authorization server is
   * held to the rule. A scheme other than https and http is refused whatever this says.
   */
  readonly allowInsecure?: boolean | undefined
  /**
   * How long one request to an OAuth endpoint may take, its whole answer read (default 30
   * seconds); one that takes longer fails with `AuthorizationFailed`. The user's part (in the
   * browser) is the `AuthorizationCode` service's to bound.
   */
  readonly timeout?: Duration.DurationInput | undefined
  /**
   * Sender-constrained tokens (DPoP, RFC 9449; SEP-1932): a key of this client's (ES256) proves
   * every token request and every request to the server; the servers' nonces are followed
   * (default false: bearer tokens).
   */
  readonly dpop?: boolean | undefined
}

/** Reads a bounded part of a refused response's body, so that its connection can be reused. */
const discard = (response: HttpClientResponse.HttpClientResponse) =>
  Effect.ignore(Stream.runDrain(Stream.take(response.stream, 16)))

/** `request` with the token: a bearer, or a DPoP-bound token with a proof of its own. */
const withToken = (
  request: HttpClientRequest.HttpClientRequest,
  tokens: TokenStore.Tokens | undefined,
  resource: OAuth.Resource
): Effect.Effect<HttpClientRequest.HttpClientRequest> => {
  if (tokens === undefined) return Effect.succeed(request)
  const token = Redacted.value(tokens.accessToken)
  if (tokens.tokenType !== "DPoP" || resource.dpop === undefined) {
    return Effect.succeed(HttpClientRequest.setHeader(request, "authorization", `Bearer ${token}`))
  }
  return Effect.map(
    OAuth.proof(resource.dpop, request.method, request.url, token),
    (proof) => HttpClientRequest.setHeaders(request, { authorization: `DPoP ${token}`, dpop: proof })
  )
}

/** A 401 asking for a DPoP nonce (RFC 9449 §9): the nonce, kept for the proofs to come. */
const nonceAsked = (response: HttpClientResponse.HttpClientResponse, resource: OAuth.Resource) => {
  const nonce = response.headers["dpop-nonce"]
  if (resource.dpop === undefined || nonce === undefined) return false
  resource.dpop.nonce = nonce
  if (response.status !== 401) return false
  const header = response.headers["www-authenticate"]
  return header !== undefined && OAuth.challengeOf(Challenges.parse(header)).error === "use_dpop_nonce"
}

const refusal = (response: HttpClientResponse.HttpClientResponse) => {
  if (response.status !== 401 && response.status !== 403) return undefined
  const header = response.headers["www-authenticate"]
  const challenge = OAuth.challengeOf(header === undefined ? [] : Challenges.parse(header))
  // A 403 is a step-up only when it says so; any other 403 is the caller's.
  if (response.status === 403 && challenge.error !== "insufficient_scope") return undefined
  return challenge
}

/**
 * Authorizes every request of `client` (see the module's description). The authorizations under
 * way when the scope ends are interrupted.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  client: HttpClient.HttpClient,
  options: Options = {}
): Effect.Effect<HttpClient.HttpClient, never, Scope.Scope> =>
  Effect.gen(function*() {
    const store = Option.getOrUndefined(yield* Effect.serviceOption(TokenStore.TokenStore)) ??
      (yield* TokenStore.makeMemory)
    const env: OAuth.Env = {
      client,
      store,
      code: yield* Effect.serviceOption(AuthorizationCode),
      options,
      runtime: yield* Effect.runtime<never>(),
      scope: yield* Effect.scope,
      timeout: Duration.decode(options.timeout ?? Duration.seconds(30)),
      clock: yield* Effect.clock
    }
    const maxAttempts = options.maxAttempts ?? 3
    /** By origin: one resource server per origin. */
    const resources = new Map<string, OAuth.Resource>()
    /** By URL as sent (a transport sends to one or two), so that a request parses none; bounded. */
    const byUrl = new Map<string, OAuth.Resource>()
    const resourceOf = (url: string) => {
      const known = byUrl.get(url)
      if (known !== undefined) return known
      const origin = new URL(url).origin
      let resource = resources.get(origin)
      if (resource === undefined) resources.set(origin, resource = OAuth.makeResource(url))
      if (byUrl.size >= 1_000) byUrl.clear()
      byUrl.set(url, resource)
      return resource
    }

    /** The common case without a generator: the token held, one send, an answer that is no refusal. */
    const execute = (request: HttpClientRequest.HttpClientRequest) => {
      const resource = resourceOf(request.url)
      return Effect.flatMap(OAuth.current(env, resource), (sent) =>
        Effect.flatMap(
          Effect.flatMap(withToken(request, sent, resource), client.execute),
          (response) => {
            if (response.status !== 401 && response.status !== 403 && response.headers["dpop-nonce"] === undefined) {
              if (response.status < 400) resource.attempts = 0
              return Effect.succeed(response)
            }
            return refused(request, resource, sent, response)
          }
        )).pipe(
          Effect.catchIf(
            ClientError.isAuthError,
            (error) => Effect.fail(new HttpClientError.RequestError({ request, reason: "Transport", cause: error }))
          )
        )
    }

    /** A refusal (or a DPoP nonce): authorized again, or a nonce taken, and sent again, as many times as it takes. */
    const refused = (
      request: HttpClientRequest.HttpClientRequest,
      resource: OAuth.Resource,
      first: TokenStore.Tokens | undefined,
      firstResponse: HttpClientResponse.HttpClientResponse
    ) =>
      Effect.gen(function*() {
        let sent = first
        let nonces = 0
        let answered: HttpClientResponse.HttpClientResponse | undefined = firstResponse
        for (;;) {
          const response = answered ?? (yield* client.execute(yield* withToken(request, sent, resource)))
          answered = undefined
          // A nonce asked for: the same request again with it (once per request; not an authorization).
          if (nonceAsked(response, resource) && sent !== undefined && nonces++ === 0) {
            yield* discard(response)
            continue
          }
          const challenge = refusal(response)
          if (challenge === undefined) {
            if (response.status < 400) resource.attempts = 0
            return response
          }
          if (resource.attempts >= maxAttempts) {
            if (response.status === 401) return response
            return yield* new ClientError.InsufficientScope({
              url: request.url,
              required: challenge.scopes ?? [],
              held: sent?.scopes ?? [],
              attempts: resource.attempts
            })
          }
          yield* discard(response)
          yield* OAuth.authorize(env, resource, challenge, sent, response.status)
          sent = resource.entry?.tokens
        }
      })

    // Around the client, not a client of its own (`HttpClient.make` would add a span and an abort
    // controller to every request, which the client it wraps makes already).
    return HttpClient.transform(client, (_send, request) => execute(request))
  })

/**
 * The `HttpClient` of the context, authorized (for the layer's lifetime: see {@link make}).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<HttpClient.HttpClient, never, HttpClient.HttpClient> =>
  Layer.scoped(HttpClient.HttpClient, Effect.flatMap(HttpClient.HttpClient, (client) => make(client, options)))
