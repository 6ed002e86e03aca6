/**
 * The OAuth 2.1 flow of `McpAuth`, per protected resource: discovery (RFC 9728, then RFC 8414 /
 * OpenID Connect, or the 2025-03-26 defaults), registration (pre-registered, a client ID metadata
 * document, dynamic), the grant (authorization code with PKCE and `resource`, client credentials,
 * a JWT bearer assertion), refresh, and the step-up on `insufficient_scope`. The OAuth requests
 * themselves are oauth4webapi's, over the HTTP client the layer wraps.
 */
import * as HttpBody from "@effect/platform/HttpBody"
import type * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberId from "effect/FiberId"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as oauth from "oauth4webapi"
import type * as AuthorizationCode from "../AuthorizationCode.js"
import * as ClientError from "../ClientError.js"
import type { Grant, Options } from "../McpAuth.js"
import * as TokenStore from "../TokenStore.js"
import { manualRedirects, reasonOf } from "./exchange.js"

/** The largest OAuth response read (metadata, a token, a registration): 1 MiB. */
const maxResponseBytes = 1024 * 1024

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

const splitScopes = (scope: string): ReadonlyArray<string> => scope.split(/\s+/).filter((s) => s.length > 0)

const union = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): ReadonlyArray<string> =>
  Array.from(new Set([...a, ...b]))

const isLoopback = (url: URL) =>
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
const allowed = (
  env: Env,
  step: Step,
  url: string,
  server?: string
): Effect.Effect<string, ClientError.AuthorizationFailed> => {
  const refusal = refusalOf(env, url, server)
  return refusal === undefined ? Effect.succeed(url) : Effect.fail(failed(step, url, refusal))
}

/** The protected resource metadata in use. */
interface ResourceMetadata {
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
}

type Step = ClientError.AuthorizationFailed["step"]

/** One line of at most `max` characters: what an endpoint said is shown, never a page of it. */
const cut = (text: string, max: number) => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

const failed = (step: Step, url: string, reason: string, cause?: unknown) =>
  new ClientError.AuthorizationFailed({
    step,
    url: cut(url, 200),
    reason: cut(reason, 300),
    ...(cause !== undefined ? { cause } : {})
  })

/** What a request to an OAuth endpoint sends. */
interface Init {
  readonly body?: unknown
  readonly headers: Record<string, string>
  readonly method: string
  /** The protected resource metadata of this MCP server is asked for (see {@link refusalOf}). */
  readonly metadataOf?: string | undefined
}

/**
 * One request to an OAuth endpoint, over the wrapped client: only to an endpoint allowed, redirects
 * not followed, the body read whole up to `maxResponseBytes`, all of it within the timeout; an
 * interruption ends it (the connection with it).
 */
const fetchOf = (
  env: Env,
  step: Step,
  url: string,
  init: Init
): Effect.Effect<Response, ClientError.AuthorizationFailed> =>
  Effect.flatMap(allowed(env, step, url, init.metadataOf), () => {
    let request = HttpClientRequest.make(init.method as "GET")(url).pipe(HttpClientRequest.setHeaders(init.headers))
    const body = init.body
    if (body instanceof URLSearchParams) {
      request = HttpClientRequest.setBody(
        request,
        HttpBody.text(body.toString(), init.headers["content-type"] ?? "application/x-www-form-urlencoded")
      )
    } else if (typeof body === "string") {
      request = HttpClientRequest.setBody(
        request,
        HttpBody.text(body, init.headers["content-type"] ?? "application/json")
      )
    } else if (body instanceof Uint8Array) {
      request = HttpClientRequest.setBody(request, HttpBody.uint8Array(body, init.headers["content-type"]))
    }
    const unreachable = (error: unknown) => failed(step, url, `could not be reached (${reasonOf(error)})`, error)
    return Effect.scoped(
      Effect.gen(function*() {
        const response = yield* Effect.mapError(manualRedirects(env.client.execute(request)), unreachable)
        const chunks: Array<Uint8Array> = []
        let size = 0
        yield* Stream.runForEach(
          Stream.mapError(response.stream, unreachable),
          (chunk) => {
            size += chunk.length
            if (size > maxResponseBytes) {
              return Effect.fail(failed(step, url, `answered more than ${maxResponseBytes} bytes; not read further`))
            }
            chunks.push(chunk)
            return Effect.void
          }
        )
        const bytes = new Uint8Array(size)
        let at = 0
        for (const chunk of chunks) {
          bytes.set(chunk, at)
          at += chunk.length
        }
        const empty = response.status === 204 || response.status === 205 || response.status === 304
        return new Response(empty ? null : bytes, { status: response.status, headers: response.headers })
      })
    ).pipe(
      Effect.timeoutFail({
        duration: env.timeout,
        onTimeout: () => failed(step, url, `did not answer within ${Duration.format(env.timeout)}`)
      })
    )
  })

