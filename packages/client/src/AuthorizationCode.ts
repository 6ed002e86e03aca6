/**
 * How the authorization code of an OAuth authorization is had: the user is sent to the
 * authorization URL, and the authorization server redirects back to `redirectUri` with `code`,
 * `state` and (RFC 9207) `iss`. `McpAuth` builds the URL and checks what comes back; this service
 * only carries the user there and the answer back.
 *
 * - `NodeOAuth.layerLoopback` (in `@effect-mcp/platform-node`): a listener on 127.0.0.1 that
 *   prints the URL (or opens a browser) and waits for the redirect.
 * - {@link layerFollowRedirect}: no user at all; the authorization endpoint is asked directly and
 *   its redirect read (authorization servers that grant without interaction: tests, the
 *   conformance suite).
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ClientError from "./ClientError.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** Where the authorization server sends the user back (registered with it). */
  readonly redirectUri: string
  /** The parameters of the redirect back (`code`, `state`, `iss`, or `error`), once it came. */
  readonly acquire: (authorizationUrl: URL) => Effect.Effect<URLSearchParams, ClientError.AuthorizationFailed>
}

/**
 * @since 0.1.0
 * @category tags
 */
export class AuthorizationCode
  extends Context.Tag("@effect-mcp/client/AuthorizationCode")<AuthorizationCode, Service>()
{}

/**
 * Asks the authorization endpoint itself (a GET, redirects not followed) and reads the redirect's
 * `Location`: for authorization servers that grant without a user. Fails when the answer is not a
 * redirect to `redirectUri`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const followRedirect = (redirectUri: string): Service => ({
  redirectUri,
  acquire: (authorizationUrl) =>
    Effect.gen(function*() {
      const failed = (reason: string, cause?: unknown) =>
        new ClientError.AuthorizationFailed({
          step: "authorization",
          url: authorizationUrl.origin + authorizationUrl.pathname,
          reason,
          ...(cause !== undefined ? { cause } : {})
        })
      const response = yield* Effect.tryPromise({
        try: (signal) => fetch(authorizationUrl, { redirect: "manual", signal }),
        catch: (cause) => failed(`the authorization endpoint could not be reached (${String(cause)})`, cause)
      })
      yield* Effect.promise(() => response.body?.cancel() ?? Promise.resolve())
      const location = response.headers.get("location")
      if (response.status < 300 || response.status >= 400 || location === null) {
        return yield* failed(`the authorization endpoint answered HTTP ${response.status}, not a redirect`)
      }
      const back = new URL(location, authorizationUrl)
      const expected = new URL(redirectUri)
      if (back.origin !== expected.origin || back.pathname !== expected.pathname) {
        return yield* failed(
          `the authorization endpoint redirected to ${back.origin}${back.pathname}, not ${redirectUri}`
        )
      }
      return back.searchParams
    })
})

/**
 * {@link followRedirect} as a layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerFollowRedirect = (redirectUri: string): Layer.Layer<AuthorizationCode> =>
  Layer.succeed(AuthorizationCode, followRedirect(redirectUri))
