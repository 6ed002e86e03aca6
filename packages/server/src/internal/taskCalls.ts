/**
 * What a requestor asks of its tasks (see `tasks.ts`): `tasks/cancel`, `tasks/update` (the
 * answers to a task's input requests), `tasks/result` (the task once it ended, its 2025-11-25 asks
 * routed to the waiting request meanwhile), `tasks/list`; and the end of an owner nobody can reach.
 */
import { McpError, Method } from "@effect-mcp/core"
import type { Schema as McpSchema } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import type * as TaskStore from "../TaskStore.js"
import { inputResponseDecoder, invalidAnswer } from "./ask.js"
import type { RequestContext } from "./serving.js"
import type { Route } from "./taskRequest.js"
import { isTerminal, noInput, unavailable, unknownTask } from "./taskShapes.js"
import type { TaskState } from "./taskState.js"
import { ownerOf } from "./taskState.js"

type InputRequest = McpSchema.InputRequired.InputRequest
type TaskRecord = TaskStore.TaskRecord

/** Asks the task to stop: the record as it is after (cancelled, unless it had ended). */
export const cancel = (
  tasks: TaskState,
  taskId: string,
  request: RequestContext
): Effect.Effect<TaskRecord, McpError.McpError> =>
  Effect.flatMap(tasks.find(taskId, request), () =>
    Effect.flatMap(
      Effect.mapError(
        tasks.modify(taskId, (record) =>
          isTerminal(record.status) ? undefined : {
            status: "cancelled",
            cancelRequested: true,
            inputRequests: noInput,
            inputResponses: noInput,
            lease: undefined
          }),
        unavailable
      ),
      (after) => {
        if (Option.isNone(after)) return Effect.fail(unknownTask(taskId))
        // Run here: stopped now (one run elsewhere hears of the cancel through the store's changes).
        const local = tasks.locals.get(taskId)
        return Effect.as(local === undefined ? Effect.void : Fiber.interruptFork(local.fiber), after.value)
      }
    ))

/** Answers some of the task's open input requests (others, and unknown keys, are ignored). */
export const update = (
  tasks: TaskState,
  taskId: string,
  responses: Readonly<Record<string, unknown>>,
  request: RequestContext
): Effect.Effect<void, McpError.McpError> =>
  Effect.flatMap(tasks.find(taskId, request), (found) => {
    // An answer to an open request must be one: checked here, so a malformed one is this
    // update's error (-32602) and the task goes on waiting. Other keys are ignored.
    for (const [key, value] of Object.entries(responses)) {
      if (!Object.hasOwn(found.inputRequests, key)) continue
      const asked = found.inputRequests[key] as InputRequest
      const decoded = inputResponseDecoder(asked.method)(value)
      if (decoded._tag === "Left") {
        return Effect.fail(invalidAnswer(asked.method, key, Method.describeError(decoded.left)))
      }
    }
    return Effect.asVoid(Effect.mapError(
      tasks.modify(taskId, (record) => {
        const answered = Object.keys(responses).filter((key) => Object.hasOwn(record.inputRequests, key))
        if (answered.length === 0 || isTerminal(record.status)) return undefined
        const inputRequests = { ...record.inputRequests }
        const inputResponses = { ...record.inputResponses }
        for (const key of answered) {
          delete inputRequests[key]
          inputResponses[key] = responses[key]
        }
        return {
          inputRequests,
          inputResponses,
          status: Object.keys(inputRequests).length === 0 ? "working" : "input_required"
        }
      }),
      unavailable
    ))
  })

/**
 * The task once it ended (2025-11-25 `tasks/result`), its asks routed to this request's stream
 * meanwhile.
 */
export const terminal = (
  tasks: TaskState,
  taskId: string,
  request: RequestContext
): Effect.Effect<TaskRecord, McpError.McpError> =>
  Effect.flatMap(tasks.find(taskId, request), (first) => {
    const local = tasks.locals.get(taskId)
    const wait = (record: TaskRecord): Effect.Effect<TaskRecord, McpError.McpError> =>
      isTerminal(record.status)
        ? Effect.succeed(record)
        : Effect.flatMap(
          Effect.mapError(tasks.store.await(taskId, record.version), unavailable),
          (next) => Option.isSome(next) ? wait(next.value) : Effect.fail(unknownTask(taskId))
        )
    if (local === undefined) return wait(first)
    // Its asks may go to this request's stream while it waits.
    return Effect.acquireUseRelease(
      Effect.sync(() => {
        const route: Route = { id: request.id, via: request }
        local.routes ??= []
        local.routes.push(route)
        // An ask waiting for a way to the client comes here.
        tasks.wake(local)
        return route
      }),
      () => wait(first),
      (route) =>
        Effect.sync(() => {
          const routes = local.routes ?? []
          const at = routes.indexOf(route)
          if (at >= 0) routes.splice(at, 1)
        })
    )
  })

/** A page of the caller's tasks (each known to its requestor from here on). */
// (Tasks of `Holders.anyone` are kept under owners of their own: no request lists them.)
export const list = (
  tasks: TaskState,
  request: RequestContext,
  cursor: string | undefined,
  limit: number
): Effect.Effect<
  { readonly tasks: ReadonlyArray<TaskRecord>; readonly next: string | undefined },
  McpError.McpError
> =>
  Effect.map(Effect.mapError(tasks.store.list(ownerOf(request), cursor, limit), unavailable), (page) => {
    for (const task of page.tasks) tasks.knows(task.taskId)
    return page
  })

/**
 * The tasks of an owner nobody can reach any more (a handshake session that ended): removed,
 * the running ones' handlers stopped (a token's holder's live on: another session may reach them).
 */
export const endOwner = (tasks: TaskState, owner: string): Effect.Effect<void> => {
  // Every one of its tasks goes: the running ones stop (their runners find them gone), and
  // the finished ones free their slots now rather than at their TTL.
  const removeAll: Effect.Effect<void, TaskStore.TaskStoreUnavailable> = Effect.flatMap(
    tasks.store.list(owner, undefined, 1_000),
    (page) =>
      page.tasks.length === 0
        ? Effect.void
        : Effect.zipRight(
          Effect.forEach(page.tasks, (task) => tasks.store.remove(task.taskId), { discard: true }),
          removeAll
        )
  )
  return Effect.ignore(removeAll)
}
