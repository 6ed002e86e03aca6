/**
 * The server's asks (sampling, elicitation, roots), answered by the user's handlers: in a
 * session as requests the server sends, in the stateless era as the input requests of an
 * `input_required` round. A kind without a handler is not declared.
 */
import { Capabilities, McpError, Method, type Revision, type Schema as McpSchema } from "@effect-mcp/core"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as ClientError from "../ClientError.js"
import type { Handlers } from "../McpClient.js"

type ClientCapabilities = McpSchema.Capabilities.ClientCapabilities

/** The capabilities the handlers make. */
export const capabilitiesOf = <R>(handlers: Handlers<R>): ClientCapabilities => ({
  ...(handlers.sampling !== undefined ? { sampling: {} } : {}),
  ...(handlers.elicitation !== undefined ? { elicitation: { form: {}, url: {} } } : {}),
  ...(handlers.roots !== undefined ? { roots: { listChanged: true } } : {})
})

/** The tasks methods a server may send its requestor (2025-11-25): about tasks the client would run. */
const tasksOfOurs = new Set(["tasks/list", "tasks/get", "tasks/result", "tasks/cancel"])

/** The asks a client answers, by method. */
const asked = new Set(["sampling/createMessage", "elicitation/create", "roots/list"])

export interface Asks {
  /** One ask, its params decoded already, answered by its handler. */
  readonly answer: (
    method: string,
    params: unknown
  ) => Effect.Effect<unknown, McpError.McpError | ClientError.MissingHandler>
  /** A session's request from the server (ping answered here), its params decoded for `revision`. */
  readonly serve: (
    revision: Revision.Revision,
    method: string,
    params: unknown
  ) => Effect.Effect<unknown, McpError.McpError>
}

export const make = <R>(
  handlers: Handlers<R>,
  capabilities: ClientCapabilities,
  context: Context.Context<R>
): Asks => {
  const answer: Asks["answer"] = (method, params) => {
    switch (method) {
      case "sampling/createMessage":
        return handlers.sampling === undefined
          ? Effect.fail(new ClientError.MissingHandler({ method, handler: "sampling" }))
          : Effect.provide(handlers.sampling(params as McpSchema.Sampling.CreateMessageRequestParams), context)
      case "elicitation/create":
        return handlers.elicitation === undefined
          ? Effect.fail(new ClientError.MissingHandler({ method, handler: "elicitation" }))
          : Effect.provide(handlers.elicitation(params as McpSchema.Elicitation.ElicitRequestParams), context)
      case "roots/list":
        return handlers.roots === undefined
          ? Effect.fail(new ClientError.MissingHandler({ method, handler: "roots" }))
          : Effect.map(Effect.provide(handlers.roots, context), (roots) => ({ roots }))
      default:
        return Effect.fail(new McpError.MethodNotFound({ method }))
    }
  }

  const serve: Asks["serve"] = (revision, method, params) => {
    if (method === "ping") return Effect.succeed({})
    const entry = Method.lookup(revision, method)
    // 2025-11-25: this client asks for tasks and runs none of its own: none to list, none known.
    if (entry !== undefined && tasksOfOurs.has(method)) {
      if (method === "tasks/list") return Effect.succeed({ tasks: [] })
      const taskId = (params as { readonly taskId?: unknown } | undefined)?.taskId
      return Effect.fail(new McpError.InvalidParams({ message: `Unknown task: ${String(taskId)}` }))
    }
    if (entry === undefined || !asked.has(method)) return Effect.fail(new McpError.MethodNotFound({ method }))
    const decodedParams = entry.decodeParams(params)
    if (decodedParams._tag === "Left") return Effect.fail(decodedParams.left)
    // Only what this client declared (sampling with tools needs `sampling.tools`, a URL
    // elicitation `elicitation.url`): the server should not have asked.
    const ask = { method, params: decodedParams.right } as Capabilities.Ask
    if (!Capabilities.declares(capabilities, ask, revision)) {
      return Effect.fail(
        new McpError.MethodNotFound({
          method,
          detail: `This client did not declare ${JSON.stringify(Capabilities.required(ask))} in its capabilities`
        })
      )
    }
    return Effect.catchTag(
      answer(method, decodedParams.right),
      "MissingHandler",
      (missing) => Effect.fail(new McpError.MethodNotFound({ method: missing.method, detail: missing.message }))
    )
  }

  return { answer, serve }
}
