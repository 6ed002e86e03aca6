/**
 * Discovery: the protected resource metadata (RFC 9728), the authorization server's (RFC 8414,
 * OpenID Connect), or the 2025-03-26 defaults.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as oauth from "oauth4webapi"
import * as ClientError from "../../ClientError.js"
import * as TokenStore from "../../TokenStore.js"
import { type Challenge, cut, type Env, failed, type Resource, type ResourceMetadata } from "./common.js"
import { getJson, jsonOf } from "./fetch.js"

const strings = (u: unknown): ReadonlyArray<string> | undefined =>
  Array.isArray(u) && u.every((s) => typeof s === "string") ? u as ReadonlyArray<string> : undefined

/**
 * RFC 9728: from the challenge's `resource_metadata`, else the path-inserted well-known URL, then
 * the root one. Undefined when the server has none (a 2025-03-26 server).
 */
export const discoverResource = (env: Env, resource: Resource, challenge: Challenge) =>
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
export const discoverServer = (env: Env, issuer: string) =>
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

/** The defaults of 2025-03-26 for a server with no metadata at all: its own origin's endpoints. */
export const defaultServer = (origin: string): oauth.AuthorizationServer => ({
  issuer: origin,
  // 2025-03-26 requires PKCE of every client, with S256 where it can.
  code_challenge_methods_supported: ["S256"],
  authorization_endpoint: `${origin}/authorize`,
  token_endpoint: `${origin}/token`,
  registration_endpoint: `${origin}/register`
})
