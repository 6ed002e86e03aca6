/**
 * The tasks runtime of a server given no tasks code (a `StatelessServer` without `tasks`): no task
 * is ever created here (a tool that runs as a task is refused when the server is built), so every
 * task asked for is unknown (-32602, as one of another holder's is), none is listed, and nothing
 * waits on one. A module of its own: the tasks runtime's (`tasks.ts`) is not reached from it.
 */
import * as Effect from "effect/Effect"
import type * as Tasks from "./tasks.js"
import { unknownTask } from "./taskShapes.js"

const unknown = (taskId: string) => Effect.fail(unknownTask(taskId))

export const none: Tasks.Runtime = {
  start: () => Effect.dieMessage("effect-mcp: this server runs no tasks (give it the tasks code)"),
  find: unknown,
  cancel: unknown,
  update: unknown,
  terminal: unknown,
  list: () => Effect.succeed({ tasks: [], next: undefined }),
  watch: () => Effect.void,
  endOwner: () => Effect.void,
  idle: Effect.void
}