/**
 * oauth4webapi's `fetch`: {@link fetchOf}, ended by the signal oauth4webapi is given (the one of
 * the Effect that runs the oauth4webapi call). Its failure is the `AuthorizationFailed` itself.
 */
const customFetchOf = (env: Env, step: Step) => (url: string, init: Init & { readonly signal?: AbortSignal }) =>
  Runtime.runPromise(env.runtime)(
    Effect.either(fetchOf(env, step, url, init)),
    init.signal !== undefined ? { signal: init.signal } : undefined
  ).then((result) => result._tag === "Right" ? result.right : Promise.reject(result.left))

/**
 * The options every oauth4webapi request takes: our fetch, which applies the endpoint rule to every
 * URL it is given (oauth4webapi's own https check is ours then), and the signal that ends it.
 */
const requestOptions = (env: Env, step: Step, signal: AbortSignal) => ({
  [oauth.customFetch]: customFetchOf(env, step),
  [oauth.allowInsecureRequests]: true,
  signal
})

/** A GET of JSON (metadata; `metadataOf`: the protected resource metadata of that MCP server). */
const getJson = (env: Env, url: string, metadataOf?: string) =>
  fetchOf(env, "discovery", url, { method: "GET", headers: { accept: "application/json" }, metadataOf })

/** Reads a JSON object from a 200, or undefined. */
const jsonOf = (response: Response) =>
  Effect.promise(async () => {
    if (response.status !== 200) return undefined
    try {
      const value = await response.json()
      return typeof value === "object" && value !== null && !Array.isArray(value)
        ? value as Record<string, unknown>
        : undefined
    } catch {
      return undefined
    }
  })

const strings = (u: unknown): ReadonlyArray<string> | undefined =>
  Array.isArray(u) && u.every((s) => typeof s === "string") ? u as ReadonlyArray<string> : undefined

/**
 * RFC 9728: from the challenge's `resource_metadata`, else the path-inserted well-known URL, then
 * the root one. Undefined when the server has none (a 2025-03-26 server).
 */
const discoverResource = (env: Env, resource: Resource, challenge: Challenge) =>
  Effect.gen(function*() {
    const server = new URL(resource.serverUrl)
    const candidates: Array<string> = []
    if (challenge.resourceMetadata !== undefined) candidates.push(challenge.resourceMetadata)
    const path = server.pathname === "/" ? "" : server.pathname.replace(/\/$/, "")
    if (path !== "") candidates.push(`${server.origin}/.well-known/oauth-protected-resource${path}`)
    candidates.push(`${server.origin}/.well-known/oauth-protected-resource`)
    for (const url of candidates) {
      const json = yield* Effect.flatMap(getJson(env, url, resource.serverUrl), jsonOf)
      if (json === undefined) continue
      const named = json.resource
      const servers = strings(json.authorization_servers)
      if (typeof named !== "string") {
        return yield* failed("discovery", url, "the protected resource metadata has no resource")
      }
      // RFC 9728 §3.3: metadata for another resource is not this server's.
      if (!TokenStore.covers(named, resource.serverUrl)) {
        return yield* new ClientError.ResourceMismatch({ url: resource.serverUrl, resource: cut(named, 200) })
      }
      if (servers === undefined || servers.length === 0) {
        return yield* failed("discovery", url, "the protected resource metadata names no authorization server")
      }
      return Option.some<ResourceMetadata>({
        resource: named,
        authorizationServers: servers,
        scopesSupported: strings(json.scopes_supported)
      })
    }
    return Option.none<ResourceMetadata>()
  })

/**
 * RFC 8414 with the OpenID Connect fallbacks, in the spec's order; the metadata's `issuer` must be
 * the issuer discovery started from, exactly. Undefined when none of the URLs has metadata.
 */
