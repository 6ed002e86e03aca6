/**
 * The OAuth 2.1 flow of `McpAuth`, per protected resource: discovery (RFC 9728, then RFC 8414 /
 * OpenID Connect, or the 2025-03-26 defaults), registration (pre-registered, a client ID metadata
 * document, dynamic), the grant (authorization code with PKCE and `resource`, client credentials,
 * a JWT bearer assertion), refresh, and the step-up on `insufficient_scope`. The OAuth requests
 * themselves are oauth4webapi's, over the HTTP client the layer wraps.
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as FiberId from "effect/FiberId"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as oauth from "oauth4webapi"
import type * as ClientError from "../ClientError.js"
import type * as TokenStore from "../TokenStore.js"
import { allowed, type Challenge, type Env, failed, type Resource } from "./oauth/common.js"
import { defaultServer, discoverResource, discoverServer } from "./oauth/discovery.js"
import { call, oauthErrorOf } from "./oauth/fetch.js"
import { clientAuthOf, grant, tokensOf } from "./oauth/grant.js"

export { type Challenge, challengeOf, type Env, makeResource, type Resource } from "./oauth/common.js"
export { proof } from "./oauth/dpop.js"

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
  if (
    tokens.expiresAt === undefined || tokens.expiresAt - env.clock.unsafeCurrentTimeMillis() >= margin ||
    tokens.refreshToken === undefined
  ) {
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
    const next = tokensOf(tokens.issuer, refreshed.right, tokens.scopes, yield* env.clock.currentTimeMillis, tokens)
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
