/**
 * Work the HTTP handshake sessions fork runs on the server's runtime and in its scope, at the wire
 * (JSON text in and out through the web handler, `HttpLayerRouter.toWebHandler`):
 *
 * - what a session's end leaves to do (its tasks removed, `endOwner`) logs through the server's
 *   logger, and stops when the server closes (before: `Effect.runFork` on the default runtime,
 *   so its log went to the default logger and it outlived the server);
 * - a resumption (`GET` with `Last-Event-ID`) waiting on the event store stops when the server
 *   closes (before: a fiber of no scope, left running);
 * - shared sessions: a session ended by another instance does the same on this one's runtime;
 *   and what other instances send for a session's stream is decoded as a JSON-RPC frame
 *   (`Wire.decode`) before it reaches the client: anything else is dropped (before: `JSON.parse`,
 *   and any JSON went to the client).
 */
import { EventStore, HttpTransport, McpServer, SessionStore, TaskStore } from "@effect-mcp/server"
import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as FiberId from "effect/FiberId"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { onTestFinished } from "vitest"

const ACCEPT = "application/json, text/event-stream"
const V = "2025-11-25"
const url = "http://localhost/mcp"

/** Resolves when `deferred` completes; fails (saying what was awaited) after 5 s. */
const awaited = <A>(deferred: Deferred.Deferred<A>, what: string): Promise<A> =>
  Effect.runPromise(
    Deferred.await(deferred).pipe(
      Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error(`timed out waiting for ${what}`) })
    )
  )

const made = <A>() => Deferred.unsafeMake<A>(FiberId.none)

interface Server {
  readonly handle: (request: Request) => Promise<Response>
  readonly logged: ReadonlyArray<string>
  readonly dispose: () => Promise<void>
}

/** The MCP endpoint as a web handler, with these stores, its log kept. */
const serve = (stores: {
  readonly tasks?: Effect.Effect<TaskStore.Service, never, Scope.Scope>
  readonly events?: EventStore.Service
  readonly sessions?: SessionStore.Service
}): Server => {
  const logged: Array<string> = []
  const logger = Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => logged.push(String(message))))
  const app = HttpTransport.layer().pipe(
    Layer.provideMerge(McpServer.layer({ serverInfo: { name: "runtime", version: "1.0.0" }, revisions: [V] })),
    Layer.provide(Layer.scoped(TaskStore.TaskStore, stores.tasks ?? TaskStore.makeMemory())),
    Layer.provide(Layer.succeed(EventStore.EventStore, stores.events ?? Effect.runSync(EventStore.makeMemory()))),
    Layer.provide(
      stores.sessions === undefined ? Layer.empty : Layer.succeed(SessionStore.SessionStore, stores.sessions)
    ),
    Layer.provide(logger)
  )
  const { dispose, handler } = HttpLayerRouter.toWebHandler(app, { disableLogger: true })
  onTestFinished(() => dispose())
  return { handle: (request) => handler(request), logged, dispose }
}

let ids = 0
const post = (server: Server, body: unknown, session?: string) =>
  server.handle(
    new Request(url, {
      method: "POST",
      headers: {
        host: "localhost",
        accept: ACCEPT,
        "content-type": "application/json",
        ...(session !== undefined ? { "mcp-session-id": session, "mcp-protocol-version": V } : {})
      },
      body: JSON.stringify(body)
    })
  )

/** An initialized session: its id. */
const open = async (server: Server): Promise<string> => {
  const response = await post(server, {
    jsonrpc: "2.0",
    id: ++ids,
    method: "initialize",
    params: { protocolVersion: V, capabilities: {}, clientInfo: { name: "wire-test", version: "1" } }
  })
  expect(response.status).toBe(200)
  await response.text()
  const session = response.headers.get("mcp-session-id")!
  expect((await post(server, { jsonrpc: "2.0", method: "notifications/initialized" }, session)).status).toBe(202)
  return session
}

const get = (server: Server, session: string, headers: Record<string, string> = {}, signal?: AbortSignal) =>
  server.handle(
    new Request(url, {
      method: "GET",
      headers: { host: "localhost", accept: "text/event-stream", "mcp-session-id": session, ...headers },
      ...(signal !== undefined ? { signal } : {})
    })
  )

const del = (server: Server, session: string) =>
  server.handle(new Request(url, { method: "DELETE", headers: { host: "localhost", "mcp-session-id": session } }))

/** A memory task store whose `list` of a session's tasks (its end: `endOwner`) does `onList` first. */
const tasksWith = (onList: (owner: string) => Effect.Effect<void>) =>
  Effect.map(TaskStore.makeMemory(), (memory): TaskStore.Service => ({
    ...memory,
    list: (owner, cursor, limit) =>
      owner.startsWith("session:") ? Effect.zipRight(onList(owner), memory.list(owner, cursor, limit)) : memory.list(
        owner,
        cursor,
        limit
      )
  }))

/** Reads SSE data lines off a response body. */
const sse = (response: Response) => {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ""
  return async (): Promise<string | undefined> => {
    for (;;) {
      const end = buffer.indexOf("\n\n")
      if (end >= 0) {
        const event = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        const data = event.split("\n").filter((line) => line.startsWith("data:")).map((line) => line.slice(5).trim())
        if (data.length > 0) return data.join("\n")
        continue
      }
      const { done, value } = await reader.read()
      if (done) return undefined
      buffer += value
    }
  }
}