const discoverServer = (env: Env, issuer: string) =>
  Effect.gen(function*() {
    const url = new URL(issuer)
    const path = url.pathname === "/" ? "" : url.pathname.replace(/\/$/, "")
    const candidates = path === ""
      ? [`${url.origin}/.well-known/oauth-authorization-server`, `${url.origin}/.well-known/openid-configuration`]
      : [
        `${url.origin}/.well-known/oauth-authorization-server${path}`,
        `${url.origin}/.well-known/openid-configuration${path}`,
        `${url.origin}${path}/.well-known/openid-configuration`
      ]
    for (const candidate of candidates) {
      const response = yield* getJson(env, candidate)
      if (response.status !== 200) continue
      const json = yield* jsonOf(response)
      if (json === undefined) continue
      if (json.issuer !== issuer) {
        return yield* new ClientError.IssuerMismatch({
          where: "metadata",
          expected: issuer,
          received: typeof json.issuer === "string" ? cut(json.issuer, 200) : undefined
        })
      }
      return Option.some(json as unknown as oauth.AuthorizationServer)
    }
    return Option.none<oauth.AuthorizationServer>()
  })

/** The registration at `as`: kept, pre-registered, a metadata document, or a dynamic one. */
const register = (env: Env, resource: Resource, as: oauth.AuthorizationServer, redirectUri: string | undefined) =>
  Effect.gen(function*() {
    const kept = resource.entry?.registrations[as.issuer]
    if (kept !== undefined) return kept
    const { options } = env
    const grant = grantOf(options)
    const configured = grant.clientId ?? options.clientId
    if (configured !== undefined && (options.issuer === undefined || options.issuer === as.issuer)) {
      const secret = grant.clientSecret ?? options.clientSecret
      return {
        clientId: configured,
        ...(secret !== undefined ? { clientSecret: secret } : {}),
        ...(grant.privateKey !== undefined ? { tokenEndpointAuthMethod: "private_key_jwt" } : {})
      } satisfies TokenStore.Registration
    }
    if (options.clientMetadataUrl !== undefined && as.client_id_metadata_document_supported === true) {
      return { clientId: options.clientMetadataUrl, tokenEndpointAuthMethod: "none" } satisfies TokenStore.Registration
    }
    const endpoint = as.registration_endpoint
    if (endpoint === undefined) {
      return yield* failed(
        "registration",
        as.issuer,
        "the authorization server has no dynamic registration: configure clientId (and clientSecret), or " +
          "clientMetadataUrl if it supports client ID metadata documents"
      )
    }
    const supported = as.token_endpoint_auth_methods_supported ?? ["client_secret_basic"]
    const method = supported.includes("none")
      ? "none"
      : supported.includes("client_secret_basic")
      ? "client_secret_basic"
      : supported.includes("client_secret_post")
      ? "client_secret_post"
      : supported[0]!
    const metadata = {
      client_name: options.clientName ?? "effect-mcp",
      redirect_uris: redirectUri === undefined ? [] : [redirectUri],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: method,
      application_type: redirectUri !== undefined && isLoopback(new URL(redirectUri)) ? "native" : "web",
      ...options.clientMetadata
    }
    const response = yield* fetchOf(env, "registration", endpoint, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(metadata)
    })
    const json = yield* Effect.promise(() => response.json().catch(() => undefined))
    if ((response.status !== 200 && response.status !== 201) || typeof json?.client_id !== "string") {
      return yield* failed(
        "registration",
        endpoint,
        `dynamic registration answered HTTP ${response.status}${
          typeof json?.error === "string" ? ` (${json.error})` : ""
        }`
      )
    }
    return {
      clientId: json.client_id,
      ...(typeof json.client_secret === "string" ? { clientSecret: Redacted.make(json.client_secret) } : {}),
      tokenEndpointAuthMethod: typeof json.token_endpoint_auth_method === "string"
        ? json.token_endpoint_auth_method
        : method
    } satisfies TokenStore.Registration
  })

/** The grant configured, with defaults. */
const grantOf = (options: Options): {
  readonly clientId?: string | undefined
  readonly clientSecret?: Redacted.Redacted<string> | undefined
  readonly privateKey?: unknown
} => (options.grant ?? { type: "authorization_code" }) as Grant as never

/**
 * `client_secret_basic` as RFC 6749 §2.3.1 has it: each part form-encoded, then base64. (oauth4webapi's
 * encodes characters that servers compare verbatim, such as `-`.)
 */
