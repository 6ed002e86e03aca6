/**
 * What the runtime tests (Bun, Deno, workerd) drive the demo with, the same on each: our client and
 * the official SDK client (list, call, a multi-round trip), and raw POSTs of bad input.
 */
import { McpClient, McpClientTransport } from "@effect-mcp/client"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { Client, StreamableHTTPClientTransport, type Transport } from "@modelcontextprotocol/client"
import { createTaskSessionFromClient, resultFromTaskOutcome } from "@modelcontextprotocol/ext-tasks/client"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type { ChildProcess } from "node:child_process"
import { expect } from "vitest"

/** A runtime serving the demo: its URL, its process and what it wrote on stderr. */
export interface Running {
  readonly url: string
  readonly child: ChildProcess
  readonly stderr: () => string
}

/** Stops a runtime (SIGTERM) and waits for its exit. */
export const stop = (running: Running | undefined) =>
  new Promise<void>((resolve) => {
    // Over already (exited, or killed by a signal: its "exit" has fired).
    if (running === undefined || running.child.exitCode !== null || running.child.signalCode !== null) return resolve()
    running.child.once("exit", () => resolve())
    running.child.kill("SIGTERM")
  })

/** What the clients answer the demo's elicitation with. */
export const elicited = { username: "ada", email: "ada@example.com" }

/** The demo's `test_simple_text` content. */
export const simpleText = [{ type: "text", text: "This is a simple text response for testing." }]

/** Our client over `transport` in `era`: list, call, a multi-round trip. */
export const oursOver = (
  transport: Layer.Layer<McpClientTransport.McpClientTransport, unknown>,
  options: { readonly era: "stateless" | "handshake"; readonly name: string }
) => {
  const runtime = ManagedRuntime.make(
    McpClient.layer({
      clientInfo: { name: options.name, version: "1.0.0" },
      era: options.era,
      handlers: { elicitation: () => Effect.succeed({ action: "accept" as const, content: elicited }) }
    }).pipe(Layer.provide(transport))
  )
  return runtime.runPromise(Effect.gen(function*() {
    const client = yield* McpClient.McpClient
    const tools = (yield* client.listTools).map((tool) => tool.name)
    const simple = yield* client.callTool("test_simple_text")
    const asked = yield* client.callTool("test_elicitation", { message: "Who are you?" })
    return { era: client.era, revision: client.revision, tools, simple: simple.content, asked: asked.content }
  })).finally(() => runtime.dispose())
}

/**
 * Our client of `url` in `era` (`fetch`: the one it sends with, when not the global one): list,
 * call, a multi-round trip.
 */
export const ours = (
  url: string,
  options: {
    readonly era: "stateless" | "handshake"
    readonly name: string
    readonly fetch?: typeof globalThis.fetch
  }
) => {
  const http = McpClientTransport.layerHttp({ url }).pipe(Layer.provide(FetchHttpClient.layer))
  return oursOver(
    options.fetch === undefined
      ? http
      : http.pipe(Layer.provide(Layer.succeed(FetchHttpClient.Fetch, options.fetch))),
    options
  )
}

/** Our client of `url`, 2026-07-28, for `use` (`fetch`: the one it sends with, when not the global one). */
const statelessClient = <A>(
  url: string,
  options: { readonly name: string; readonly fetch?: typeof globalThis.fetch | undefined },
  use: (client: McpClient.Service) => Effect.Effect<A, unknown>
): Promise<A> => {
  const client = McpClient.layer({ clientInfo: { name: options.name, version: "1.0.0" }, era: "stateless" }).pipe(
    Layer.provide(McpClientTransport.layerHttp({ url })),
    Layer.provide(FetchHttpClient.layer)
  )
  const runtime = ManagedRuntime.make(
    options.fetch === undefined
      ? client
      : client.pipe(Layer.provide(Layer.succeed(FetchHttpClient.Fetch, options.fetch)))
  )
  return runtime.runPromise(Effect.flatMap(McpClient.McpClient, use)).finally(() => runtime.dispose())
}

