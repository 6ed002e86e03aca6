/**
 * Tasks on the client, both revisions. A tool call made as a task (2025-11-25: `params.task`,
 * when the server declares `tasks.requests.tools.call`; 2026-07-28: the tasks extension declared
 * in that request's `_meta`) gives a handle:
 *
 * - 2025-11-25: `result` is `tasks/result`, which blocks until the task ends (the task's asks
 *   reach the session's handlers on its stream meanwhile); `status` polls `tasks/get` and hears
 *   `notifications/tasks/status`, and once the task waits for input it asks for the result in the
 *   background, so that the asks have a stream to come on.
 * - 2026-07-28: `status` is heard on a `subscriptions/listen` for the task (when the server
 *   declares the extension; polling otherwise, or once the listen ends), each open input request
 *   answered with the handlers and sent with `tasks/update`, each key once; `result` is the
 *   status followed to its end.
 *
 * 2025-11-25: a task call's `onProgress` hears the task's progress for its whole life (the
 * revision keeps the call's `progressToken` valid until the task ends), not only until the
 * server made the task: the call is sent with a token of this client's (`TaskProgress`), told
 * apart from the engine's own (numbers), which keeps its handler until the handle's `result`
 * ends.
 *
 * A hostile server cannot make the client spin or hoard: the poll interval is held between 50 ms
 * and 60 s, everything waits at most the task's time to live, and at most 10,000 input requests
 * of one handle are answered.
 */
import { type JsonRpc, McpError, type Method, type Peer, type Revision, Schema as McpSchema } from "@effect-mcp/core"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as ClientError from "../ClientError.js"
import type {
  CallOptions,
  RequestResult,
  Subscription,
  Task,
  TaskCallOptions,
  TaskHandleOptions,
  TaskInfo,
  Tasks
} from "../McpClient.js"
import type { Asks } from "./asks.js"
import type * as Backlog from "./backlog.js"
import * as Listing from "./listing.js"
import { checked, decoded, isObject } from "./request.js"

type InputRequest = McpSchema.InputRequired.InputRequest
type Status = McpSchema.Tasks.TaskStatus

/** The poll interval asked for, held within these bounds (milliseconds). */
export const minPollInterval = 50
export const maxPollInterval = 60_000
/** The interval when the server names none. */
const defaultPollInterval = 1_000
/** The input requests one handle answers at most. */
export const maxAnsweredKeys = 10_000

/** The 2025-11-25 task calls whose progress one client hears at most at once: past it, the oldest's is let go. */
export const maxTaskProgress = 1_000

/** The most progress notifications of one task call waiting while its `onProgress` runs (as a call's). */
export const maxTaskProgressWaiting = 16

/**
 * One task call's `onProgress`, told as a call's is (`HandOff` in core's outbound, serial): one at
 * a time, in order, at most `maxTaskProgressWaiting` waiting while one runs, the oldest dropped
 * past it (each progress says what those before it did). The notification that finds it idle
 * runs it, and then those that came meanwhile; the others only leave their progress.
 */
class Serial {
  private running = false
  private readonly waiting: Array<Peer.Progress> = []
  constructor(private readonly onProgress: (progress: Peer.Progress) => Effect.Effect<void>) {}
  push(progress: Peer.Progress): Effect.Effect<void> {
    if (this.running) {
      if (this.waiting.length >= maxTaskProgressWaiting) this.waiting.shift()
      this.waiting.push(progress)
      return Effect.void
    }
    this.running = true
    let next: Peer.Progress | undefined = progress
    return Effect.ensuring(
      Effect.whileLoop({
        while: () => next !== undefined,
        body: () => {
          const now = next!
          next = undefined
          return this.onProgress(now)
        },
        step: () => {
          next = this.waiting.shift()
        }
      }),
      Effect.sync(() => {
        this.running = false
      })
    )
  }
}

/**
 * The `onProgress` of a client's 2025-11-25 task calls, by the progress token each was sent with
 * (a string: the engine's own tokens, its request ids, are numbers). Bounded by `maxTaskProgress`,
 * each told one at a time with at most `maxTaskProgressWaiting` waiting.
 */
