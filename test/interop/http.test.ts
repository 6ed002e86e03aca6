/**
 * Interop over HTTP: the official TypeScript SDK client (`@modelcontextprotocol/client` 2.4.0)
 * against our server on 127.0.0.1 (`NodeMcpServer.layerHttp`): Streamable HTTP
 * (`StreamableHTTPClientTransport`, 2025-11-25) and legacy HTTP+SSE (`SSEClientTransport`,
 * pinned to 2024-11-05).
 */
import { NodeMcpServer } from "@effect-mcp/platform-node"
import { McpRequest, McpServer, Prompt, Resource, Tool } from "@effect-mcp/server"
import { Services } from "@effect-mcp/test-support"
import { Client, SSEClientTransport, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import { afterAll, assert, beforeAll, describe, it } from "vitest"

const Add = Tool.make("add", {
  description: "Adds two numbers",
  parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
  success: Schema.Struct({ sum: Schema.Number })
}, ({ a, b }) => Effect.succeed({ sum: a + b }))

/** The progress each `steps` call's client handler saw, by the call's key. */
const seen = new Map<string, Queue.Queue<number>>()
const seenBy = (key: string): Queue.Queue<number> => {
  let queue = seen.get(key)
  if (queue === undefined) seen.set(key, queue = Effect.runSync(Queue.unbounded<number>()))
  return queue
}

const Steps = Tool.make("steps", {
  description: "Three progress steps, each once the client saw the one before, then done",
  parameters: Schema.Struct({ key: Schema.String })
}, ({ key }) =>
  Effect.gen(function*() {
    for (let i = 1; i <= 3; i++) {
      yield* McpRequest.progress(i, 3, `step ${i}`)
      // Not a pause: the next step waits until the client's handler saw this one (a defect after 5 s).
      yield* Queue.take(seenBy(key)).pipe(Effect.timeout("5 seconds"), Effect.orDie)
    }
    return "steps done"
  }))

const Sample = Tool.make(
  "sample",
  {
    description: "Asks the client's LLM",
    parameters: Schema.Struct({ prompt: Schema.String }),
    failure: Schema.String
  },
  ({ prompt }) =>
    McpRequest.sample("s", { messages: [{ role: "user", content: { type: "text", text: prompt } }], maxTokens: 20 })
      .pipe(
        Effect.map((result) => `LLM said: ${(result.content as { text: string }).text}`),
        Effect.mapError((error) => error.message)
      )
)

const Doc = Resource.make("test://doc", { name: "doc", mimeType: "text/plain" }, Effect.succeed("the doc"))

const Greeting = Prompt.make("greeting", {
  description: "Says hello",
  arguments: Schema.Struct({ name: Schema.String })
}, ({ name }) => Effect.succeed(`Hello, ${name}!`))

const freePort = (): Promise<number> => Effect.runPromise(Services.freePort)

let runtime: ManagedRuntime.ManagedRuntime<McpServer.McpServer, unknown>
let origin: string

beforeAll(async () => {
  const port = await freePort()
  origin = `http://127.0.0.1:${port}`
  runtime = ManagedRuntime.make(
    NodeMcpServer.layerHttp({ port }).pipe(
      Layer.provideMerge(McpServer.layer({
        serverInfo: { name: "effect-mcp-http-interop", version: "1.0.0" },
        tools: [Add, Steps, Sample],
        resources: [Doc],
        prompts: [Greeting]
      }))
    )
  )
  await runtime.runPromise(McpServer.McpServer)
})

afterAll(async () => {
  await runtime?.dispose()
})

/** A fetch that records each request's method, URL, status and response type. */
const recording = () => {
  const log: Array<{ method: string; url: string; status: number; type: string | null; session: string | null }> = []
  const recordingFetch = async (input: string | URL | Request, init?: RequestInit) => {
    const response = await fetch(input, init)
    log.push({
      method: init?.method ?? "GET",
      url: String(input),
      status: response.status,
      type: response.headers.get("content-type"),
      session: new Headers(init?.headers).get("mcp-session-id")
    })
    return response
  }
  return { log, fetch: recordingFetch }
}

const newClient = (options: { readonly supportedProtocolVersions?: Array<string> } = {}) => {
  const client = new Client({ name: "official-http-client", version: "1.0.0" }, {
    capabilities: { sampling: {} },
    ...options
  })
  client.setRequestHandler("sampling/createMessage", async (request) => ({
    model: "test-model",
    role: "assistant" as const,
    content: { type: "text" as const, text: `echo ${(request.params.messages[0].content as { text: string }).text}` }
  }))
  return client
}

/** listTools, callTool with progress, readResource, getPrompt, sampling: the same on both transports. */
const exercise = async (client: Client, structured: boolean) => {
  const tools = await client.listTools()
  assert.deepStrictEqual(tools.tools.map((t) => t.name).sort(), ["add", "sample", "steps"])

  const sum = await client.callTool({ name: "add", arguments: { a: 2, b: 3 } })
  // structuredContent exists from 2025-06-18 on; the text carries the value in every revision.
  assert.deepStrictEqual(sum.structuredContent, structured ? { sum: 5 } : undefined)
  assert.deepStrictEqual(JSON.parse((sum.content as Array<{ text: string }>)[0].text), { sum: 5 })

  const progress: Array<{ progress: number; total?: number }> = []
  const key = Math.random().toString(36).slice(2)
  const steps = await client.callTool({ name: "steps", arguments: { key } }, {
    onprogress: (p) => {
      progress.push({ progress: p.progress, ...(p.total === undefined ? {} : { total: p.total }) })
      Queue.unsafeOffer(seenBy(key), p.progress)
    }
  })
  assert.deepStrictEqual(steps.content, [{ type: "text", text: "steps done" }])
  assert.deepStrictEqual(progress, [{ progress: 1, total: 3 }, { progress: 2, total: 3 }, { progress: 3, total: 3 }])

  const doc = await client.readResource({ uri: "test://doc" })
  assert.deepStrictEqual(doc.contents, [{ uri: "test://doc", mimeType: "text/plain", text: "the doc" }])

  const prompt = await client.getPrompt({ name: "greeting", arguments: { name: "Ada" } })
  assert.deepStrictEqual(prompt.messages, [{ role: "user", content: { type: "text", text: "Hello, Ada!" } }])

  const sampled = await client.callTool({ name: "sample", arguments: { prompt: "ping" } })
  assert.notStrictEqual(sampled.isError, true)
  assert.deepStrictEqual(sampled.content, [{ type: "text", text: "LLM said: echo ping" }])
}

describe("official client over HTTP", () => {
  it("Streamable HTTP: every feature, then terminateSession() ends the session", async () => {
    const { fetch: recordingFetch, log } = recording()
    const transport = new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { fetch: recordingFetch })
    const client = newClient()
    try {
      await client.connect(transport)
      assert.strictEqual(transport.protocolVersion, "2025-11-25")
      assert.strictEqual(client.getNegotiatedProtocolVersion(), "2025-11-25")
      assert.strictEqual(client.getServerVersion()?.name, "effect-mcp-http-interop")
      const sessionId = transport.sessionId
      assert.isString(sessionId)
      await exercise(client, true)

      // Progress and the sampling request came on SSE responses; the client's answer got 202.
      const posts = log.filter((r) => r.method === "POST")
      assert.isTrue(posts.some((r) => r.status === 200 && r.type?.startsWith("text/event-stream") === true))
      assert.isTrue(posts.some((r) => r.status === 202))
      assert.isTrue(posts.every((r) => r.status === 200 || r.status === 202))

      await transport.terminateSession()
      assert.strictEqual(transport.sessionId, undefined)
      const after = await fetch(`${origin}/mcp`, {
        method: "POST",
        headers: {
          accept: "application/json, text/event-stream",
          "content-type": "application/json",
          "mcp-session-id": sessionId!,
          "mcp-protocol-version": "2025-11-25"
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" })
      })
      assert.strictEqual(after.status, 404)
    } finally {
      await client.close()
    }
  })

  it("legacy HTTP+SSE pinned to 2024-11-05: every feature; closing ends the session", async () => {
    const { fetch: recordingFetch, log } = recording()
    const transport = new SSEClientTransport(new URL(`${origin}/sse`), { fetch: recordingFetch })
    const client = newClient({ supportedProtocolVersions: ["2024-11-05"] })
    let endpoint: string | undefined
    try {
      await client.connect(transport)
      assert.strictEqual(client.getNegotiatedProtocolVersion(), "2024-11-05")
      await exercise(client, false)
      const posts = log.filter((r) => r.method === "POST")
      assert.isAbove(posts.length, 5)
      assert.isTrue(posts.every((r) => r.status === 202))
      endpoint = posts[0].url
      assert.match(endpoint, /\/messages\?sessionId=/)
    } finally {
      await client.close()
    }
    const ping = () =>
      fetch(endpoint!, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" })
      })
    // Polled: the session's end is not announced; 30 s only bound an end that never comes.
    const deadline = Date.now() + 30_000
    let status = (await ping()).status
    while (status !== 404 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 25))
      status = (await ping()).status
    }
    assert.strictEqual(status, 404)
  })
})
