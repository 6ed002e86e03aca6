/**
 * A `TokenStore` in a file: what OAuth authorization gave a client (registrations and tokens, per
 * protected resource) kept between runs, as JSON readable by the user alone.
 *
 * - The file holds every entry; secrets are written as plain strings (the file is mode 0600, its
 *   directory, when created, 0700) and are `Redacted` again as they are read.
 * - Every write goes to a new file beside it, renamed over it: a reader never sees half a file.
 * - Saves within one process are one at a time; each reads the file first, so that what another
 *   process saved meanwhile (for another resource) is kept.
 * - A missing file is an empty store. So is a file that cannot be read or is not a token file,
 *   with a warning logged (`Effect.logWarning`); the next save replaces it. A write that fails is
 *   logged the same way, not raised: the store's operations cannot fail.
 *
 * @since 0.1.0
 */
import { TokenStore } from "@effect-mcp/client"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as internal from "./internal/tokenFile.js"

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
export const makeFile = (path?: string): Effect.Effect<TokenStore.Service> => internal.make(path ?? defaultPath())

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
export const layerFile = (path?: string): Layer.Layer<TokenStore.TokenStore> =>
  Layer.effect(TokenStore.TokenStore, makeFile(path))
