/**
 * The core's lazily loaded modules (`internal/modules.ts`), through the package's `#modules`: loaded
 * on first use on Node, linked statically in a Worker's bundle (`modulesBundled.ts`). One export per
 * loader, each its own binding (import this module as a namespace: a bundler keeps only the loaders
 * reached), each cast to the sources' type (a compile that resolves `#modules` to `dist/` while it
 * reads `src/` sees the same types), as the server's `internal/lazy.ts`.
 */
import * as Loaders from "#modules"
import type * as Modules from "./modules.js"

/** `effect/Stream`. */
export const stream = Loaders.stream as unknown as typeof Modules.stream

/** `effect/Mailbox`. */
export const mailbox = Loaders.mailbox as unknown as typeof Modules.mailbox