const secretBasic = (secret: string): oauth.ClientAuth => (_as, client, _body, headers) => {
  const encode = (s: string) => encodeURIComponent(s).replace(/%20/g, "+")
  headers.set("authorization", `Basic ${btoa(`${encode(client.client_id)}:${encode(secret)}`)}`)
}

/** How the token endpoint is authenticated, from the registration, else the metadata. */
const clientAuthOf = (env: Env, as: oauth.AuthorizationServer, registration: TokenStore.Registration) =>
  Effect.gen(function*() {
    const grant = env.options.grant
    if (grant !== undefined && grant.type === "client_credentials" && grant.privateKey !== undefined) {
      const { importPKCS8 } = yield* Effect.promise(() => import("jose"))
      const key = yield* Effect.tryPromise({
        try: () => importPKCS8(Redacted.value(grant.privateKey!.pem), grant.privateKey!.algorithm ?? "ES256"),
        catch: (cause) => failed("configuration", as.issuer, "the private key could not be read", cause)
      })
      return oauth.PrivateKeyJwt({
        key: key as CryptoKey,
        ...(grant.privateKey.kid !== undefined ? { kid: grant.privateKey.kid } : {})
      })
    }
    const secret = registration.clientSecret === undefined ? undefined : Redacted.value(registration.clientSecret)
    const supported = as.token_endpoint_auth_methods_supported ?? ["client_secret_basic"]
    const method = registration.tokenEndpointAuthMethod ??
      (secret === undefined
        ? "none"
        : supported.includes("client_secret_basic")
        ? "client_secret_basic"
        : supported.includes("client_secret_post")
        ? "client_secret_post"
        : "client_secret_basic")
    if (method === "none" || secret === undefined) return oauth.None()
    if (method === "client_secret_post") return oauth.ClientSecretPost(secret)
    return secretBasic(secret)
  })

/** The resource's DPoP key, made once, when DPoP is on. */
const dpopOf = (env: Env, resource: Resource) =>
  Effect.gen(function*() {
    if (env.options.dpop !== true) return undefined
    if (resource.dpop !== undefined) return resource.dpop
    const keyPair = yield* Effect.promise(() => oauth.generateKeyPair("ES256", { extractable: true }))
    const { exportJWK } = yield* Effect.promise(() => import("jose"))
    const { crv, kty, x, y } = yield* Effect.promise(() => exportJWK(keyPair.publicKey))
    return resource.dpop = {
      handle: oauth.DPoP({}, keyPair),
      privateKey: keyPair.privateKey,
      jwk: { crv, kty, x, y },
      nonce: undefined
    }
  })

/**
 * A DPoP proof for one request to the resource (RFC 9449 §4): its method and URL (without query
 * and fragment), the access token's hash, and the server's nonce when it gave one.
 */
export const proof = (dpop: Dpop, method: string, url: string, accessToken: string) =>
  Effect.promise(async () => {
    const { SignJWT, base64url } = await import("jose")
    const target = new URL(url)
    const ath = base64url.encode(
      new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(accessToken)))
    )
    return new SignJWT({
      htm: method,
      htu: `${target.origin}${target.pathname}`,
      ath,
      jti: crypto.randomUUID(),
      ...(dpop.nonce !== undefined ? { nonce: dpop.nonce } : {})
    })
      .setProtectedHeader({ alg: "ES256", typ: "dpop+jwt", jwk: dpop.jwk })
      .setIssuedAt()
      .sign(dpop.privateKey)
  })

/** The tokens of a token endpoint response. */
const tokensOf = (
  issuer: string,
  response: oauth.TokenEndpointResponse,
  asked: ReadonlyArray<string>,
  previous?: TokenStore.Tokens
): TokenStore.Tokens => ({
  issuer,
  accessToken: Redacted.make(response.access_token),
  tokenType: response.token_type === "dpop" ? "DPoP" : "Bearer",
  ...(response.refresh_token !== undefined
    ? { refreshToken: Redacted.make(response.refresh_token) }
    : previous?.refreshToken !== undefined
    ? { refreshToken: previous.refreshToken }
    : {}),
  ...(typeof response.expires_in === "number"
    ? { expiresAt: Date.now() + response.expires_in * 1000, lifetime: response.expires_in * 1000 }
    : {}),
  scopes: response.scope !== undefined ? splitScopes(response.scope) : asked
})