describe("HTTP sessions: forked work on the server's runtime and scope", () => {
  it("a session's end removes its tasks on the server's runtime: its logger hears it", async () => {
    const listed = made<string>()
    const server = serve({
      tasks: tasksWith((owner) =>
        Effect.zipRight(Effect.logInfo(`listing the tasks of ${owner}`), Deferred.succeed(listed, owner))
      )
    })
    const session = await open(server)
    expect((await del(server, session)).status).toBe(200)
    await awaited(listed, "the ended session's tasks to be listed")
    expect(server.logged.filter((line) => line.startsWith("listing the tasks of session:"))).toHaveLength(1)
  })

  it("that work stops when the server closes", async () => {
    const entered = made<void>()
    const interrupted = made<void>()
    const server = serve({
      tasks: tasksWith(() =>
        Effect.zipRight(Deferred.succeed(entered, undefined), Effect.never).pipe(
          Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined))
        )
      )
    })
    const session = await open(server)
    expect((await del(server, session)).status).toBe(200)
    await awaited(entered, "the ended session's tasks to be listed")
    await server.dispose()
    await awaited(interrupted, "the listing to be interrupted as the server closed")
  })

  it("a resumption waiting on the event store stops when the server closes", async () => {
    const memory = Effect.runSync(EventStore.makeMemory())
    const entered = made<void>()
    const interrupted = made<void>()
    const events: EventStore.Service = {
      ...memory,
      after: () =>
        Effect.zipRight(Deferred.succeed(entered, undefined), Effect.never).pipe(
          Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined))
        )
    }
    const server = serve({ events })
    const session = await open(server)
    const controller = new AbortController()
    onTestFinished(() => controller.abort())
    const resumed = get(server, session, { "last-event-id": "s0_0" }, controller.signal)
    await awaited(entered, "the resumption to ask the event store")
    await server.dispose()
    await awaited(interrupted, "the resumption to be interrupted as the server closed")
    controller.abort()
    await resumed.catch(() => undefined)
  })
})

// ---------------------------------------------------------------------------- shared sessions

/** A session store of one instance, in memory: what the test needs of one shared with others. */
const sharedStore = Effect.gen(function*() {
  const records = new Map<string, SessionStore.SessionRecord>()
  const held = yield* Queue.unbounded<string>()
  const changes = yield* Queue.unbounded<SessionStore.Change>()
  const service: SessionStore.Service = {
    key: 1,
    create: (record) => Effect.sync(() => (records.set(record.id, record), true)),
    get: (id) => Effect.sync(() => Option.fromNullable(records.get(id))),
    update: (id, state) =>
      Effect.sync(() => {
        const record = records.get(id)
        if (record !== undefined) records.set(id, { ...record, state })
        return record !== undefined
      }),
    touch: (id) => Effect.sync(() => records.has(id)),
    remove: (id) => Effect.sync(() => void records.delete(id)),
    changes: Stream.fromQueue(changes),
    send: () => Effect.void,
    broadcast: () => Effect.void,
    inbox: Stream.never,
    toStandalone: () => Effect.void,
    holdStandalone: () => Effect.succeed(held)
  }
  return { service, held, changes }
})

describe("HTTP shared sessions: work on the server's runtime, frames decoded", () => {
  it("a session ended by another instance removes its tasks on this server's runtime: its logger hears it", async () => {
    const listed = made<string>()
    const store = Effect.runSync(sharedStore)
    const server = serve({
      sessions: store.service,
      tasks: tasksWith((owner) =>
        Effect.zipRight(Effect.logInfo(`listing the tasks of ${owner}`), Deferred.succeed(listed, owner))
      )
    })
    const session = await open(server)
    // Another instance (origin 2) ended it.
    Effect.runSync(Queue.offer(store.changes, { id: session, state: undefined, origin: 2 }))
    expect(await awaited(listed, "the ended session's tasks to be listed")).toBe(`session:${session}`)
    expect(server.logged).toContain(`listing the tasks of session:${session}`)
  })

  it("what another instance sends for a session's stream reaches the client only as a JSON-RPC frame", async () => {
    const store = Effect.runSync(sharedStore)
    const server = serve({ sessions: store.service })
    const session = await open(server)
    const controller = new AbortController()
    onTestFinished(() => controller.abort())
    const response = await get(server, session, {}, controller.signal)
    expect(response.status).toBe(200)
    const next = sse(response)
    // 2025-11-25: the stream is primed (an event with empty data).
    expect(await next()).toBe("")
    const message = { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "kept" } }
    for (
      const text of ["{\"not\":\"a message\"}", "not JSON", "[1, 2]", JSON.stringify(message)]
    ) Effect.runSync(Queue.offer(store.held, text))
    expect(JSON.parse((await next())!)).toEqual(message)
    // Each dropped one is said in the server's log.
    expect(server.logged.filter((line) => line.includes("not JSON-RPC"))).toHaveLength(3)
    controller.abort()
  })
})
