/**
 * The server's lazily loaded modules (`internal/modules.ts`), through the package's `#modules`:
 * loaded on first use on Node, linked statically in a Worker's bundle (`modulesBundled.ts`).
 * Typed by the sources, so a compile that resolves the package's `imports` to `dist/` while it
 * reads `src/` (docgen's examples) sees the same types as the build.
 *
 * One export per loader, each its own binding (import this module as a namespace): a bundler then
 * keeps in a Worker's bundle only the modules whose loader is reached, so a server given no skills
 * or token verifier carries neither (nor yaml, jose, oauth4webapi), and one served as a Worker no
 * @effect/platform adapter. One object of every loader would keep them all.
 */
import * as Loaders from "#modules"
import type * as Modules from "./modules.js"

/** The platform-neutral handler of the MCP endpoints. */
export const handler: typeof Modules.handler = Loaders.handler

/** The @effect/platform adapter. */
export const platform: typeof Modules.platform = Loaders.platform

/** The Web-standard adapter. */
export const web: typeof Modules.web = Loaders.web

/** The 2026-07-28 era. */
export const stateless: typeof Modules.stateless = Loaders.stateless

/** The skills extension's serving. */
export const skills: typeof Modules.skills = Loaders.skills

/** The skills extension's building (`Skills.make`). */
export const skillsBuild: typeof Modules.skillsBuild = Loaders.skillsBuild

/** The token verifiers. */
export const tokenVerifier: typeof Modules.tokenVerifier = Loaders.tokenVerifier
