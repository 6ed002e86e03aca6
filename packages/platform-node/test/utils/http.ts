/**
 * A real MCP HTTP server on 127.0.0.1 (a free port) and a wire-level client: `fetch`, raw SSE
 * parsing over `response.body`, and `node:http` where `fetch` cannot set a header (`Host`).
 *
 * The server runs on either path a user can take: `NodeMcpServer.layerHttp`, or the routes of
 * `HttpTransport.layer` served by `HttpLayerRouter.serve` on `NodeHttpServer.layer`.
 * `describeServers` runs a suite once per path.
 */
import { EventStore, HttpTransport, McpRequest, McpServer, Prompt, Resource, TaskStore, Tool } from "@effect-mcp/server"
import { Services } from "@effect-mcp/test-support"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import * as Deferred from "effect/Deferred"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberId from "effect/FiberId"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/TestClock"
import * as TestContext from "effect/TestContext"
import * as diagnostics from "node:diagnostics_channel"
import * as http from "node:http"
import * as net from "node:net"
import { describe, onTestFinished } from "vitest"
import * as NodeMcpServer from "../../src/NodeMcpServer.js"

// ---------------------------------------------------------------------------- tools the tests drive

/** What a `controlled` call exposes to the test: it started, let it go on, it finished, it was interrupted. */
export interface Control {
  readonly started: Deferred.Deferred<void>
  readonly gate: Deferred.Deferred<void>
  readonly done: Deferred.Deferred<void>
  readonly interrupted: Deferred.Deferred<void>
}

const controls = new Map<string, Control>()

/** The control of the `controlled` call with this key (made on first use). */
export const control = (key: string): Control => {
  let c = controls.get(key)
  if (c === undefined) {
    c = {
      started: Deferred.unsafeMake<void>(FiberId.none),
      gate: Deferred.unsafeMake<void>(FiberId.none),
      done: Deferred.unsafeMake<void>(FiberId.none),
      interrupted: Deferred.unsafeMake<void>(FiberId.none)
    }
    controls.set(key, c)
  }
  return c
}

let keys = 0
/** A fresh control key. */
export const freshKey = (): string => `k${++keys}-${Math.random().toString(36).slice(2)}`

export const release = (key: string): void => {
  Deferred.unsafeDone(control(key).gate, Effect.void)
}

/** Resolves when the deferred completes, rejects after `ms`. */
export const awaitDeferred = <A>(deferred: Deferred.Deferred<A>, ms = 5000, what = "deferred"): Promise<A> =>
  Effect.runPromise(
    Deferred.await(deferred).pipe(
      Effect.timeoutFail({ duration: ms, onTimeout: () => new Error(`timed out waiting for ${what}`) })
    )
  )

export const isDone = <A>(deferred: Deferred.Deferred<A>): boolean => Effect.runSync(Deferred.isDone(deferred))

/**
 * Progress `1..before`, then (optionally) `closeSseStream`, then waits for the gate (sending
 * progress every `tick` ms meanwhile when asked), then progress `before+1..before+after`,
 * then answers `done <key>`. Records start, completion and interruption.
 */
export const Controlled = Tool.make("controlled", {
  parameters: Schema.Struct({
    key: Schema.String,
    before: Schema.optionalWith(Schema.Number, { default: () => 1 }),
    after: Schema.optionalWith(Schema.Number, { default: () => 2 }),
    close: Schema.optionalWith(Schema.Boolean, { default: () => false }),
    tick: Schema.optional(Schema.Number)
  })
}, ({ after, before, close, key, tick }) => {
  const c = control(key)
  return Effect.gen(function*() {
    yield* Deferred.succeed(c.started, undefined)
    for (let i = 1; i <= before; i++) yield* McpRequest.progress(i)
    if (close) yield* Effect.flatMap(McpRequest.McpRequest, (request) => request.closeSseStream)
    if (tick === undefined) {
      yield* Deferred.await(c.gate)
    } else {
      yield* Effect.raceFirst(
        Deferred.await(c.gate),
        Effect.forever(Effect.zipRight(Effect.sleep(tick), McpRequest.progress(0, undefined, "tick")))
      )
    }
    for (let i = before + 1; i <= before + after; i++) yield* McpRequest.progress(i)
    yield* Deferred.succeed(c.done, undefined)
    return `done ${key}`
  }).pipe(Effect.onInterrupt(() => Deferred.succeed(c.interrupted, undefined)))
})

