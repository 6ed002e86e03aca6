/**
 * What the runtime tests (Bun, Deno, workerd) drive the demo with, the same on each: our client and
 * the official SDK client (list, call, a multi-round trip), and raw POSTs of bad input.
 */
import { McpClient, McpClientTransport } from "@effect-mcp/client"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
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
    if (running === undefined || running.child.exitCode !== null) return resolve()
    running.child.once("exit", () => resolve())
    running.child.kill("SIGTERM")
  })

/** What the clients answer the demo's elicitation with. */
export const elicited = { username: "ada", email: "ada@example.com" }

/** The demo's `test_simple_text` content. */
export const simpleText = [{ type: "text", text: "This is a simple text response for testing." }]

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
  const client = McpClient.layer({
    clientInfo: { name: options.name, version: "1.0.0" },
    era: options.era,
    handlers: { elicitation: () => Effect.succeed({ action: "accept" as const, content: elicited }) }
  }).pipe(Layer.provide(McpClientTransport.layerHttp({ url })), Layer.provide(FetchHttpClient.layer))
  const runtime = ManagedRuntime.make(
    options.fetch === undefined
      ? client
      : client.pipe(Layer.provide(Layer.succeed(FetchHttpClient.Fetch, options.fetch)))
  )
  return runtime.runPromise(Effect.gen(function*() {
    const client = yield* McpClient.McpClient
    const tools = (yield* client.listTools).map((tool) => tool.name)
    const simple = yield* client.callTool("test_simple_text")
    const asked = yield* client.callTool("test_elicitation", { message: "Who are you?" })
    return { era: client.era, tools, simple: simple.content, asked: asked.content }
  })).finally(() => runtime.dispose())
}

/** The official SDK client of `url` (2026-07-28): list, call, a multi-round trip. */
export const official = async (url: string, name: string) => {
  const client = new Client({ name, version: "1.0.0" }, {
    capabilities: { elicitation: { form: {} } },
    versionNegotiation: { mode: { pin: "2026-07-28" } }
  })
  client.setRequestHandler("elicitation/create", async () => ({ action: "accept" as const, content: elicited }))
  await client.connect(new StreamableHTTPClientTransport(new URL(url)))
  try {
    const tools = (await client.listTools()).tools.map((tool) => tool.name)
    const simple = await client.callTool({ name: "test_simple_text", arguments: {} })
    const asked = await client.callTool({ name: "test_elicitation", arguments: { message: "Who are you?" } })
    return { tools, simple: simple.content, asked: asked.content }
  } finally {
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