/**
 * Our client of `url`, 2026-07-28: a listen (`subscriptions/listen` for `toolsListChanged`) that
 * hears the `notifications/tools/list_changed` another request triggers (`test_trigger_tool_change`,
 * run twice: the demo's tools are as they were), then cancelled (its scope closed).
 */
export const oursListen = (url: string, options: { readonly name: string; readonly fetch?: typeof globalThis.fetch }) =>
  statelessClient(url, options, (client) =>
    Effect.scoped(Effect.gen(function*() {
      const subscription = yield* client.subscribe({ toolsListChanged: true })
      const first = yield* Effect.fork(Stream.runHead(subscription.notifications))
      yield* client.callTool("test_trigger_tool_change")
      const notification = yield* Fiber.join(first)
      yield* client.callTool("test_trigger_tool_change")
      return {
        acknowledged: subscription.acknowledged,
        method: Option.getOrUndefined(Option.map(notification, (n) => n.method))
      }
    })))

/**
 * Our client of `url`, 2026-07-28: a task (`slow_compute` for 0.2 s, task-augmented), then its end:
 * `follow` its status as the client does (heard on a listen for the task), or `poll` it with
 * `tasks/get` at the interval it asks for, up to its result.
 */
export const oursTask = (
  url: string,
  options: { readonly name: string; readonly follow: "status" | "poll"; readonly fetch?: typeof globalThis.fetch }
) =>
  statelessClient(url, options, (client) =>
    Effect.gen(function*() {
      const task = yield* client.callTool("slow_compute", { seconds: 0.2, label: "runtime" }, { task: true })
      if (Option.isNone(task.taskId)) return { taskId: undefined, statuses: [], content: undefined }
      const taskId = task.taskId.value
      if (options.follow === "status") {
        const statuses = yield* Stream.runCollect(task.status)
        const result = yield* task.result
        return { taskId, statuses: Array.from(statuses, (status) => status.status), content: result.content }
      }
      const interval = Option.getOrElse(Option.flatMapNullable(task.created, (info) => info.pollIntervalMs), () => 100)
      const statuses: Array<string> = []
      const poll: Effect.Effect<McpClient.TaskInfo, unknown> = Effect.flatMap(client.tasks.get(taskId), (info) => {
        statuses.push(info.status)
        return info.status === "working" || info.status === "input_required"
          ? Effect.zipRight(Effect.sleep(`${interval} millis`), poll)
          : Effect.succeed(info)
      })
      const polled = yield* Effect.timeout(poll, "20 seconds")
      return { taskId, statuses, content: polled.result?.content }
    }))

/** The official SDK client of `url` (2026-07-28): list, call, a multi-round trip. */
export const official = (url: string, name: string) =>
  officialOver(new StreamableHTTPClientTransport(new URL(url)), { name, era: "stateless" })

/**
 * The official SDK client over `transport` in `era` (2026-07-28 pinned, or the handshake era:
 * its `legacy` mode): list, call, a multi-round trip.
 */
export const officialOver = async (
  transport: Transport,
  options: { readonly name: string; readonly era: "stateless" | "handshake" }
) => {
  const client = new Client({ name: options.name, version: "1.0.0" }, {
    capabilities: { elicitation: { form: {} } },
    versionNegotiation: { mode: options.era === "handshake" ? "legacy" : { pin: "2026-07-28" } }
  })
  client.setRequestHandler("elicitation/create", async () => ({ action: "accept" as const, content: elicited }))
  await client.connect(transport)
  try {
    const tools = (await client.listTools()).tools.map((tool) => tool.name)
    const simple = await client.callTool({ name: "test_simple_text", arguments: {} })
    const asked = await client.callTool({ name: "test_elicitation", arguments: { message: "Who are you?" } })
    return {
      revision: client.getNegotiatedProtocolVersion(),
      tools,
      simple: simple.content,
      asked: asked.content
    }
  } finally {
    await client.close()
  }
}