/** An oauth4webapi failure as ours (one of our fetch's is ours already). */
const fromOAuth = (step: Step, url: string) => (cause: unknown) => {
  if (cause instanceof ClientError.AuthorizationFailed) return cause
  if (cause instanceof oauth.ResponseBodyError) {
    return failed(step, url, `${cause.error}${cause.error_description ? `: ${cause.error_description}` : ""}`, cause)
  }
  if (cause instanceof oauth.AuthorizationResponseError) {
    return failed(step, url, `${cause.error}${cause.error_description ? `: ${cause.error_description}` : ""}`, cause)
  }
  return failed(step, url, cause instanceof Error ? cause.message : String(cause), cause)
}

/** The OAuth `error` of a failed token request, if it said one. */
const oauthErrorOf = (error: ClientError.AuthorizationFailed) =>
  error.cause instanceof oauth.ResponseBodyError ? error.cause.error : undefined

/**
 * Runs an oauth4webapi call with the options of its requests (`requestOptions`: an interruption
 * ends them); a DPoP nonce asked for is retried once (the nonce is kept by then).
 */
const call = <A>(
  env: Env,
  step: Step,
  url: string,
  f: (options: ReturnType<typeof requestOptions>) => Promise<A>
) =>
  Effect.tryPromise({
    try: async (signal) => {
      const options = requestOptions(env, step, signal)
      try {
        return await f(options)
      } catch (error) {
        if (oauth.isDPoPNonceError(error)) return await f(options)
        throw error
      }
    },
    catch: fromOAuth(step, url)
  })

/** The scopes to ask for: the challenge's (with those held, on a step-up), else the resource's. */
const scopesFor = (
  resource: Resource,
  as: oauth.AuthorizationServer,
  challenge: Challenge,
  held: ReadonlyArray<string>,
  interactive: boolean
): ReadonlyArray<string> => {
  const base = challenge.scopes !== undefined
    ? union(held, challenge.scopes)
    : resource.metadata?.scopesSupported ?? []
  // A refresh token is asked for only where the server offers one; never assumed to come.
  return interactive && base.length > 0 && as.scopes_supported?.includes("offline_access") === true
    ? union(base, ["offline_access"])
    : base
}

/**
 * SEP-990's first step: the ID token exchanged at the identity provider (RFC 8693) for an identity
 * assertion grant for `as` and the resource.
 */
const identityAssertion = (
  env: Env,
  grant: Extract<Grant, { readonly type: "enterprise" }>,
  as: oauth.AuthorizationServer,
  resourceId: string,
  scopes: ReadonlyArray<string>
) =>
  Effect.gen(function*() {
    const provider = grant.identityProvider
    let idp: oauth.AuthorizationServer
    if (provider.tokenEndpoint !== undefined) {
      idp = { issuer: provider.issuer, token_endpoint: provider.tokenEndpoint }
    } else {
      const found = Option.getOrUndefined(yield* discoverServer(env, provider.issuer))
      if (found === undefined) {
        return yield* failed("discovery", provider.issuer, "the identity provider has no metadata")
      }
      idp = found
    }
    const client: oauth.Client = { client_id: provider.clientId }
    const auth = provider.clientSecret === undefined ? oauth.None() : secretBasic(Redacted.value(provider.clientSecret))
    const idToken = yield* grant.idToken
    const parameters: Record<string, string> = {
      subject_token: Redacted.value(idToken),
      subject_token_type: "urn:ietf:params:oauth:token-type:id_token",
      requested_token_type: "urn:ietf:params:oauth:token-type:id-jag",
      audience: as.issuer,
      resource: resourceId
    }
    if (scopes.length > 0) parameters.scope = scopes.join(" ")
    const tokenUrl = idp.token_endpoint ?? idp.issuer
    const exchanged = yield* call(env, "token", tokenUrl, async (requested) =>
      oauth.processGenericTokenEndpointResponse(
        idp,
        client,
        await oauth.genericTokenEndpointRequest(
          idp,
          client,
          auth,
          "urn:ietf:params:oauth:grant-type:token-exchange",
          parameters,
          requested
        ),
        // The ID-JAG is no access token: its token_type is "N_A" (RFC 8693 §2.2.1).
        { recognizedTokenTypes: { n_a: () => {} } }
      ))
    if (exchanged.issued_token_type !== "urn:ietf:params:oauth:token-type:id-jag") {
      return yield* failed("token", tokenUrl, "the identity provider did not issue an identity assertion grant")
    }
    return Redacted.make(exchanged.access_token)
  })

