/**
 * The core's modules that are loaded when first used (imported through the package's `#modules`):
 * `effect/Stream` and `effect/Mailbox` (with what they import, 69 modules of Effect), which only the
 * in-memory transport and a byte or text stream's NDJSON framing run; a server over stdio reads its
 * lines without them. A Worker's bundle gets `modulesBundled.ts` instead (the `workerd`, `worker`
 * and `edge-light` conditions): there a dynamic `import()` of a module sharing Effect with the rest
 * makes esbuild (wrangler) wrap every module of the bundle in a lazy initialiser.
 */

/** `effect/Stream`. */
export const stream = () => import("effect/Stream")

/** `effect/Mailbox`. */
export const mailbox = () => import("effect/Mailbox")