export const Quick = Tool.make("quick", { description: "answers at once" }, () => Effect.succeed("quick"))

/** Progress 1, 2, 3 of 3, then the answer. */
export const Progress = Tool.make("progress", {}, () =>
  Effect.gen(function*() {
    for (let i = 1; i <= 3; i++) yield* McpRequest.progress(i, 3, `step ${i}`)
    return "progressed"
  }))

/** Two logs, then the answer. */
export const Log = Tool.make("log", {}, () =>
  Effect.gen(function*() {
    yield* McpRequest.log("info", "first")
    yield* McpRequest.log("warning", "second")
    return "logged"
  }))

/** Asks the client to sample; answers with what it said. */
export const Sample = Tool.make(
  "sample",
  {
    parameters: Schema.Struct({ prompt: Schema.String }),
    failure: Schema.String
  },
  ({ prompt }) =>
    McpRequest.sample("s", { messages: [{ role: "user", content: { type: "text", text: prompt } }], maxTokens: 10 })
      .pipe(
        Effect.map((result) => `sampled: ${(result.content as any).text}`),
        Effect.mapError((error) => `sampling failed: ${error.message}`)
      )
)

export const Extra = Tool.make("extra", {}, () => Effect.succeed("extra"))

/** Arguments mirrored in headers (2026-07-28 `x-mcp-header`): a string, an integer, a boolean. */
export const Region = Tool.make("region", {
  parameters: Schema.Struct({
    region: Schema.String.annotations({ jsonSchema: { "x-mcp-header": "Region" } }),
    count: Schema.optional(Schema.Int.annotations({ jsonSchema: { type: "integer", "x-mcp-header": "Count" } })),
    dry: Schema.optional(Schema.Boolean.annotations({ jsonSchema: { "x-mcp-header": "Dry-Run" } }))
  })
}, ({ count, dry, region }) => Effect.succeed(`${region} ${count ?? "-"} ${dry ?? "-"}`))

export const Doc = Resource.make("test://doc", { name: "doc", mimeType: "text/plain" }, Effect.succeed("the doc"))

export const Greeting = Prompt.make("greeting", {
  description: "says hello",
  arguments: Schema.Struct({ name: Schema.String })
}, ({ name }) => Effect.succeed(`Hello, ${name}!`))

export const serverInfo = { name: "http-test", version: "1.0.0" }

// ---------------------------------------------------------------------------- the server

/**
 * Waits for a condition on something the harness watches, checked again at each change it
 * announces (`changed`): no polling, and a readable failure after `ms`.
 */
const watched = () => {
  const checks = new Set<() => void>()
  return {
    changed: (): void => {
      for (const check of [...checks]) check()
    },
    until: (holds: () => boolean, ms: number, what: string): Promise<void> =>
      new Promise((resolve, reject) => {
        if (holds()) return resolve()
        const done = () => {
          clearTimeout(timer)
          checks.delete(check)
        }
        const check = () => {
          if (!holds()) return
          done()
          resolve()
        }
        const timer = setTimeout(() => {
          done()
          reject(new Error(`timed out waiting for ${what}`))
        }, ms)
        checks.add(check)
      })
  }
}

export interface TrackedStore {
  readonly service: EventStore.Service
  /** The stream ids each session has appended events to. */
  readonly streams: Map<string, Set<string>>
  /** Every event the store still holds for a session, over the streams it ever had. */
  readonly held: (sessionId: string) => Promise<ReadonlyArray<EventStore.Event>>
}

/** An event store (`EventStore.makeMemory()` by default), watched: which streams each session wrote to. */
export const trackedStore = async (
  make: Effect.Effect<EventStore.Service> = EventStore.makeMemory()
): Promise<TrackedStore> => {
  const memory = await Effect.runPromise(make)
  const streams = new Map<string, Set<string>>()
  const service: EventStore.Service = {
    ...memory,
    append: (sessionId, event) =>
      Effect.zipRight(
        Effect.sync(() => {
          let set = streams.get(sessionId)
          if (set === undefined) streams.set(sessionId, set = new Set())
          set.add(EventStore.parseEventId(event.id)!.streamId)
        }),
        memory.append(sessionId, event)
      )
  }
  const held = async (sessionId: string) => {
    const out: Array<EventStore.Event> = []
    for (const stream of streams.get(sessionId) ?? []) {
      // A stream the store no longer knows (the session ended) holds nothing.
      const events = memory.after(sessionId, EventStore.eventId(stream, 0)).pipe(Effect.orElseSucceed(() => []))
      out.push(...await Effect.runPromise(events))
    }
    return out
  }
  return { service, streams, held }
}

