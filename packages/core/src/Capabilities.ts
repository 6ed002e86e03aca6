/**
 * What a client's declared capabilities allow a server to ask of it, read the same way by both
 * sides and by both eras: a sampling request (with tools or without), an elicitation (a form or a
 * URL), the roots. A handshake-era server asks with a server→client request; a 2026-07-28 server
 * with an input request of an `input_required` result; either way, an ask the client did not
 * declare is not made.
 *
 * @since 0.1.0
 */
import * as Revision from "./Revision.js"
import type { ClientCapabilities } from "./Schema/Capabilities.js"

/**
 * An ask of a server to a client, as much of it as its capability depends on (any
 * server→client request of these methods, and any 2026-07-28 `InputRequest`, is one).
 *
 * @since 0.1.0
 * @category models
 */
export type Ask =
  | {
    readonly method: "sampling/createMessage"
    readonly params: { readonly tools?: unknown; readonly toolChoice?: unknown }
  }
  | { readonly method: "elicitation/create"; readonly params: { readonly mode?: unknown } }
  | { readonly method: "roots/list"; readonly params?: unknown }

const samplesTools = (ask: Extract<Ask, { readonly method: "sampling/createMessage" }>): boolean =>
  ask.params.tools !== undefined || ask.params.toolChoice !== undefined

/**
 * Does a client with these capabilities declare what this ask needs, in this revision?
 *
 * - sampling needs `sampling`; with `tools` or `toolChoice`, also `sampling.tools` (and a revision
 *   that has sampling with tools);
 * - a form elicitation needs `elicitation` (a revision that has it) with `form`, or, as an empty
 *   object or before URL elicitation existed, nothing in it: `{ url: {} }` alone is URL only;
 * - a URL elicitation needs `elicitation.url` (a revision that has it);
 * - roots need `roots`.
 *
 * @example
 * ```ts
 * import { Capabilities } from "@effect-mcp/core"
 *
 * const url = { method: "elicitation/create", params: { mode: "url" } } as const
 * console.log(Capabilities.declares({ elicitation: {} }, url, "2025-11-25")) // false
 * console.log(Capabilities.declares({ elicitation: { url: {} } }, url, "2025-11-25")) // true
 * ```
 *
 * @since 0.1.0
 * @category predicates
 */
export const declares = (capabilities: ClientCapabilities, ask: Ask, revision: Revision.Revision): boolean => {
  const f = Revision.features(revision)
  switch (ask.method) {
    case "sampling/createMessage": {
      const sampling = capabilities.sampling
      return sampling !== undefined && (!samplesTools(ask) || (f.samplingTools && sampling.tools !== undefined))
    }
    case "elicitation/create": {
      const elicitation = capabilities.elicitation
      if (!f.elicitation || elicitation === undefined) return false
      return ask.params.mode === "url"
        ? f.urlElicitation && elicitation.url !== undefined
        : !f.urlElicitation || elicitation.form !== undefined || elicitation.url === undefined
    }
    case "roots/list":
      return capabilities.roots !== undefined
  }
}

/**
 * The client capabilities an ask needs, as a 2026-07-28 `requiredCapabilities` says them (what a
 * -32021 error carries when `declares` is false).
 *
 * @since 0.1.0
 * @category constructors
 */
export const required = (ask: Ask): ClientCapabilities => {
  switch (ask.method) {
    case "sampling/createMessage":
      return samplesTools(ask) ? { sampling: { tools: {} } } : { sampling: {} }
    case "elicitation/create":
      return ask.params.mode === "url" ? { elicitation: { url: {} } } : { elicitation: { form: {} } }
    case "roots/list":
      return { roots: {} }
  }
}
