/**
 * Who holds the access token a request came with, as the server's token verifier found it: the
 * token's subject, the client it was issued to, its scopes and expiry, its claims, and the token
 * itself (redacted: it prints as `<redacted>`). An HTTP transport with authorization on hands one
 * to the engine with each request; handlers read it through `McpRequest.auth`.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"

/**
 * @since 0.1.0
 * @category models
 */
export class AuthInfo extends Data.Class<{
  /** The token's subject (`sub`): whose data the request touches. */
  readonly subject: string
  /** The client the token was issued to (`client_id`, or `azp`), when the token says. */
  readonly clientId: Option.Option<string>
  /** The scopes the token carries. */
  readonly scopes: ReadonlyArray<string>
  /** When the token expires (`exp`), when it does. */
  readonly expiresAt: Option.Option<Date>
  /** The token's audiences (`aud`, or the introspected `aud`): one of them is this server's resource. */
  readonly audience: ReadonlyArray<string>
  /** The authorization server that issued it (`iss`), when the token says. */
  readonly issuer: Option.Option<string>
  /** Every claim of the token (a JWT's payload, or the introspection response). */
  readonly claims: Readonly<Record<string, unknown>>
  /** The token itself. */
  readonly token: Redacted.Redacted<string>
}> {}

/**
 * Does the holder have every one of `scopes`?
 *
 * @since 0.1.0
 * @category predicates
 */
export const hasScopes = (auth: AuthInfo, scopes: ReadonlyArray<string>): boolean =>
  scopes.every((scope) => auth.scopes.includes(scope))

/**
 * The scopes of `scopes` the holder lacks.
 *
 * @since 0.1.0
 * @category utils
 */
export const missingScopes = (auth: AuthInfo, scopes: ReadonlyArray<string>): ReadonlyArray<string> =>
  scopes.filter((scope) => !auth.scopes.includes(scope))

/**
 * The epoch milliseconds the token expires at, or undefined.
 *
 * @since 0.1.0
 * @category utils
 */
export const expiresAtMillis = (auth: AuthInfo): number | undefined =>
  Option.isSome(auth.expiresAt) ? auth.expiresAt.value.getTime() : undefined

/**
 * Who the holder is, as one string: its subject at its issuer (a `sub` is unique only within one
 * issuer). What sessions and sealed states are bound to.
 *
 * @since 0.1.0
 * @category utils
 */
export const holder = (auth: AuthInfo): string =>
  JSON.stringify([Option.getOrElse(auth.issuer, () => ""), auth.subject])