/**
 * The official SDK client of `url` (2026-07-28): a listen that hears the
 * `notifications/tools/list_changed` another request triggers (run twice, as in
 * {@link oursListen}), then closed by the client (`McpSubscription.close`).
 */
export const officialListen = async (url: string, name: string) => {
  const client = new Client({ name, version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } })
  await client.connect(new StreamableHTTPClientTransport(new URL(url)))
  try {
    const heard = new Promise<string>((resolve) =>
      client.setNotificationHandler("notifications/tools/list_changed", (notification) => resolve(notification.method))
    )
    const subscription = await client.listen({ toolsListChanged: true })
    await client.callTool({ name: "test_trigger_tool_change", arguments: {} })
    const method = await heard
    await client.callTool({ name: "test_trigger_tool_change", arguments: {} })
    await subscription.close()
    return { honored: subscription.honoredFilter, method, closed: await subscription.closed }
  } finally {
    await client.close()
  }
}

/**
 * The official SDK client of `url` (2026-07-28) with the official tasks client
 * (`@modelcontextprotocol/ext-tasks`): a task-augmented call of `slow_compute`, settled (ext-tasks
 * polls `tasks/get`). The SDK client itself has no 2026-07-28 tasks (a `tasks/get` toward a
 * 2026-07-28 peer is refused locally, a `resultType: "task"` is an unsupported result type), so
 * ext-tasks sends its task requests through a dispatcher of the host's: here raw POSTs.
 */
export const officialTask = async (url: string, name: string) => {
  const client = new Client({ name, version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } })
  await client.connect(new StreamableHTTPClientTransport(new URL(url)))
  const ids = { next: 1 }
  // What ext-tasks hands over is a request's method and params: the JSON-RPC envelope is ours.
  const rawDispatch = async (given: any, options?: { readonly signal?: AbortSignal }) => {
    const request = { jsonrpc: "2.0", id: `ext-tasks-${ids.next++}`, ...given }
    const params = request.params ?? {}
    const named = request.method === "tools/call" ? params.name : params.taskId
    const response = await fetch(url, {
      method: "POST",
      headers: {
        accept: "application/json, text/event-stream",
        "content-type": "application/json",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": request.method,
        ...(typeof named === "string" ? { "mcp-name": named } : {})
      },
      body: JSON.stringify(request),
      ...(options?.signal === undefined ? {} : { signal: options.signal })
    })
    const message = response.headers.get("content-type")?.startsWith("text/event-stream")
      ? (await response.text()).split("\n").filter((line) => line.startsWith("data:"))
        .map((line) => JSON.parse(line.slice(5))).find((message) => message.id === request.id)
      : await response.json()
    return "error" in message
      ? { kind: "error" as const, error: message.error }
      : { kind: "result" as const, result: message.result }
  }
  const session = createTaskSessionFromClient(client, {
    endpointId: `official-${name}`,
    rawDispatch,
    v2RequestFraming: { protocolVersion: "2026-07-28", clientInfo: { name, version: "1.0.0" }, clientCapabilities: {} }
  })
  try {
    const execution = await session.callTool("slow_compute", { seconds: 0.2, label: "runtime" })
    const { outcome } = await execution.settle()
    return { kind: execution.kind, taskId: execution.handle?.taskId, result: resultFromTaskOutcome(outcome) as any }
  } finally {
    await session.close()
    await client.close()
  }
}

/** A raw 2026-07-28 POST to `url` (headers over the defaults; a body that may be a stream). */
export const post = (url: string, headers: Record<string, string>, body: BodyInit) =>
  fetch(url, {
    method: "POST",
    headers: {
      accept: "application/json, text/event-stream",
      "content-type": "application/json",
      "mcp-protocol-version": "2026-07-28",
      ...headers
    },
    body,
    duplex: "half"
  } as RequestInit)

/** A response's status and JSON body. */
export const answer = async (response: Response) => ({ status: response.status, body: await response.json() })

