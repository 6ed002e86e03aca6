/**
 * The core's lazily loaded modules for a Worker's bundle (`#modules` under the `workerd`, `worker`
 * and `edge-light` conditions), imported statically: esbuild links them in one scope with the rest
 * (no lazy initialisers, unused code left out). The same exports as `modules.ts`, which Node loads.
 */
import * as Mailbox from "effect/Mailbox"
import * as Stream from "effect/Stream"

/** `effect/Stream`. */
export const stream = (): Promise<typeof Stream> => Promise.resolve(Stream)

/** `effect/Mailbox`. */
export const mailbox = (): Promise<typeof Mailbox> => Promise.resolve(Mailbox)
