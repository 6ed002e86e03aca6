/**
 * The context a task's handler runs in (`taskContext`): the server's services, shared by every
 * task, and the task's own `McpRequest` and `McpTask`, read through rather than copied.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as McpRequest from "../McpRequest.js"
import * as McpTask from "../McpTask.js"
import type { TaskPart } from "./taskRequest.js"

const requestKey = McpRequest.McpRequest.key
const taskKey = McpTask.McpTask.key

/**
 * The server's services as a task's handler sees them beside its own two (`TaskServices`): shared
 * by every task of the server.
 */
export const serverServices = (context: Context.Context<never>): ReadonlyMap<string, unknown> => {
  const services = new Map(context.unsafeMap)
  services.delete(requestKey)
  services.delete(taskKey)
  return services
}

/**
 * The services a task's handler runs with, as the map of its `Context`: the server's (shared by
 * every task), then its `McpRequest` (its part's) and its `McpTask` (this), read through. A copy
 * of the server's map with the two added (`Context.add`) held about 0.4 KB a task; this holds two
 * references. Read only, as Effect reads a context's map (`get`, `has`, `size`, iteration,
 * `forEach`): a context is never changed, adding to one copies its map.
 */
class TaskServices implements McpTask.Service {
  constructor(private readonly server: ReadonlyMap<string, unknown>, private readonly part: TaskPart) {}

  // ---------------------------------------------------------------- McpTask

  get taskId() {
    return Effect.sync(() => Option.fromNullable(this.part.taskId))
  }
  get detach() {
    return this.part.detachEffect
  }
  get status() {
    return (message: string) => this.part.setStatus(message)
  }

  // ---------------------------------------------------------------- the context's map

  get size(): number {
    return this.server.size + 2
  }
  has(key: string): boolean {
    return key === requestKey || key === taskKey || this.server.has(key)
  }
  get(key: string): unknown {
    return key === requestKey ? this.part.request : key === taskKey ? this : this.server.get(key)
  }
  *entries(): IterableIterator<[string, unknown]> {
    yield* this.server.entries()
    yield [requestKey, this.part.request]
    yield [taskKey, this]
  }
  *keys(): IterableIterator<string> {
    for (const [key] of this.entries()) yield key
  }
  *values(): IterableIterator<unknown> {
    for (const [, value] of this.entries()) yield value
  }
  [Symbol.iterator](): IterableIterator<[string, unknown]> {
    return this.entries()
  }
  forEach(f: (value: unknown, key: string, map: ReadonlyMap<string, unknown>) => void): void {
    for (const [key, value] of this.entries()) f(value, key, this as unknown as ReadonlyMap<string, unknown>)
  }
  get [Symbol.toStringTag]() {
    return "Map"
  }
}

/** The context a task's handler starts with: the server's `services`, its `McpRequest` and its `McpTask`. */
export const taskContext = (services: ReadonlyMap<string, unknown>, part: TaskPart): Context.Context<never> =>
  Context.unsafeMake(new TaskServices(services, part) as unknown as Map<string, unknown>)
