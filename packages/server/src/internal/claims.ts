/**
 * A token's claims read as an `AuthInfo` (`TokenVerifier.authInfoOf`), and the audiences of a
 * resource: what every verifier and the HTTP transport's authorization use, without the
 * verifiers' own code (`tokenVerifier.ts`, loaded when a verifier is first made).
 */
import { AuthInfo } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { TokenRejected } from "../TokenVerifier.js"

/** A claim's strings: a string, or the strings of an array. */
export const strings = (u: unknown): ReadonlyArray<string> =>
  typeof u === "string" ? [u] : Array.isArray(u) ? u.filter((s): s is string => typeof s === "string") : []

/** `scope` (a space-separated string, RFC 9068 / 7662), or `scp` (a string or an array: Entra, Okta). */
const scopesOf = (claims: Record<string, unknown>): ReadonlyArray<string> => {
  const scope = claims.scope ?? claims.scp
  if (typeof scope === "string") return scope.split(" ").filter((s) => s !== "")
  return strings(scope)
}

/** `TokenVerifier.authInfoOf`. */
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

/** `TokenVerifier.audiencesFor`. */
export const audiencesFor = (resource: string): ReadonlyArray<string> =>
  resource.endsWith("/") ? [resource, resource.slice(0, -1)] : [resource, `${resource}/`]
