/**
 * A `TokenStore` in a file: what OAuth authorization gave a client (registrations and tokens, per
 * protected resource) kept between runs, as JSON readable by the user alone.
 *
 * - The file holds every entry; secrets are written as plain strings (the file is mode 0600) and
 *   are `Redacted` again as they are read.
 * - Its directory: made 0700 when the store creates it. The store's own directory (that of
 *   {@link defaultPath}) is made 0700 at a write when it was open to others (said as a notice); a
 *   directory chosen with `path` that the store did not create (a home, a project, an app's root)
 *   is never changed: that it is open to others is said once, as a notice (the file is 0600
 *   whatever its directory). Where the directory cannot be made, nothing is written.
 * - Every write goes to a new file beside it, renamed over it: a reader never sees half a file.
 * - Saves within one process are one at a time; each reads the file first, so that what another
 *   process saved meanwhile (for another resource) is kept.
 * - A missing file is an empty store. So is a file that is not a token file (not JSON, another
 *   shape or version): the next save renames it aside, `<file>.invalid-<time>`, never writes over
 *   it, and says so. A file that cannot be read (its permissions) is read as empty and never written
 *   over. Each of these is a notice (`onNotice`; by default a warning logged), as is a write that
 *   fails: the store's operations cannot fail.
 *
 * @since 0.1.0
 */
import * as TokenStore from "@effect-mcp/client/TokenStore"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as internal from "./internal/tokenFile.js"

/**
 * Options of {@link makeFile}.
 *
 * @since 0.1.0
 * @category models
 */
export interface FileOptions {
  /**
   * Says what became of the file or its directory (kept aside, made private, left open, not written): one
   * line, naming the paths. Default: `Effect.logWarning`, prefixed `effect-mcp: `. A command-line
   * tool shows it on stderr in its own words.
   */
  readonly onNotice?: ((message: string) => Effect.Effect<void>) | undefined
}

/**
 * Where the tokens are kept by default: `$XDG_CONFIG_HOME/effect-mcp/tokens.json`, else
 * `~/.config/effect-mcp/tokens.json`; on Windows `%APPDATA%\effect-mcp\tokens.json`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const defaultPath: () => string = internal.defaultPath

/**
 * A `TokenStore` in the file at `path` (default {@link defaultPath}). Nothing is read until it is
 * used: every `load` reads the file.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeFile = (path?: string, options?: FileOptions): Effect.Effect<TokenStore.Service> =>
  internal.make(path ?? defaultPath(), options)

/**
 * {@link makeFile} as a layer.
 *
 * ```ts
 * import { NodeTokenStore } from "@effect-mcp/platform-node"
 *
 * export const Tokens = NodeTokenStore.layerFile() // ~/.config/effect-mcp/tokens.json
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerFile = (path?: string, options?: FileOptions): Layer.Layer<TokenStore.TokenStore> =>
  Layer.effect(TokenStore.TokenStore, makeFile(path, options))
