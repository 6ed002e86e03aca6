/**
 * OAuth authorization on Node: the authorization code had through a loopback redirect (RFC 8252
 * §7.3), for a user at a browser on this machine. A `node:http` listener on 127.0.0.1 receives the
 * authorization server's redirect back; the user is shown the authorization URL (on stderr: stdout
 * belongs to the stdio transport), and the browser may be opened on it.
 *
 * @since 0.1.0
 */
import type * as AuthorizationCode from "@effect-mcp/client/AuthorizationCode"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import type * as Loopback from "./internal/loopback.js"
import type * as NodeMcpServer from "./NodeMcpServer.js"

/**
 * Options of {@link layerLoopback}.
 *
 * @since 0.1.0
 * @category models
 */
export interface LoopbackOptions {
  /** Port to listen on, on 127.0.0.1 (default 0: a free port, chosen when the layer is built). */
  readonly port?: number | undefined
  /** The redirect's path (default `/callback`): the redirect URI is `http://127.0.0.1:<port><path>`. */
  readonly path?: string | undefined
  /**
   * Shows the user the authorization URL (default: one line on stderr, `Open this URL to
   * authorize: …`). Never write it to stdout when the client speaks stdio.
   */
  readonly onUrl?: ((url: string) => Effect.Effect<void>) | undefined
  /**
   * Also opens the URL in the default browser (`open` on macOS, `start` on Windows, its
   * metacharacters escaped for cmd, `xdg-open` elsewhere), detached; a failure to is ignored, the URL
   * having been shown. Default false. Whatever this says, a URL that is not http(s) is neither
   * shown nor opened: `acquire` fails with it.
   */
  readonly openBrowser?: boolean | undefined
  /** How long an `acquire` waits for the redirect (default 5 minutes). */
  readonly timeout?: Duration.DurationInput | undefined
}

/**
 * An `AuthorizationCode` service on a loopback listener, open for the scope.
 *
 * Each `acquire` shows the URL, then waits for one GET of the redirect path and answers the
 * browser with a short page ("You can close this window"). Acquires at once each get their own
 * redirect: the one whose `state` is their authorization URL's (an authorization URL without a
 * `state` takes a redirect no other acquire waits for). A redirect nobody waits for is answered
 * 400 and given to nobody, so that a page in the browser cannot end a pending authorization by
 * requesting the redirect URI. Other paths are answered 404. Fails with
 * `ClientError.AuthorizationFailed` when no redirect came within `timeout`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeLoopback: (
  options?: LoopbackOptions
) => Effect.Effect<AuthorizationCode.Service, NodeMcpServer.ListenError, Scope.Scope> = (options) =>
  Effect.flatMap(loopback, (internal) => internal.make(options))

/** The loopback listener's code (and the client's authorization flow), loaded when one is first made. */
const loopback: Effect.Effect<typeof Loopback> = Effect.promise(() => import("./internal/loopback.js"))

/**
 * {@link makeLoopback} as a layer: the listener is closed when the layer's scope ends. Fails with
 * `NodeMcpServer.ListenError` when it cannot listen (a fixed `port` in use).
 *
 * ```ts
 * import { NodeOAuth } from "@effect-mcp/platform-node"
 *
 * export const Authorization = NodeOAuth.layerLoopback({ port: 8765, openBrowser: true })
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerLoopback = (
  options?: LoopbackOptions
): Layer.Layer<AuthorizationCode.AuthorizationCode, NodeMcpServer.ListenError> =>
  Layer.unwrapEffect(
    Effect.map(
      Effect.promise(() => import("@effect-mcp/client/AuthorizationCode")),
      (AuthorizationCode) => Layer.scoped(AuthorizationCode.AuthorizationCode, makeLoopback(options))
    )
  )
