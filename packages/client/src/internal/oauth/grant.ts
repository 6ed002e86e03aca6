/**
 * The grant of the OAuth flow: the client's registration (kept, pre-registered, a client ID
 * metadata document, dynamic), how it authenticates at the token endpoint, the scopes asked for,
 * and the grant itself (authorization code with PKCE and `resource`, client credentials, a JWT
 * bearer assertion, SEP-990's identity assertion).
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as oauth from "oauth4webapi"
import * as ClientError from "../../ClientError.js"
import type { Grant, Options } from "../../McpAuth.js"
import type * as TokenStore from "../../TokenStore.js"
import { allowed, type Challenge, type Env, failed, isLoopback, type Resource, splitScopes, union } from "./common.js"
import { discoverServer } from "./discovery.js"
import { dpopOf } from "./dpop.js"
import { call, fetchOf, fromOAuth } from "./fetch.js"

/** The registration at `as`: kept, pre-registered, a metadata document, or a dynamic one. */
export const register = (
  env: Env,
  resource: Resource,
  as: oauth.AuthorizationServer,
  redirectUri: string | undefined
) =>
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
export const clientAuthOf = (env: Env, as: oauth.AuthorizationServer, registration: TokenStore.Registration) =>
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

/** The tokens of a token endpoint response. */
export const tokensOf = (
  issuer: string,
  response: oauth.TokenEndpointResponse,
  asked: ReadonlyArray<string>,
  now: number,
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
    ? { expiresAt: now + response.expires_in * 1000, lifetime: response.expires_in * 1000 }
    : {}),
  scopes: response.scope !== undefined ? splitScopes(response.scope) : asked
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
export const grant = (
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
    return { registration, tokens: tokensOf(as.issuer, response, scopes, yield* env.clock.currentTimeMillis) }
  })