export class TaskProgress {
  private readonly handlers = new Map<string, Serial>()
  private last = 0
  /** A token for `onProgress`, heard until `remove`. */
  add(onProgress: (progress: Peer.Progress) => Effect.Effect<void>): string {
    const token = `task-progress-${++this.last}`
    if (this.handlers.size >= maxTaskProgress) this.handlers.delete(this.handlers.keys().next().value!)
    this.handlers.set(token, new Serial(onProgress))
    return token
  }
  remove(token: string): void {
    this.handlers.delete(token)
  }
  /** What telling a progress notification's handler is, when it is one of these calls'. */
  told(params: unknown): Effect.Effect<void> | undefined {
    const token = (params as { readonly progressToken?: unknown } | undefined)?.progressToken
    const handler = typeof token === "string" ? this.handlers.get(token) : undefined
    return handler === undefined ? undefined : handler.push(params as Peer.Progress)
  }
}

export interface Options {
  readonly era: Revision.Era
  readonly revision: Revision.Revision
  readonly serverCapabilities: McpSchema.Capabilities.ServerCapabilities
  readonly asks: Asks
  /** Every notification the server sends. */
  readonly notifications: Backlog.Backlog
  /**
   * A request of the tasks methods (a task call too), on the era's path: in the stateless era
   * its `_meta` declares the tasks extension, and it skips the response cache. The wire result.
   */
  readonly send: (method: string, params: object, call: CallOptions | undefined) => Effect.Effect<
    unknown,
    ClientError.ClientError
  >
  /** A 2026-07-28 listen whose `_meta` declares the tasks extension. */
  readonly listen: (
    filter: McpSchema.Subscription.SubscriptionFilter
  ) => Effect.Effect<Subscription, ClientError.ClientError, Scope.Scope>
  /** The bounds of `list`. */
  readonly bounds: Listing.Bounds
  /** The progress handlers of 2025-11-25 task calls (the engine tells them what it hears). */
  readonly taskProgress: TaskProgress
}

export const isTerminal = (status: Status): boolean =>
  status === "completed" || status === "failed" || status === "cancelled"

/** How long to wait before the next poll: what the server asks, within bounds. */
export const pollDelay = (info: TaskInfo): number =>
  Math.min(maxPollInterval, Math.max(minPollInterval, info.pollIntervalMs ?? defaultPollInterval))

/**
 * A task as decoded, in either revision's words: 2025-11-25 `ttl` and `pollInterval`; the
 * extension's `ttlMs` and `pollIntervalMs`, with what its status carries (a `DetailedTask`).
 */
export type WireTask =
  | McpSchema.Tasks.Task
  | McpSchema.TasksExtension.Task & {
    readonly inputRequests?: Readonly<Record<string, InputRequest>>
    readonly result?: Readonly<Record<string, unknown>>
    readonly error?: JsonRpc.ErrorObject
  }

/** A task as the client shows it (`TaskInfo`), from either revision's. */
export const infoOf = (task: WireTask): TaskInfo => {
  const [ttl, pollInterval] = "ttlMs" in task ? [task.ttlMs, task.pollIntervalMs] : [task.ttl, task.pollInterval]
  return {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage !== undefined ? { statusMessage: task.statusMessage } : {}),
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs: ttl,
    ...(pollInterval !== undefined ? { pollIntervalMs: pollInterval } : {}),
    ...("inputRequests" in task && task.inputRequests !== undefined ? { inputRequests: task.inputRequests } : {}),
    ...("result" in task && task.result !== undefined ? { result: task.result } : {}),
    ...("error" in task && task.error !== undefined ? { error: task.error } : {})
  }
}

/** The task a tool call created (2025-11-25: `task`; the extension: `resultType: "task"`), if it did. */
const createdOf = (result: Method.Result<"tools/call">): TaskInfo | undefined =>
  "resultType" in result && result.resultType === "task"
    ? infoOf(result)
    : "task" in result && isObject(result.task)
    ? infoOf(result.task)
    : undefined

/** What makes a status element news: its status, message and open input requests. */
const said = (info: TaskInfo) =>
  `${info.status}\u0000${info.statusMessage ?? ""}\u0000${Object.keys(info.inputRequests ?? {}).join(",")}`

const decodeStatus2025 = Schema.decodeUnknownEither(McpSchema.Tasks.TaskStatusNotificationParams)
const decodeStatusExtension = Schema.decodeUnknownEither(McpSchema.TasksExtension.TaskStatusNotificationParams)

/** A status notification of `taskId`, in the revision's shape; none for any other notification. */
const noteOf = (taskId: string, n: JsonRpc.Notification): Option.Option<TaskInfo> => {
  const params: Either.Either<WireTask, unknown> | undefined = n.method === "notifications/tasks/status"
    ? decodeStatus2025(n.params)
    : n.method === "notifications/tasks"
    ? decodeStatusExtension(n.params)
    : undefined
  if (params === undefined || Either.isLeft(params) || params.right.taskId !== taskId) return Option.none()
  return Option.some(infoOf(params.right))
}