/** The grant: tokens for `resource` at `as`. */
const grant = (
  env: Env,
  resource: Resource,
  as: oauth.AuthorizationServer,
  resourceId: string,
  challenge: Challenge,
  held: ReadonlyArray<string>
) =>
  Effect.gen(function*() {
    const configured = env.options.grant ?? { type: "authorization_code" as const }
    const code = configured.type === "authorization_code" ? Option.getOrUndefined(env.code) : undefined
    if (configured.type === "authorization_code" && code === undefined) {
      return yield* failed(
        "configuration",
        resource.serverUrl,
        "the server requires authorization, and no AuthorizationCode service is provided to send the user to it"
      )
    }
    // Metadata that does not say S256 is a server without PKCE: the spec has clients refuse it (before
    // registering with it).
    if (configured.type === "authorization_code" && as.code_challenge_methods_supported?.includes("S256") !== true) {
      return yield* failed(
        "authorization",
        as.issuer,
        "the authorization server metadata does not list S256 in code_challenge_methods_supported (PKCE is required)"
      )
    }
    // The endpoints the grant will use, before anything is registered or the user sent anywhere.
    const tokenUrl = yield* allowed(env, "token", as.token_endpoint ?? as.issuer)
    let authorizationEndpoint: string | undefined
    if (configured.type === "authorization_code") {
      if (as.authorization_endpoint === undefined) {
        return yield* failed(
          "discovery",
          as.issuer,
          "the authorization server metadata has no authorization_endpoint"
        )
      }
      authorizationEndpoint = yield* allowed(env, "authorization", as.authorization_endpoint)
    }
    const registration = yield* register(env, resource, as, code?.redirectUri)
    const client: oauth.Client = { client_id: registration.clientId }
    const auth = yield* clientAuthOf(env, as, registration)
    const scopes = scopesFor(resource, as, challenge, held, configured.type === "authorization_code")
    const dpop = yield* dpopOf(env, resource)
    const withDpop = <O>(options: O) => dpop !== undefined ? { ...options, DPoP: dpop.handle } : options
    let response: oauth.TokenEndpointResponse
    switch (configured.type) {
      case "authorization_code": {
        const verifier = oauth.generateRandomCodeVerifier()
        const challengeValue = yield* Effect.promise(() => oauth.calculatePKCECodeChallenge(verifier))
        const state = oauth.generateRandomState()
        const url = new URL(authorizationEndpoint!)
        url.searchParams.set("response_type", "code")
        url.searchParams.set("client_id", registration.clientId)
        url.searchParams.set("redirect_uri", code!.redirectUri)
        url.searchParams.set("code_challenge", challengeValue)
        url.searchParams.set("code_challenge_method", "S256")
        url.searchParams.set("state", state)
        url.searchParams.set("resource", resourceId)
        if (scopes.length > 0) url.searchParams.set("scope", scopes.join(" "))
        // OpenID Connect grants offline_access only with consent asked for (Core §11).
        if (scopes.includes("offline_access")) url.searchParams.set("prompt", "consent")
        const back = yield* code!.acquire(url)
        const validated = yield* Effect.try({
          try: () => oauth.validateAuthResponse(as, client, back, state),
          catch: (cause) => {
            if (cause instanceof oauth.OperationProcessingError && /"iss"/.test(cause.message)) {
              const iss = back.get("iss") ?? undefined
              return new ClientError.IssuerMismatch({
                where: "authorization-response",
                expected: as.issuer,
                received: iss
              })
            }
            return fromOAuth("authorization", authorizationEndpoint!)(cause)
          }
        })
        response = yield* call(env, "token", tokenUrl, async (requested) =>
          oauth.processAuthorizationCodeResponse(
            as,
            client,
            await oauth.authorizationCodeGrantRequest(as, client, auth, validated, code!.redirectUri, verifier, {
              ...withDpop(requested),
              additionalParameters: { resource: resourceId }
            })
          ))
        break
      }
      case "client_credentials": {
        const parameters: Record<string, string> = { resource: resourceId }
        if (scopes.length > 0) parameters.scope = scopes.join(" ")
        response = yield* call(env, "token", tokenUrl, async (requested) =>
          oauth.processClientCredentialsResponse(
            as,
            client,
            await oauth.clientCredentialsGrantRequest(as, client, auth, parameters, withDpop(requested))
          ))
        break
      }
      case "enterprise":
      case "jwt_bearer": {
        const assertion = configured.type === "jwt_bearer"
          ? yield* configured.assertion
          : yield* identityAssertion(env, configured, as, resourceId, scopes)
        const parameters: Record<string, string> = { assertion: Redacted.value(assertion), resource: resourceId }
        if (scopes.length > 0) parameters.scope = scopes.join(" ")
        response = yield* call(env, "token", tokenUrl, async (requested) =>
          oauth.processGenericTokenEndpointResponse(
            as,
            client,
            await oauth.genericTokenEndpointRequest(
              as,
              client,
              auth,
              "urn:ietf:params:oauth:grant-type:jwt-bearer",
              parameters,
              withDpop(requested)
            )
          ))
        break
      }
    }
    return { registration, tokens: tokensOf(as.issuer, response, scopes) }
  })

