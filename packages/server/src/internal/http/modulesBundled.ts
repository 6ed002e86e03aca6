/**
 * The HTTP transport's modules for a Worker's bundle (`#http-modules` under the `workerd`,
 * `worker` and `edge-light` conditions), imported statically: the bundle evaluates them at once,
 * and esbuild links every module in one scope (no lazy initialisers, unused code left out). The
 * same exports as `modules.ts`, which Node loads.
 */
import * as Handler from "./handler.js"
import * as Platform from "./platform.js"
import * as Web from "./web.js"

/** The platform-neutral handler of the MCP endpoints. */
export const handler = (): Promise<typeof Handler> => Promise.resolve(Handler)

/** The @effect/platform adapter. */
export const platform = (): Promise<typeof Platform> => Promise.resolve(Platform)

/** The Web-standard adapter. */
export const web = (): Promise<typeof Web> => Promise.resolve(Web)