/** The failure of an ended task that has no result: failed (with its error) or cancelled. */
const endedWithout = (info: TaskInfo, error?: McpError.McpError): ClientError.TaskError =>
  info.status === "cancelled"
    ? new ClientError.TaskCancelled({ taskId: info.taskId })
    : new ClientError.TaskFailed({
      taskId: info.taskId,
      error: error ?? McpError.fromWire(info.error ?? { code: -32603, message: "The task failed" })
    })

/** What a handle works with: the client's options, its era's, and its `tasks/get`. */
interface HandleEnv {
  readonly options: Options
  readonly stateless: boolean
  /** 2026-07-28 with the tasks extension: a task's status is heard on a listen. */
  readonly listens: boolean
  readonly get: (taskId: string) => Effect.Effect<TaskInfo, ClientError.ClientError>
}

/**
 * 2026-07-28: what answers the open input requests of `taskId` with the handlers (`tasks/update`),
 * each key once per handle.
 */
const answererOf = (env: HandleEnv, taskId: string) => {
  const { asks, send } = env.options
  const answered = new Set<string>()
  return (info: TaskInfo): Effect.Effect<void, ClientError.ClientError> => {
    if (!env.stateless || info.status !== "input_required" || info.inputRequests === undefined) return Effect.void
    const fresh = Object.entries(info.inputRequests).filter(([key]) => !answered.has(key))
    if (fresh.length === 0) return Effect.void
    if (answered.size + fresh.length > maxAnsweredKeys) {
      return Effect.fail(new ClientError.RoundTripsExceeded({ method: "tasks/update", rounds: answered.size }))
    }
    for (const [key] of fresh) answered.add(key)
    return Effect.all(
      Object.fromEntries(
        fresh.map(([key, input]) => [key, asks.answer(input.method, "params" in input ? input.params : undefined)])
      ),
      { concurrency: 8 }
    ).pipe(
      Effect.flatMap((inputResponses) => send("tasks/update", { taskId, inputResponses }, undefined)),
      Effect.asVoid,
      // Not answered after all: a later look may answer them.
      Effect.onExit((exit) =>
        exit._tag === "Success" ? Effect.void : Effect.sync(() => {
          for (const [key] of fresh) answered.delete(key)
        })
      )
    )
  }
}

/** `tasks/get` of `taskId` from `after` on (none: at once), every poll interval, until the task ends. */
const polling = (env: HandleEnv, taskId: string, after: TaskInfo | undefined) =>
  Stream.paginateEffect(after, (previous) =>
    Effect.map(
      Effect.zipRight(previous === undefined ? Effect.void : Effect.sleep(pollDelay(previous)), env.get(taskId)),
      (info) => [info, isTerminal(info.status) ? Option.none() : Option.some(info)] as const
    ))

/**
 * The raw elements of the status of `taskId`: what was heard or polled, in order, possibly
 * repeated. 2025-11-25: a task waiting for input asks on the stream of a `tasks/result`
 * (`waitResult`), started once in the background.
 */
const heardOf = (
  env: HandleEnv,
  taskId: string,
  waitResult: Effect.Effect<unknown, unknown>
): Stream.Stream<TaskInfo, ClientError.ClientError> => {
  if (env.stateless && !env.listens) return polling(env, taskId, undefined)
  if (env.stateless) {
    return Stream.unwrapScoped(Effect.gen(function*() {
      const subscription = yield* Effect.either(env.options.listen({ taskIds: [taskId] }))
      if (Either.isLeft(subscription) || !(subscription.right.acknowledged.taskIds ?? []).includes(taskId)) {
        return polling(env, taskId, undefined)
      }
      let last: TaskInfo | undefined
      const notes = subscription.right.notifications.pipe(
        Stream.filterMap((n) => noteOf(taskId, n)),
        Stream.tap((info) => Effect.sync(() => (last = info)))
      )
      // The task after the listen was acknowledged: no change falls between the two.
      const now = yield* env.get(taskId)
      last = now
      // The listen may end before the task does: polling takes over from what was heard last.
      return Stream.concat(Stream.make(now), Stream.concat(notes, Stream.suspend(() => polling(env, taskId, last))))
    }))
  }
  return Stream.unwrapScoped(Effect.gen(function*() {
    const scope = yield* Effect.scope
    let fetching = false
    const notes = env.options.notifications.stream.pipe(Stream.filterMap((n) => noteOf(taskId, n)))
    return Stream.merge(polling(env, taskId, undefined), notes).pipe(
      Stream.tap((info) => {
        if (info.status !== "input_required" || fetching) return Effect.void
        fetching = true
        return Effect.asVoid(Effect.forkIn(Effect.ignore(waitResult), scope))
      })
    )
  }))
}

