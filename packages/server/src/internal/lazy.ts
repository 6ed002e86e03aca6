/**
 * The server's lazily loaded modules (`internal/modules.ts`), through the package's `#modules`:
 * loaded on first use on Node, linked statically in a Worker's bundle (`modulesBundled.ts`).
 * Typed by the sources, so a compile that resolves the package's `imports` to `dist/` while it
 * reads `src/` (docgen's examples) sees the same types as the build.
 */
import * as Loaders from "#modules"
import type * as Modules from "./modules.js"

/** The loaders of the server's lazily loaded modules. */
export const modules = Loaders as unknown as typeof Modules
