/**
 * What a tool's handler can do about the task it may run as: a tool that declares `task` runs
 * as one when the client can take it (2025-11-25: the client asked with `params.task`;
 * 2026-07-28: the client declared the `io.modelcontextprotocol/tasks` extension on the
 * request). Outside such a call every accessor here does nothing.
 *
 * ```ts
 * const Build = Tool.make("build", { parameters: Schema.Struct({ target: Schema.String }), task: "optional" }, ({ target }) =>
 *   Effect.gen(function*() {
 *     yield* McpTask.status(`compiling ${target}`)
 *     yield* Effect.sleep("30 seconds")
 *     return `built ${target}`
 *   }))
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** The task's id, once the call is a task (none before `detach`, with `start: "onDetach"`). */
  readonly taskId: Effect.Effect<Option.Option<string>>
  /**
   * From here on the call is a task: the request is answered now with the task, and the rest of
   * the handler runs as it. Before, the handler ran as a plain request (in 2026-07-28 its asks
   * are multi-round trips of the request itself); for a tool with `start: "immediately"` (the
   * default) the call is a task from the start and this does nothing.
   */
  readonly detach: Effect.Effect<void>
  /** Sets the task's `statusMessage` (what `tasks/get` and status notifications carry). */
  readonly status: (message: string) => Effect.Effect<void>
}

/**
 * The task the current handler runs as, in a call that may be one.
 *
 * @since 0.1.0
 * @category tags
 */
export class McpTask extends Context.Tag("@effect-mcp/server/McpTask")<McpTask, Service>() {}

const withTask = <A>(f: (task: Service) => Effect.Effect<A>, otherwise: A): Effect.Effect<A> =>
  Effect.flatMap(
    Effect.serviceOption(McpTask),
    (task) => Option.isSome(task) ? f(task.value) : Effect.succeed(otherwise)
  )

/**
 * The current task's id: none outside a task (or before `detach`).
 *
 * @since 0.1.0
 * @category accessors
 */
export const taskId: Effect.Effect<Option.Option<string>> = withTask((task) => task.taskId, Option.none())

/**
 * Makes the rest of the handler a task (see `Service.detach`); nothing outside a call that may be one.
 *
 * @since 0.1.0
 * @category accessors
 */
export const detach: Effect.Effect<void> = withTask((task) => task.detach, undefined)

/**
 * Sets the current task's status message; nothing outside a task.
 *
 * @since 0.1.0
 * @category accessors
 */
export const status = (message: string): Effect.Effect<void> => withTask((task) => task.status(message), undefined)
