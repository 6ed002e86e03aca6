/**
 * The HTTP transport's modules, loaded when first used (`HttpTransport` imports this through the
 * package's `#http-modules`): a Node server over stdio never loads them. A Worker's bundle gets
 * `modulesBundled.ts` instead (the `workerd`, `worker` and `edge-light` conditions): there a
 * dynamic `import()` of a module sharing Effect with the rest makes esbuild (wrangler) wrap every
 * module of the bundle in a lazy initialiser, parsed twice and never tree-shaken.
 */

/** The platform-neutral handler of the MCP endpoints. */
export const handler = () => import("./handler.js")

/** The @effect/platform adapter. */
export const platform = () => import("./platform.js")

/** The Web-standard adapter. */
export const web = () => import("./web.js")