/** The defaults of 2025-03-26 for a server with no metadata at all: its own origin's endpoints. */
const defaultServer = (origin: string): oauth.AuthorizationServer => ({
  issuer: origin,
  // 2025-03-26 requires PKCE of every client, with S256 where it can.
  code_challenge_methods_supported: ["S256"],
  authorization_endpoint: `${origin}/authorize`,
  token_endpoint: `${origin}/token`,
  registration_endpoint: `${origin}/register`
})

/** What is kept for `resource`, loaded once. */
export const entryOf = (env: Env, resource: Resource) =>
  Effect.gen(function*() {
    if (!resource.loaded) {
      resource.entry = Option.getOrUndefined(yield* env.store.load(resource.serverUrl))
      resource.loaded = true
    }
    return resource.entry
  })

const save = (env: Env, resource: Resource, entry: TokenStore.Entry) =>
  Effect.zipRight(Effect.sync(() => resource.entry = entry), env.store.save(entry))

/** The token to send now: refreshed first when it is about to expire and can be. */
export const current = (env: Env, resource: Resource): Effect.Effect<TokenStore.Tokens | undefined> =>
  resource.loaded ? currentOf(env, resource) : Effect.flatMap(entryOf(env, resource), () => currentOf(env, resource))

/** `current`, what is kept loaded: a token that need not be refreshed costs no fiber step of its own. */
const currentOf = (env: Env, resource: Resource): Effect.Effect<TokenStore.Tokens | undefined> => {
  const tokens = resource.entry?.tokens
  if (tokens === undefined) return Effect.succeed(undefined)
  // Never more than half its life: a token given for less than the margin is not refreshed at once.
  const margin = Math.min(env.options.refreshMargin ?? 60_000, (tokens.lifetime ?? Infinity) / 2)
  if (tokens.expiresAt === undefined || tokens.expiresAt - Date.now() >= margin || tokens.refreshToken === undefined) {
    return Effect.succeed(tokens)
  }
  return resource.lock.withPermits(1)(
    Effect.suspend(() =>
      // Another request may have refreshed it meanwhile.
      resource.entry?.tokens !== tokens
        ? Effect.succeed(resource.entry?.tokens)
        : Effect.orElseSucceed(refresh(env, resource, tokens), () => undefined)
    )
  )
}

