/**
 * The server's lazily loaded modules (`internal/modules.ts`), through the package's `#modules`:
 * loaded on first use on Node, linked statically in a Worker's bundle (`modulesBundled.ts`).
 * Typed by the sources, so a compile that resolves the package's `imports` to `dist/` while it
 * reads `src/` (docgen's examples) sees the same types as the build.
 *
 * One export per loader, each its own binding (import this module as a namespace): a bundler then
 * keeps in a Worker's bundle only the modules whose loader is reached, so a server given no skills
 * or token verifier carries neither (nor yaml, jose, oauth4webapi), and one served as a Worker no
 * @effect/platform adapter. One object of every loader would keep them all. Each is cast to the
 * sources' type: docgen's examples resolve `#modules` to `dist/` while they read `src/`.
 */
import * as Loaders from "#modules"
import type * as Modules from "./modules.js"

/** The platform-neutral handler of the MCP endpoints. */
export const handler = Loaders.handler as unknown as typeof Modules.handler

/** The @effect/platform adapter. */
export const platform = Loaders.platform as unknown as typeof Modules.platform

/** The Web-standard adapter. */
export const web = Loaders.web as unknown as typeof Modules.web

/** The Web-standard adapter of a `StatelessServer`. */
export const statelessWeb = Loaders.statelessWeb as unknown as typeof Modules.statelessWeb

/** The 2026-07-28 era. */
export const stateless = Loaders.stateless as unknown as typeof Modules.stateless

/** The skills extension's serving. */
export const skills = Loaders.skills as unknown as typeof Modules.skills

/** The skills extension's building (`Skills.make`). */
export const skillsBuild = Loaders.skillsBuild as unknown as typeof Modules.skillsBuild

/** The token verifiers. */
export const tokenVerifier = Loaders.tokenVerifier as unknown as typeof Modules.tokenVerifier

/** The resource server of the HTTP front (`StatelessServer.auth`). */
export const auth = Loaders.auth as unknown as typeof Modules.auth

/**
 * What the task stores use of `effect/Stream` (`fromPubSub`, `runForEach`), not its namespace: a
 * bundle keeps every export of a namespace it hands over (the whole module, 100 KB minified).
 */
export const stream = Loaders.stream as unknown as typeof Modules.stream

/** @effect/platform's `FileSystem`. */
export const fileSystem = Loaders.fileSystem as unknown as typeof Modules.fileSystem