/** The status of a task from what was heard: news only, its input requests answered, until it ends. */
const statusOf = (
  heard: Stream.Stream<TaskInfo, ClientError.ClientError>,
  answer: (info: TaskInfo) => Effect.Effect<void, ClientError.ClientError>
): Stream.Stream<TaskInfo, ClientError.ClientError> =>
  Stream.suspend(() => {
    let newest = -Infinity
    return heard.pipe(
      // A notification older than what was polled already (or the other way round) is no news.
      Stream.filter((info) => {
        const at = Date.parse(info.lastUpdatedAt)
        if (Number.isFinite(at) && at < newest) return false
        if (Number.isFinite(at)) newest = at
        return true
      }),
      Stream.changesWith((a, b) => said(a) === said(b)),
      Stream.tap(answer),
      Stream.takeUntil((info) => isTerminal(info.status))
    )
  })

/** 2025-11-25: `tasks/result` of `taskId`, waiting as long as the task may live. */
const waitResultOf = (
  env: HandleEnv,
  taskId: string,
  ttlMs: number | null
): Effect.Effect<RequestResult<"tools/call">, ClientError.ClientError | ClientError.TaskError> =>
  Effect.flatMap(
    env.options.send("tasks/result", { taskId }, {
      timeout: ttlMs === null ? Duration.infinity : Duration.millis(ttlMs)
    }),
    (result) => decoded(env.options.revision, "tools/call", result)
  ).pipe(
    Effect.catchIf(
      McpError.isMcpError,
      (error): Effect.Effect<never, ClientError.ClientError | ClientError.TaskError> =>
        // The task's own end, or the request's failure?
        Effect.flatMap(
          Effect.either(env.get(taskId)),
          (found): Effect.Effect<never, ClientError.ClientError | ClientError.TaskError> =>
            Either.isRight(found) && (found.right.status === "failed" || found.right.status === "cancelled")
              ? Effect.fail(endedWithout(found.right, error))
              : Effect.fail(error)
        )
    )
  )

/** 2026-07-28: the status followed to its end, the outcome read from it. */
const followedOf = <E>(
  revision: Revision.Revision,
  status: Stream.Stream<TaskInfo, E>
): Effect.Effect<RequestResult<"tools/call">, E | ClientError.ClientError | ClientError.TaskError> =>
  Effect.flatMap(Stream.runLast(status), (
    last
  ): Effect.Effect<RequestResult<"tools/call">, ClientError.ClientError | ClientError.TaskError> => {
    if (Option.isNone(last)) {
      return Effect.fail(new ClientError.InvalidResult({ method: "tasks/get", detail: "the task was not found" }))
    }
    const info = last.value
    if (info.status !== "completed") return Effect.fail(endedWithout(info))
    if (info.result === undefined) {
      return Effect.fail(
        new ClientError.InvalidResult({ method: "tasks/get", detail: "a completed task without its result" })
      )
    }
    // A result without `resultType` is complete (an older server's way).
    return decoded(revision, "tools/call", { resultType: "complete", ...info.result })
  })

