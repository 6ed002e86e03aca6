/**
 * The server's lazily loaded modules for a Worker's bundle (`#modules` under the `workerd`,
 * `worker` and `edge-light` conditions), imported statically: the bundle evaluates them at once,
 * and esbuild links every module in one scope (no lazy initialisers, unused code left out). The
 * same exports as `modules.ts`, which Node loads.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Stream from "effect/Stream"
import * as Auth from "./http/auth.js"
import * as Handler from "./http/handler.js"
import * as Platform from "./http/platform.js"
import * as StatelessWeb from "./http/statelessWeb.js"
import * as Web from "./http/web.js"
import * as Skills from "./skills.js"
import * as SkillsBuild from "./skillsBuild.js"
import * as Stateless from "./stateless.js"
import * as TokenVerifier from "./tokenVerifier.js"

/** The platform-neutral handler of the MCP endpoints. */
export const handler = (): Promise<typeof Handler> => Promise.resolve(Handler)

/** The @effect/platform adapter. */
export const platform = (): Promise<typeof Platform> => Promise.resolve(Platform)

/** The Web-standard adapter. */
export const web = (): Promise<typeof Web> => Promise.resolve(Web)

/** The Web-standard adapter of a `StatelessServer`. */
export const statelessWeb = (): Promise<typeof StatelessWeb> => Promise.resolve(StatelessWeb)

/** The 2026-07-28 era. */
export const stateless = (): Promise<typeof Stateless> => Promise.resolve(Stateless)

/** The skills extension's serving. */
export const skills = (): Promise<typeof Skills> => Promise.resolve(Skills)

/** The skills extension's building (`Skills.make`). */
export const skillsBuild = (): Promise<typeof SkillsBuild> => Promise.resolve(SkillsBuild)

/** The token verifiers. */
export const tokenVerifier = (): Promise<typeof TokenVerifier> => Promise.resolve(TokenVerifier)

/** The resource server of the HTTP front (`StatelessServer.auth`). */
export const auth = (): Promise<typeof Auth> => Promise.resolve(Auth)

/**
 * What the task stores use of `effect/Stream` (`fromPubSub`, `runForEach`), not its namespace: a
 * bundle keeps every export of a namespace it hands over (the whole module, 100 KB minified).
 */
export const stream = () => Promise.resolve({ fromPubSub: Stream.fromPubSub, runForEach: Stream.runForEach })

/** @effect/platform's `FileSystem` (it imports `effect/Stream`). */
export const fileSystem = (): Promise<typeof FileSystem> => Promise.resolve(FileSystem)