/** A free TCP port on 127.0.0.1 (below the ephemeral range: `Services.freePort`). */
export const freePort = (): Promise<number> => Effect.runPromise(Services.freePort)

/** The two ways to serve the MCP endpoints over HTTP on Node. */
export const serverPaths = ["NodeMcpServer.layerHttp", "HttpLayerRouter.serve(HttpTransport.layer)"] as const

export type ServerPath = typeof serverPaths[number]

/** The server's options (`port` is the harness's: a free one). */
export type ServerOptions = Omit<NodeMcpServer.HttpOptions, "port">

/** How the harness runs the server. */
export interface HarnessOptions {
  /**
   * Run the server on a `TestClock` (time moves only with `Harness.adjust`): idle expiry, polling
   * and tool sleeps without waiting for real time. Sockets and `fetch` still run on real time.
   */
  readonly testClock?: boolean
  /** The server's task store (default: the server's own, in memory, swept every second). */
  readonly taskStore?: Layer.Layer<TaskStore.TaskStore>
  /** The event store to watch (default `EventStore.makeMemory()`). */
  readonly eventStore?: Effect.Effect<EventStore.Service>
  /** The revisions the server serves (default: the server's, every one). */
  readonly revisions?: McpServer.Options<never>["revisions"]
  /** The server's 2026-07-28 subscription limits (default: the server's). */
  readonly subscriptionLimits?: Pick<
    McpServer.Options<never>,
    | "maxSubscriptions"
    | "maxSubscriptionsPerClient"
    | "maxSubscriptionsPerHolder"
    | "maxSubscriptionUris"
    | "subscriptionMaxLength"
  >
  /** The port to listen on (default: a free one): for options that name the server's own URL. */
  readonly port?: number
}

/** A server response as the Node HTTP server saw it. */
export interface ServerResponse {
  readonly method: string
  readonly url: string
  /** Resolves when the response's connection closed: `finished` false when it closed before the response ended. */
  readonly closed: Promise<{ readonly finished: boolean }>
}

export interface Harness {
  readonly path: ServerPath
  readonly port: number
  readonly origin: string
  /** The MCP endpoint. */
  readonly url: string
  readonly server: McpServer.Service
  readonly store: TrackedStore
  readonly run: <A, E>(effect: Effect.Effect<A, E, McpServer.McpServer>) => Promise<A>
  /** Moves the server's `TestClock` (only with `testClock: true`). */
  readonly adjust: (duration: Duration.DurationInput) => Promise<void>
  /** Every request the Node server received, in order. */
  readonly responses: ReadonlyArray<ServerResponse>
  /** Resolves once `count` responses were closed by the client before they ended (the server saw the drop). */
  readonly dropped: (count?: number, ms?: number) => Promise<void>
  /** An AbortController whose fetches are aborted when the test ends. */
  readonly controller: () => AbortController
  readonly close: () => Promise<void>
}

/** The HTTP layer of a path. */
const httpLayer = (
  path: ServerPath,
  port: number,
  options: ServerOptions
): Layer.Layer<never, unknown, McpServer.McpServer> =>
  path === "NodeMcpServer.layerHttp"
    ? NodeMcpServer.layerHttp({ port, ...options })
    : HttpLayerRouter.serve(HttpTransport.layer(options), { disableLogger: true, disableListenLog: true }).pipe(
      Layer.provide(NodeHttpServer.layer(http.createServer, { port, host: options.host ?? "127.0.0.1" }))
    )