/** Bad JSON, wrong headers and a foreign Origin, answered as on Node. */
export const badHeadersAndJson = async (url: string) => {
  expect(await answer(await post(url, {}, "{\"jsonrpc\":\"2.0\",\"id\":1,"))).toMatchObject({
    status: 400,
    body: { jsonrpc: "2.0", id: null, error: { code: -32700 } }
  })
  expect(await answer(await post(url, { accept: "text/html" }, "{}"))).toMatchObject({ status: 406 })
  expect(await answer(await post(url, { "content-type": "text/plain" }, "{}"))).toMatchObject({ status: 415 })
  expect(await answer(await post(url, { origin: "https://evil.example" }, "{}"))).toMatchObject({
    status: 403,
    body: { error: { message: "Forbidden: Origin not allowed" } }
  })
}

/** 5 MiB in pieces, no length said: refused once 4 MiB (the default limit) have come. */
export const bodyOverTheLimit = async (url: string) => {
  const piece = new Uint8Array(64 * 1024).fill(0x20)
  let sent = 0
  const body = new ReadableStream<Uint8Array>({
    pull: (controller) => {
      if (sent >= 5 * 1024 * 1024) return controller.close()
      sent += piece.length
      controller.enqueue(piece)
    }
  })
  expect(await answer(await post(url, {}, body))).toMatchObject({
    status: 413,
    body: { jsonrpc: "2.0", id: null, error: { code: -32000, message: "Payload Too Large" } }
  })
}

/** The `_meta` of a raw 2026-07-28 request. */
const meta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "runtimes-test", version: "1.0.0" }
}

/** A raw `subscriptions/listen` (tools list changes): its response, unread. */
const listen = (url: string, id: number) =>
  post(
    url,
    { "mcp-method": "subscriptions/listen" },
    JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "subscriptions/listen",
      params: { notifications: { toolsListChanged: true }, _meta: meta }
    })
  )

/** A listen held open: its response's stream, read up to the acknowledgement (none: it was refused). */
const held = async (url: string, id: number) => {
  const response = await listen(url, id)
  if (response.status !== 200) return { status: response.status, body: await response.json() }
  expect(response.headers.get("content-type")).toBe("text/event-stream")
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  let text = ""
  while (!text.includes("notifications/subscriptions/acknowledged")) {
    const next = await reader.read()
    if (next.done) throw new Error(`the listen ended before its acknowledgement: ${text}`)
    text += next.value
  }
  return { status: 200, reader }
}

/**
 * A listen held open once there is room for it: asked again while the demo refuses it for its cap
 * (503, -32000), until it is served (at most 10 seconds: a listen ends when the runtime tells the
 * server its response was cancelled).
 */
const heldWhenRoom = async (url: string, id: number) => {
  const deadline = Date.now() + 10_000
  let refusals = 0
  let listen = await held(url, id)
  while (listen.status !== 200 && Date.now() < deadline) {
    refusals++
    expect(listen).toMatchObject({ status: 503, body: { error: { code: -32000 } } })
    await new Promise((resolve) => setTimeout(resolve, 20))
    listen = await held(url, id)
  }
  expect(listen.status).toBe(200)
  return { reader: listen.reader!, refusals }
}

/**
 * A response cancelled mid-stream ends its request on the server, seen at the wire: the demo holds
 * at most `cap` listens (`MCP_MAX_LISTENS`). `cap` are held open (each acknowledged), one more is
 * refused (503, -32000); then the first one's stream is cancelled by the client (after its
 * acknowledgement: mid-stream), and a listen is served again while the others stay open: the
 * cancelled one ended.
 */
export const cancelledListen = async (url: string, cap: number) => {
  const open = []
  for (let i = 0; i < cap; i++) open.push(await heldWhenRoom(url, 100 + i))
  expect(await held(url, 200)).toMatchObject({ status: 503, body: { id: 200, error: { code: -32000 } } })
  await open[0].reader.cancel()
  const again = await heldWhenRoom(url, 300)
  await Promise.all([...open.slice(1), again].map((listen) => listen.reader.cancel()))
  return { refusals: again.refusals }
}