/** A refresh of `tokens`: the new ones, or undefined when the refresh token was refused (dropped). */
const refresh = (env: Env, resource: Resource, tokens: TokenStore.Tokens) =>
  Effect.gen(function*() {
    const entry = resource.entry!
    const as = resource.as ?? (yield* Effect.map(discoverServer(env, tokens.issuer), Option.getOrUndefined))
    const registration = entry.registrations[tokens.issuer]
    if (as === undefined || registration === undefined || tokens.refreshToken === undefined) return undefined
    resource.as = as
    const client: oauth.Client = { client_id: registration.clientId }
    const auth = yield* clientAuthOf(env, as, registration)
    const tokenUrl = as.token_endpoint ?? as.issuer
    const refreshed = yield* Effect.either(call(env, "refresh", tokenUrl, async (requested) =>
      oauth.processRefreshTokenResponse(
        as,
        client,
        await oauth.refreshTokenGrantRequest(as, client, auth, Redacted.value(tokens.refreshToken!), {
          ...requested,
          ...(resource.dpop !== undefined ? { DPoP: resource.dpop.handle } : {}),
          additionalParameters: { resource: entry.resource }
        })
      )))
    if (refreshed._tag === "Left") {
      const code = oauthErrorOf(refreshed.left)
      // Another failure (the server unreachable, a 5xx) keeps what is held, for the next try.
      if (code !== "invalid_grant" && code !== "invalid_client") {
        return yield* refreshed.left
      }
      // invalid_grant: the tokens are gone; invalid_client: the registration too.
      const registrations = { ...entry.registrations }
      if (code === "invalid_client") {
        delete registrations[tokens.issuer]
      }
      yield* save(env, resource, { resource: entry.resource, registrations })
      return undefined
    }
    const next = tokensOf(tokens.issuer, refreshed.right, tokens.scopes, tokens)
    yield* save(env, resource, { ...entry, tokens: next })
    return next
  })

/**
 * After a 401 (or a 403 `insufficient_scope`) to a request that carried `sent`: new tokens, by a
 * refresh when one can do (a 401), else the whole flow. One at a time per resource: a request
 * refused while one is under way waits for it, and uses the tokens it got (or meets its failure).
 *
 * The flow runs in the layer's scope, not in the request's fiber: a request given up (interrupted,
 * timed out: an era probe that waited long enough) leaves it running, for the requests after it,
 * and no second one starts beside it. Each of its requests is bounded by the timeout, the user's
 * part by the `AuthorizationCode` service's own; the layer's end interrupts it.
 */
export const authorize = (
  env: Env,
  resource: Resource,
  challenge: Challenge,
  sent: TokenStore.Tokens | undefined,
  status: number
): Effect.Effect<void, ClientError.AuthError> =>
  Effect.suspend(() => {
    const running = resource.flow
    if (running !== undefined) return Deferred.await(running)
    const done = Deferred.unsafeMake<void, ClientError.AuthError>(FiberId.none)
    resource.flow = done
    const finish = Effect.sync(() => {
      if (resource.flow === done) resource.flow = undefined
    })
    return Effect.zipRight(
      Effect.forkIn(
        Effect.ensuring(Effect.intoDeferred(flow(env, resource, challenge, sent, status), done), finish),
        env.scope
      ),
      Deferred.await(done)
    )
  })

/** The authorization itself (see {@link authorize}). */
const flow = (
  env: Env,
  resource: Resource,
  challenge: Challenge,
  sent: TokenStore.Tokens | undefined,
  status: number
) =>
  resource.lock.withPermits(1)(Effect.gen(function*() {
    const entry = yield* entryOf(env, resource)
    if (entry?.tokens !== undefined && entry.tokens !== sent) return
    resource.attempts++
    if (status === 401 && sent?.refreshToken !== undefined && challenge.error !== "insufficient_scope") {
      const refreshed = yield* refresh(env, resource, sent)
      if (refreshed !== undefined) return
    }
    // Discovered again each time: the resource may have moved to another authorization server.
    const metadata = Option.getOrUndefined(yield* discoverResource(env, resource, challenge))
    resource.metadata = metadata
    const origin = new URL(resource.serverUrl).origin
    const issuer = metadata?.authorizationServers[0] ?? origin
    // The authorization server is spoken to over HTTPS only (plain HTTP to a loopback host aside).
    yield* allowed(env, "discovery", issuer)
    const found = Option.getOrUndefined(yield* discoverServer(env, issuer))
    if (found === undefined && metadata !== undefined) {
      return yield* failed("discovery", issuer, "the authorization server has no metadata")
    }
    const as = found ?? defaultServer(origin)
    resource.as = as
    const resourceId = metadata?.resource ?? resource.serverUrl
    const kept = resource.entry
    const base: TokenStore.Entry = {
      resource: resourceId,
      registrations: kept?.registrations ?? {}
    }
    resource.entry = base
    const held = sent !== undefined && sent.issuer === as.issuer ? sent.scopes : []
    const { registration, tokens } = yield* grant(env, resource, as, resourceId, challenge, status === 403 ? held : [])
    yield* save(env, resource, {
      resource: resourceId,
      registrations: { ...base.registrations, [as.issuer]: registration },
      tokens
    })
  }))