/** Starts a server on `path` with the test tools; stopped (and its fetches aborted) when the test ends. */
export const startServer = async (
  path: ServerPath,
  options: ServerOptions = {},
  harness: HarnessOptions = {}
): Promise<Harness> => {
  const port = harness.port ?? await freePort()
  const store = await trackedStore(harness.eventStore)
  const layer = httpLayer(path, port, options).pipe(
    Layer.provideMerge(
      McpServer.layer({
        serverInfo,
        ...(harness.revisions === undefined ? {} : { revisions: harness.revisions }),
        ...harness.subscriptionLimits,
        tools: [Controlled, Quick, Progress, Log, Sample, Region],
        resources: [Doc],
        prompts: [Greeting]
      })
    ),
    Layer.provide(Layer.succeed(EventStore.EventStore, store.service)),
    Layer.provide(harness.taskStore ?? Layer.empty)
  )
  // The Node server's view of each request (any path builds its own `http.Server`).
  const responses: Array<ServerResponse> = []
  let dropped = 0
  const drops = watched()
  const onRequest = (message: unknown) => {
    const { request, response, server } = message as {
      readonly request: http.IncomingMessage
      readonly response: http.ServerResponse
      readonly server: http.Server
    }
    if ((server.address() as net.AddressInfo | null)?.port !== port) return
    responses.push({
      method: request.method ?? "",
      url: request.url ?? "",
      closed: new Promise((resolve) =>
        response.once("close", () => {
          if (!response.writableFinished) dropped++
          drops.changed()
          resolve({ finished: response.writableFinished })
        })
      )
    })
  }
  diagnostics.subscribe("http.server.request.start", onRequest)
  const runtime = ManagedRuntime.make(
    harness.testClock === true ? layer.pipe(Layer.provide(TestContext.TestContext)) : layer
  )
  const server = await runtime.runPromise(McpServer.McpServer)
  const controllers: Array<AbortController> = []
  let closed = false
  const close = async () => {
    if (closed) return
    closed = true
    for (const c of controllers) c.abort()
    const t = Date.now()
    await runtime.dispose()
    diagnostics.unsubscribe("http.server.request.start", onRequest)
    if (process.env.DEBUG_HTTP) console.log("dispose took", Date.now() - t)
  }
  onTestFinished(close)
  const origin = `http://127.0.0.1:${port}`
  return {
    path,
    port,
    origin,
    url: `${origin}/mcp`,
    server,
    store,
    run: (effect) => runtime.runPromise(effect),
    adjust: (duration) =>
      harness.testClock === true
        ? runtime.runPromise(TestClock.adjust(duration))
        : Promise.reject(new Error("adjust needs start(…, { testClock: true })")),
    responses,
    dropped: (count = 1, ms = 20_000) => drops.until(() => dropped >= count, ms, `${count} dropped responses`),
    controller: () => {
      const c = new AbortController()
      controllers.push(c)
      return c
    },
    close
  }
}

/** `startServer` on one path. */
export type Start = (options?: ServerOptions, harness?: HarnessOptions) => Promise<Harness>

/**
 * Runs a suite once per server path: `body` gets the `start` of that path; every test's name
 * says the path (`<name> [<path>]`).
 */
export const describeServers = (name: string, body: (start: Start, path: ServerPath) => void): void => {
  for (const path of serverPaths) {
    describe(`${name} [${path}]`, () => body((options, harness) => startServer(path, options, harness), path))
  }
}

// ---------------------------------------------------------------------------- SSE

export interface SseEvent {
  readonly id?: string
  readonly event?: string
  /** The data lines joined; `undefined` when the event had no `data` field. */
  readonly data?: string
  readonly retry?: number
  /** The frame as sent. */
  readonly raw: string
}

/** `SseReader.next` found no frame in time. */
export class SseTimeout extends Error {}

