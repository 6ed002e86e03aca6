/**
 * The server's modules that are loaded when first used (imported through the package's
 * `#modules`): the HTTP transport (a Node server over stdio never loads it), the 2026-07-28 era
 * (a handshake-only server never loads it), the skills extension and the token verifiers (loaded
 * only by a server given skills or a verifier), `effect/Stream` (a server's tasks run without it:
 * `TaskStore.makeMemory`, or a task store given as a service, loads it) and @effect/platform's
 * `FileSystem` (`AppView.file`). A Worker's bundle gets `modulesBundled.ts` instead
 * (the `workerd`, `worker` and `edge-light` conditions): there a dynamic `import()` of a module
 * sharing Effect with the rest makes esbuild (wrangler) wrap every module of the bundle in a lazy
 * initialiser, parsed twice and never tree-shaken.
 */

/** The platform-neutral handler of the MCP endpoints. */
export const handler = () => import("./http/handler.js")

/** The @effect/platform adapter. */
export const platform = () => import("./http/platform.js")

/** The Web-standard adapter. */
export const web = () => import("./http/web.js")

/** The Web-standard adapter of a `StatelessServer`. */
export const statelessWeb = () => import("./http/statelessWeb.js")

/** The 2026-07-28 era. */
export const stateless = () => import("./stateless.js")

/** The skills extension's serving. */
export const skills = () => import("./skills.js")

/** The skills extension's building (`Skills.make`). */
export const skillsBuild = () => import("./skillsBuild.js")

/** The token verifiers. */
export const tokenVerifier = () => import("./tokenVerifier.js")

/** The resource server of the HTTP front (`StatelessServer.auth`). */
export const auth = () => import("./http/auth.js")

/**
 * What the task stores use of `effect/Stream` (`fromPubSub`, `runForEach`), not its namespace: a
 * bundle keeps every export of a namespace it hands over (the whole module, 100 KB minified).
 */
export const stream = () =>
  import("effect/Stream").then((Stream) => ({ fromPubSub: Stream.fromPubSub, runForEach: Stream.runForEach }))

/** @effect/platform's `FileSystem` (it imports `effect/Stream`). */
export const fileSystem = () => import("@effect/platform/FileSystem")
