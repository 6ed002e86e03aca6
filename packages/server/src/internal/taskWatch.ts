/**
 * What the tasks runtime does on its own, for its lifetime (see `tasks.ts`): it watches the
 * store's changes (stopping the tasks it runs that were cancelled, ended elsewhere or removed, and
 * telling sessions and followers of the rest), and renews the leases of the tasks it runs.
 */
import { Revision } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import * as FiberId from "effect/FiberId"
import { detailed, isTerminal, task20251125 } from "./taskShapes.js"
import type { TaskState } from "./taskState.js"
import { createdSays } from "./taskState.js"

/**
 * Tells of every change of status (or message, or open input requests), for the runtime's
 * lifetime: a 2025-11-25 task's session by `notifications/tasks/status`, an extension task's
 * followers through `extension` (the subscriptions). A task this instance runs stops when its
 * record says so (cancelled from anywhere, ended elsewhere, or gone).
 */
export const watch = (
  tasks: TaskState,
  extension: (taskId: string, owner: string, params: object) => void
): Effect.Effect<void> =>
  Effect.asVoid(Effect.forkIn(
    tasks.store.follow((change) => {
      const record = change.record
      const local = tasks.locals.get(change.taskId)
      // A task this instance runs, cancelled (from anywhere), ended elsewhere (failed when its lease
      // lapsed while this instance was cut off) or gone (swept, removed): it stops. (Its own end comes
      // after its fiber's: interrupting that is nothing.)
      if (
        local !== undefined &&
        (record === undefined || record.cancelRequested || isTerminal(record.status))
      ) {
        local.fiber.unsafeInterruptAsFork(FiberId.none)
      }
      if (record === undefined) {
        tasks.told.delete(change.taskId)
        tasks.sessions.delete(change.taskId)
        return Effect.void
      }
      const said = `${record.status}\u0000${record.statusMessage ?? ""}\u0000${
        Object.keys(record.inputRequests).join(",")
      }`
      // Its creation is the answer to its request, not news; a change that says nothing new is none.
      // (What a task was created as is not kept for each: most say nothing else until they end.)
      if (record.version === 0 || (tasks.told.get(record.taskId) ?? createdSays) === said) return Effect.void
      const notify = tasks.sessions.get(record.taskId)?.notifySession
      if (isTerminal(record.status) || said === createdSays) tasks.told.delete(record.taskId)
      else tasks.told.set(record.taskId, said)
      if (isTerminal(record.status)) tasks.sessions.delete(record.taskId)
      const f = Revision.features(record.revision as Revision.Revision)
      if (f.tasks === "extension") {
        extension(record.taskId, record.owner, detailed(record))
        return Effect.void
      }
      return notify === undefined ? Effect.void : notify("notifications/tasks/status", task20251125(record))
    }),
    tasks.scope
  ))

/**
 * One fiber renews the leases of every task this instance runs (not one per task): a task
 * costs its handler's fiber and nothing else while it runs. For the lifetime of `tasks.scope`.
 * It sleeps on `tasks.runs` while this instance runs no task (the first to start wakes it): an
 * instance with no task has no timer of it pending, instead of one waking every `leaseMs / 3`
 * for ever (part of what an idle gateway's main thread spent).
 */
export const renewLeases = (tasks: TaskState): Effect.Effect<void> => {
  const renew = Effect.suspend(() => {
    const expiresAt = tasks.now() + tasks.options.leaseMs
    return Effect.forEach(
      Array.from(tasks.locals.keys()),
      (taskId) =>
        Effect.ignore(
          tasks.modify(taskId, (record) =>
            isTerminal(record.status) ? undefined : { lease: { holder: tasks.options.instance, expiresAt } })
        ),
      { discard: true }
    )
  })
  const every = Math.max(1, Math.floor(tasks.options.leaseMs / 3))
  return Effect.asVoid(Effect.forkIn(
    Effect.forever(Effect.zipRight(tasks.runs.await, Effect.zipRight(Effect.sleep(every), renew))),
    tasks.scope
  ))
}