/** Reads SSE frames (blocks up to a blank line) from a response body, as sent. */
export class SseReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>
  private readonly decoder = new TextDecoder()
  private buffer = ""
  private pending: Promise<ReadableStreamReadResult<Uint8Array>> | undefined
  private ended = false

  constructor(response: Response) {
    this.reader = response.body!.getReader()
  }

  private frame(): SseEvent | undefined {
    const match = /\r\n\r\n|\n\n|\r\r/.exec(this.buffer)
    if (match === null) return undefined
    const raw = this.buffer.slice(0, match.index)
    this.buffer = this.buffer.slice(match.index + match[0].length)
    const event: { id?: string; event?: string; data?: string; retry?: number; raw: string } = { raw }
    for (const line of raw.split(/\r\n|\n|\r/)) {
      if (line.startsWith(":")) continue
      const colon = line.indexOf(":")
      const field = colon < 0 ? line : line.slice(0, colon)
      let value = colon < 0 ? "" : line.slice(colon + 1)
      if (value.startsWith(" ")) value = value.slice(1)
      if (field === "id") event.id = value
      else if (field === "event") event.event = value
      else if (field === "data") event.data = event.data === undefined ? value : `${event.data}\n${value}`
      else if (field === "retry") event.retry = Number(value)
    }
    return event
  }

  /**
   * The next frame; `undefined` when the stream ended; rejects after `ms` (a guard on a frame that
   * never comes, not on how long one takes: 20 s, for a loaded machine).
   */
  async next(ms = 20_000): Promise<SseEvent | undefined> {
    const deadline = Date.now() + ms
    for (;;) {
      const frame = this.frame()
      if (frame !== undefined) return frame
      if (this.ended) return undefined
      if (this.pending === undefined) this.pending = this.reader.read()
      const left = deadline - Date.now()
      let timer: ReturnType<typeof setTimeout> | undefined
      const result = await Promise.race([
        this.pending,
        new Promise<"timeout">((resolve) => timer = setTimeout(() => resolve("timeout"), Math.max(0, left)))
      ]).finally(() => clearTimeout(timer))
      if (result === "timeout") throw new SseTimeout(`no SSE event within ${ms} ms`)
      this.pending = undefined
      if (result.done) this.ended = true
      else this.buffer += this.decoder.decode(result.value, { stream: true })
    }
  }

  /**
   * True when nothing arrives within `ms` (what does arrive later is kept); false when a frame
   * arrives or the stream ends; a read error is thrown. "Nothing within `ms`" also holds for what
   * is merely late: to show that something is never sent, prefer reading up to a later event
   * that must come after it.
   */
  async quiet(ms: number): Promise<boolean> {
    try {
      const frame = await this.next(ms)
      if (frame !== undefined) this.buffer = `${frame.raw}\n\n${this.buffer}`
      return frame === undefined ? !this.ended : false
    } catch (error) {
      if (error instanceof SseTimeout) return true
      throw error
    }
  }

  /** The next frame that carries a message (non-empty data), parsed. */
  async message(ms = 20_000): Promise<any> {
    for (;;) {
      const frame = await this.next(ms)
      if (frame === undefined) throw new Error("the SSE stream ended")
      if (frame.data !== undefined && frame.data !== "") return JSON.parse(frame.data)
    }
  }

  /** Every remaining frame, until the stream ends. */
  async rest(ms = 20_000): Promise<Array<SseEvent>> {
    const out: Array<SseEvent> = []
    for (;;) {
      const frame = await this.next(ms)
      if (frame === undefined) return out
      out.push(frame)
    }
  }

  async cancel(): Promise<void> {
    await this.reader.cancel().catch(() => undefined)
  }
}

export const messagesOf = (frames: ReadonlyArray<SseEvent>): Array<any> =>
  frames.filter((f) => f.data !== undefined && f.data !== "").map((f) => JSON.parse(f.data!))

// ---------------------------------------------------------------------------- a wire client

export const ACCEPT = "application/json, text/event-stream"

export interface ClientOptions {
  readonly version?: string
  readonly capabilities?: Record<string, unknown>
  /** Send `MCP-Protocol-Version` on requests after initialize (default true). */
  readonly versionHeader?: boolean
}

/** One session, spoken at the wire. */
export class WireClient {
  sessionId: string | undefined
  version: string
  initializeResult: any
  private nextId = 1

  constructor(readonly h: Harness, readonly options: ClientOptions = {}) {
    this.version = options.version ?? "2025-11-25"
  }

  id(): string | number {
    return this.nextId++
  }

  headers(extra: Record<string, string> = {}): Record<string, string> {
    const out: Record<string, string> = { accept: ACCEPT, "content-type": "application/json" }
    if (this.sessionId !== undefined) out["mcp-session-id"] = this.sessionId
    if (this.sessionId !== undefined && this.options.versionHeader !== false) out["mcp-protocol-version"] = this.version
    return { ...out, ...extra }
  }

  post(body: unknown, init: { headers?: Record<string, string>; signal?: AbortSignal } = {}): Promise<Response> {
    return fetch(this.h.url, {
      method: "POST",
      headers: this.headers(init.headers),
      body: typeof body === "string" ? body : JSON.stringify(body),
      signal: init.signal ?? this.h.controller().signal
    })
  }