export const make = (options: Options): {
  readonly tasks: Tasks
  readonly callTool: (
    name: string,
    args: Readonly<Record<string, unknown>> | undefined,
    call: TaskCallOptions
  ) => Effect.Effect<Task, ClientError.ClientError>
} => {
  const { era, revision, send } = options
  const stateless = era === "stateless"
  const listens = stateless &&
    options.serverCapabilities.extensions?.[McpSchema.TasksExtension.extensionId] !== undefined

  const get = (taskId: string) =>
    Effect.flatMap(
      send("tasks/get", { taskId }, undefined),
      (result) => Effect.map(checked(revision, "tasks/get", result), infoOf)
    )

  const cancel = (taskId: string) => Effect.asVoid(send("tasks/cancel", { taskId }, undefined))

  const list: Tasks["list"] = Listing.all("tasks/list", options.bounds, (cursor) =>
    Effect.flatMap(
      send("tasks/list", cursor === undefined ? {} : { cursor }, undefined),
      (result) =>
        Effect.map(
          checked(revision, "tasks/list", result),
          (page) => ({ items: page.tasks.map(infoOf), next: page.nextCursor })
        )
    ))

  const env: HandleEnv = { options, stateless, listens, get }

  /** A handle on a task first seen as `first` (`ended`: what is done once its `result` is). */
  const handle = (
    first: TaskInfo,
    created: Option.Option<TaskInfo>,
    handleOptions: TaskHandleOptions | undefined,
    ended: Effect.Effect<void> = Effect.void
  ): Effect.Effect<Task> =>
    Effect.map(Clock.currentTimeMillis, (seenAt) => {
      const { taskId, ttlMs } = first
      /** Waits at most the task's time to live, counted from when this client first saw it. */
      const bounded = <A, E, R>(stream: Stream.Stream<A, E, R>) =>
        ttlMs === null ? stream : Stream.interruptWhen(
          stream,
          Effect.flatMap(Clock.currentTimeMillis, (now) =>
            Effect.zipRight(
              Effect.sleep(Duration.millis(Math.max(0, seenAt + ttlMs - now))),
              Effect.fail(new ClientError.TaskExpired({ taskId, ttlMs }))
            ))
        )
      const waitResult = waitResultOf(env, taskId, ttlMs)
      const status: Task["status"] = bounded(statusOf(heardOf(env, taskId, waitResult), answererOf(env, taskId)))
      const waiting = Effect.ensuring(stateless ? followedOf(revision, status) : waitResult, ended)
      return {
        taskId: Option.some(taskId),
        created,
        status,
        result: handleOptions?.cancelOnInterrupt === true
          ? Effect.onInterrupt(waiting, () => Effect.ignore(cancel(taskId)))
          : waiting,
        cancel: cancel(taskId)
      } satisfies Task
    })

  /** A call the server answered at once: a handle already done. */
  const done = (result: RequestResult<"tools/call">): Task => ({
    taskId: Option.none(),
    created: Option.none(),
    status: Stream.empty,
    result: Effect.succeed(result),
    cancel: Effect.void
  })

  const callTool = (
    name: string,
    args: Readonly<Record<string, unknown>> | undefined,
    call: TaskCallOptions
  ): Effect.Effect<Task, ClientError.ClientError> => {
    const { cancelOnInterrupt, task: _task, ttl, ...rest } = call
    const base = args === undefined ? { name } : { name, arguments: args }
    const interrupting = { cancelOnInterrupt: cancelOnInterrupt === true }
    // 2025-11-25: only a server that runs tool calls as tasks is asked to.
    const asks2025 = options.serverCapabilities.tasks?.requests?.tools?.call !== undefined
    if (stateless || !asks2025) return made(send("tools/call", base, rest), interrupting, Effect.void)
    const task = { ...base, task: ttl === undefined ? {} : { ttl: Duration.toMillis(ttl) } }
    const { onProgress, ...others } = rest
    if (onProgress === undefined) return made(send("tools/call", task, others), interrupting, Effect.void)
    // Its progress heard for the task's life, under a token of ours (see the module's notes).
    return Effect.suspend(() => {
      const token = options.taskProgress.add(onProgress)
      const ended = Effect.sync(() => options.taskProgress.remove(token))
      return Effect.onExit(
        made(send("tools/call", { ...task, _meta: { progressToken: token } }, others), interrupting, ended),
        (exit) => exit._tag === "Success" && Option.isSome(exit.value.taskId) ? Effect.void : ended
      )
    })
  }

  /** The handle of a task call's answer (`ended`: done once the task's result is). */
  const made = (
    sent: Effect.Effect<unknown, ClientError.ClientError>,
    interrupting: TaskHandleOptions,
    ended: Effect.Effect<void>
  ): Effect.Effect<Task, ClientError.ClientError> =>
    Effect.flatMap(
      sent,
      (raw) =>
        Effect.flatMap(checked(revision, "tools/call", raw), (result): Effect.Effect<Task, ClientError.ClientError> => {
          const created = createdOf(result)
          if (created !== undefined) return handle(created, Option.some(created), interrupting, ended)
          return Effect.map(decoded(revision, "tools/call", raw), done)
        })
    )

  const tasks: Tasks = {
    get,
    list,
    cancel,
    handle: (taskId, handleOptions) => Effect.flatMap(get(taskId), (info) => handle(info, Option.none(), handleOptions))
  }
  return { tasks, callTool }
}
