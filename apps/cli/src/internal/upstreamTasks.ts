/**
 * Tasks through a proxy or gateway: a tool the upstream runs as a task is served as one. A client's
 * task call (2025-11-25 `params.task`, or 2026-07-28 with the tasks extension declared) is a task of
 * the serving server's own (`Tool.make`'s `task`), whose handler makes the call upstream as a task
 * there and follows it to its end:
 *
 * - **Ids**: the client sees the server's own task id, never the upstream's. The server's task is
 *   the map from that id to (upstream, upstream task id): it holds the upstream's handle for its
 *   lifetime. So ids are as unguessable, owner-bound and bounded as any of the server's tasks
 *   (`tasks/get`, `tasks/result`, `tasks/cancel` and `tasks/list` see only the caller's own), and
 *   no id of one upstream's tasks can be sent to another's.
 * - **Status**: the upstream task's status message is the server's task's (`McpTask.status`);
 *   its asks (`input_required`) reach the client through the relay, as a call's do; its result,
 *   or its JSON-RPC error, is the server's task's.
 * - **Cancel**: cancelling the server's task (`tasks/cancel`) interrupts its handler, which
 *   cancels the upstream task (`tasks/cancel` there).
 * - **An upstream gone** (exited, restarted) loses its tasks: the server's task fails with -32603
 *   saying so, at once.
 */
import type { ClientError, McpClient } from "@effect-mcp/client"
import { McpError, Schema as McpSchema } from "@effect-mcp/core"
import { McpRequest, McpTask } from "@effect-mcp/server"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type { Relay } from "../Proxy.js"

/**
 * How a tool of the upstream runs as a task here (`Tool.make`'s `task`): as its definition says
 * (2025-11-25 `execution.taskSupport`), or, with a 2026-07-28 upstream that declares the tasks
 * extension (which decides per call, its tools saying nothing), `optional`; undefined: never. The
 * call is a task here from when it is one upstream (`onDetach`): one the upstream answers at once
 * is answered so (as a receiver that runs no task for it does).
 */
export const supportOf = (
  client: McpClient.Service,
  tool: McpSchema.Tool.Tool
): { readonly support: "optional" | "required"; readonly start: "onDetach" } | undefined => {
  const support = (tool as { readonly execution?: { readonly taskSupport?: string } }).execution?.taskSupport
  if (support === "optional" || support === "required") return { support, start: "onDetach" }
  if (support === undefined && client.revision === "2026-07-28") {
    const extensions = (client.serverCapabilities as { readonly extensions?: Readonly<Record<string, unknown>> })
      .extensions
    if (extensions?.[McpSchema.TasksExtension.extensionId] !== undefined) {
      return { support: "optional", start: "onDetach" }
    }
  }
  return undefined
}

/** What ended an upstream task, as the client of the serving server sees it. */
const errorOf = (error: ClientError.ClientError | ClientError.TaskError): McpError.McpError => {
  switch (error._tag) {
    case "TaskFailed":
      return error.error
    // Neither names the upstream's task id: the gateway's clients never see it (the gateway's own
    // task id stands for it).
    case "TaskCancelled":
      return new McpError.InternalError({ message: `proxy: the upstream cancelled the task` })
    case "TaskExpired":
      return new McpError.InternalError({
        message: `proxy: the upstream task did not end within its time to live (${error.ttlMs} ms)`
      })
    case "TransportClosed":
      return new McpError.InternalError({
        message: `proxy: the upstream went away; its task is lost (it keeps none across a restart)`
      })
    default:
      return McpError.isMcpError(error) ? error : new McpError.InternalError({ message: `proxy: ${error.message}` })
  }
}

/**
 * The call of tool `name` upstream (`plain`, piped): when the client can take a task here, made as
 * a task upstream instead, which, once the upstream made one, is this call's task, followed to its
 * end (see the module's notes).
 */
export const orTask = (
  client: McpClient.Service,
  relay: Relay,
  name: string,
  args: Readonly<Record<string, unknown>> | undefined
) =>
<E>(
  plain: Effect.Effect<McpClient.RequestResult<"tools/call">, E, McpRequest.McpRequest>
): Effect.Effect<McpClient.RequestResult<"tools/call">, E | McpError.McpError, McpRequest.McpRequest> =>
  Effect.flatMap(Effect.serviceOption(McpTask.McpTask), (mayBe): Effect.Effect<
    McpClient.RequestResult<"tools/call">,
    E | McpError.McpError,
    McpRequest.McpRequest
  > =>
    Option.isNone(mayBe) ? plain : Effect.flatMap(McpRequest.McpRequest, (request) =>
      relay.forward(
        Effect.gen(function*() {
          // Its progress is the request's (once detached, the task's status message).
          const task = yield* client.callTool(name, args, {
            task: true,
            cancelOnInterrupt: true,
            ...(Option.isSome(request.progressToken)
              ? { onProgress: (p) => request.progress(p.progress, p.total, p.message) }
              : {})
          })
          // Answered at once upstream: at once here too.
          if (Option.isNone(task.taskId)) return yield* task.result
          yield* McpTask.detach
          // Its status message is ours, as it changes.
          const status = yield* Effect.fork(
            task.status.pipe(
              Stream.runForEach((info) =>
                info.statusMessage === undefined ? Effect.void : McpTask.status(info.statusMessage)
              ),
              Effect.ignore
            )
          )
          return yield* Effect.ensuring(task.result, Fiber.interrupt(status))
        }).pipe(Effect.mapError(errorOf))
      )))