  get(init: { headers?: Record<string, string>; signal?: AbortSignal } = {}): Promise<Response> {
    const headers = this.headers({ accept: "text/event-stream", ...init.headers })
    delete headers["content-type"]
    return fetch(this.h.url, { method: "GET", headers, signal: init.signal ?? this.h.controller().signal })
  }

  delete(): Promise<Response> {
    const headers = this.headers()
    delete headers["content-type"]
    return fetch(this.h.url, { method: "DELETE", headers, signal: this.h.controller().signal })
  }

  /** initialize (+ notifications/initialized): the session id is kept. */
  async initialize(): Promise<Response> {
    const res = await this.post({
      jsonrpc: "2.0",
      id: this.id(),
      method: "initialize",
      params: {
        protocolVersion: this.version,
        capabilities: this.options.capabilities ?? {},
        clientInfo: { name: "wire-test", version: "0.0.1" }
      }
    })
    if (res.status !== 200) throw new Error(`initialize: HTTP ${res.status} ${await res.text()}`)
    this.sessionId = res.headers.get("mcp-session-id") ?? undefined
    const body = await res.clone().json()
    this.initializeResult = body.result
    const initialized = await this.notify("notifications/initialized")
    if (initialized.status !== 202) throw new Error(`notifications/initialized: HTTP ${initialized.status}`)
    return res
  }

  notify(method: string, params?: unknown): Promise<Response> {
    return this.post({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) })
  }

  /** POSTs a request; the raw response. */
  send(method: string, params?: unknown, id: string | number = this.id(), signal?: AbortSignal): Promise<Response> {
    return this.post(
      { jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) },
      signal === undefined ? {} : { signal }
    )
  }

  /** POSTs a request; every message of the answer (JSON or SSE), in order. */
  async call(
    method: string,
    params?: unknown
  ): Promise<{ readonly response: Response; readonly messages: Array<any> }> {
    const response = await this.send(method, params)
    return { response, messages: await readAll(response) }
  }

  /** POSTs a request that must succeed; its result. */
  async result(method: string, params?: unknown): Promise<any> {
    const { messages, response } = await this.call(method, params)
    const last = messages[messages.length - 1]
    if (response.status !== 200 || last?.result === undefined) {
      throw new Error(`${method}: HTTP ${response.status} ${JSON.stringify(messages)}`)
    }
    return last.result
  }

  callTool(
    name: string,
    args: Record<string, unknown> = {},
    progressToken?: string | number,
    id: string | number = this.id()
  ) {
    return this.send("tools/call", {
      name,
      arguments: args,
      ...(progressToken === undefined ? {} : { _meta: { progressToken } })
    }, id)
  }
}

/** Every message of a response: the JSON body, or the SSE frames' data until the stream ends. */
export const readAll = async (response: Response): Promise<Array<any>> => {
  const type = response.headers.get("content-type") ?? ""
  if (type.startsWith("text/event-stream")) return messagesOf(await new SseReader(response).rest())
  const text = await response.text()
  if (text === "") return []
  const body = JSON.parse(text)
  return Array.isArray(body) ? body : [body]
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Polls `check` every `every` ms until it returns true, for at most `ms` (a guard on what never
 * comes: 20 s, for a loaded machine). For what the harness cannot watch (a server's state, a store).
 */
export const eventually = async (check: () => Promise<boolean> | boolean, ms = 20_000, every = 25): Promise<void> => {
  const deadline = Date.now() + ms
  for (;;) {
    if (await check()) return
    if (Date.now() > deadline) throw new Error("condition not met in time")
    await sleep(every)
  }
}

/** A request with `node:http`, which (unlike fetch) may set `Host`. */
export const rawRequest = (options: {
  readonly port: number
  readonly method: string
  readonly path: string
  readonly headers: Record<string, string>
  readonly body?: string
}): Promise<{ readonly status: number; readonly headers: http.IncomingHttpHeaders; readonly body: string }> =>
  new Promise((resolve, reject) => {
    const request = http.request({
      host: "127.0.0.1",
      port: options.port,
      method: options.method,
      path: options.path,
      headers: options.headers,
      agent: false
    }, (response) => {
      let body = ""
      response.setEncoding("utf8")
      response.on("data", (chunk: string) => {
        body += chunk
      })
      response.on("end", () => resolve({ status: response.statusCode!, headers: response.headers, body }))
    })
    request.on("error", reject)
    if (options.body !== undefined) request.write(options.body)
    request.end()
  })
