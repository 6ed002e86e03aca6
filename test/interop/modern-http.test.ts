/**
 * Interop in the modern era: the official TypeScript SDK client (`@modelcontextprotocol/client`
 * 2.4.0, `versionNegotiation` pinned to 2026-07-28 and `auto`) against our dual-era server over
 * Streamable HTTP (`NodeMcpServer.layerHttp`): discovery, the per-request `_meta` envelope and
 * headers, progress on the request's own stream, multi-round trips fulfilled by the client's
 * handlers, `x-mcp-header` mirroring; and a 2025-11-25 client on the same endpoint.
 */
import { Revision } from "@effect-mcp/core"
import { NodeMcpServer } from "@effect-mcp/platform-node"
import { McpRequest, McpServer, Prompt, Resource, Tool } from "@effect-mcp/server"
import { Services } from "@effect-mcp/test-support"
import { Client, StreamableHTTPClientTransport, type VersionNegotiationMode } from "@modelcontextprotocol/client"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Schema from "effect/Schema"
import { afterAll, assert, beforeAll, describe, it } from "vitest"

const Add = Tool.make("add", {
  description: "Adds two numbers",
  parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
  success: Schema.Struct({ sum: Schema.Number })
}, ({ a, b }) => Effect.succeed({ sum: a + b }))

const Steps = Tool.make("steps", { description: "Three progress steps" }, () =>
  Effect.gen(function*() {
    for (let i = 1; i <= 3; i++) yield* McpRequest.progress(i, 3, `step ${i}`)
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

/** Two rounds: a name, then a confirmation; the first answer rides in the sealed state. */
const Register = Tool.make(
  "register",
  { description: "Asks twice", failure: Schema.String },
  () =>
    Effect.gen(function*() {
      const form = (message: string, field: string) => ({
        message,
        requestedSchema: { type: "object" as const, properties: { [field]: { type: "string" as const } } }
      })
      const name = yield* McpRequest.elicit("name", form("Your name?", "name"))
      const sure = yield* McpRequest.elicit("sure", form(`Register ${name.content?.name}?`, "answer"))
      return `registered ${name.content?.name}: ${sure.content?.answer}`
    }).pipe(Effect.mapError((error) => error.message))
)

const Region = Tool.make("region", {
  description: "Its region argument is mirrored in Mcp-Param-Region",
  parameters: Schema.Struct({ region: Schema.String.annotations({ jsonSchema: { "x-mcp-header": "Region" } }) })
}, ({ region }) => Effect.succeed(`in ${region}`))

const Doc = Resource.make("test://doc", { name: "doc", mimeType: "text/plain" }, Effect.succeed("the doc"))

const Greeting = Prompt.make("greeting", {
  description: "Says hello",
  arguments: Schema.Struct({ name: Schema.String })
}, ({ name }) => Effect.succeed(`Hello, ${name}!`))

const freePort = (): Promise<number> => Effect.runPromise(Services.freePort)

let runtime: ManagedRuntime.ManagedRuntime<McpServer.McpServer, unknown>
let url: URL

beforeAll(async () => {
  const port = await freePort()
  url = new URL(`http://127.0.0.1:${port}/mcp`)
  runtime = ManagedRuntime.make(
    NodeMcpServer.layerHttp({ port }).pipe(
      Layer.provideMerge(McpServer.layer({
        serverInfo: { name: "effect-mcp-modern-interop", version: "1.0.0" },
        revisions: [...Revision.handshake, "2026-07-28"],
        tools: [Add, Steps, Sample, Register, Region],
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

interface Seen {
  readonly method: string
  readonly status: number
  readonly type: string | null
  readonly headers: Headers
  readonly body: any
}

/** A fetch that records every exchange: request headers and body, response status and type. */
const recording = () => {
  const log: Array<Seen> = []
  const recordingFetch = async (input: string | URL | Request, init?: RequestInit) => {
    const response = await fetch(input, init)
    log.push({
      method: init?.method ?? "GET",
      status: response.status,
      type: response.headers.get("content-type"),
      headers: new Headers(init?.headers),
      body: typeof init?.body === "string" ? JSON.parse(init.body) : undefined
    })
    return response
  }
  return { log, fetch: recordingFetch }
}

const newClient = (mode: VersionNegotiationMode) => {
  const client = new Client({ name: "official-modern-client", version: "1.0.0" }, {
    capabilities: { sampling: {}, elicitation: { form: {} } },
    versionNegotiation: { mode }
  })
  client.setRequestHandler("sampling/createMessage", async (request) => ({
    model: "test-model",
    role: "assistant" as const,
    content: { type: "text" as const, text: `echo ${(request.params.messages[0].content as { text: string }).text}` }
  }))
  client.setRequestHandler("elicitation/create", async (request) => ({
    action: "accept" as const,
    content: request.params.message === "Your name?" ? { name: "Ada" } : { answer: "yes" }
  }))
  return client
}

const text = (result: { readonly content?: unknown }) => (result.content as Array<{ text: string }>)[0].text

const exercise = async (client: Client) => {
  const tools = await client.listTools()
  assert.deepStrictEqual(tools.tools.map((t) => t.name).sort(), ["add", "region", "register", "sample", "steps"])

  const sum = await client.callTool({ name: "add", arguments: { a: 2, b: 3 } })
  assert.deepStrictEqual(sum.structuredContent, { sum: 5 })

  const progress: Array<number> = []
  const steps = await client.callTool({ name: "steps", arguments: {} }, {
    onprogress: (p) => void progress.push(p.progress)
  })
  assert.strictEqual(text(steps), "steps done")
  assert.deepStrictEqual(progress, [1, 2, 3])

  const doc = await client.readResource({ uri: "test://doc" })
  assert.deepStrictEqual(doc.contents, [{ uri: "test://doc", mimeType: "text/plain", text: "the doc" }])

  const prompt = await client.getPrompt({ name: "greeting", arguments: { name: "Ada" } })
  assert.deepStrictEqual(prompt.messages, [{ role: "user", content: { type: "text", text: "Hello, Ada!" } }])

  // Multi-round trips: the client's own handlers answer the input requests, the retries carry them.
  const sampled = await client.callTool({ name: "sample", arguments: { prompt: "ping" } })
  assert.notStrictEqual(sampled.isError, true)
  assert.strictEqual(text(sampled), "LLM said: echo ping")
  const registered = await client.callTool({ name: "register", arguments: {} })
  assert.strictEqual(text(registered), "registered Ada: yes")

  const region = await client.callTool({ name: "region", arguments: { region: "eu-west" } })
  assert.strictEqual(text(region), "in eu-west")
}

describe("official client, modern era, over HTTP", () => {
  for (const mode of [{ pin: "2026-07-28" }, "auto"] as const) {
    it(`versionNegotiation ${JSON.stringify(mode)}: every feature, statelessly`, async () => {
      const { fetch: recordingFetch, log } = recording()
      const transport = new StreamableHTTPClientTransport(url, { fetch: recordingFetch })
      const client = newClient(mode)
      try {
        await client.connect(transport)
        assert.strictEqual(client.getNegotiatedProtocolVersion(), "2026-07-28")
        assert.strictEqual(client.getServerVersion()?.name, "effect-mcp-modern-interop")
        assert.includeMembers(client.getDiscoverResult()?.supportedVersions ?? [], ["2025-11-25", "2026-07-28"])
        await exercise(client)

        const posts = log.filter((r) => r.method === "POST")
        // Stateless: no initialize, no session; every POST carries its version in header and _meta.
        assert.isFalse(posts.some((r) => r.body?.method === "initialize"))
        for (const post of posts) {
          assert.isNull(post.headers.get("mcp-session-id"))
          assert.strictEqual(post.headers.get("mcp-protocol-version"), "2026-07-28")
          assert.strictEqual(post.body?.params?._meta?.["io.modelcontextprotocol/protocolVersion"], "2026-07-28")
          assert.strictEqual(post.status, 200, JSON.stringify(post.body))
        }
        // The client mirrored the annotated argument, and the names, in headers.
        const region = posts.find((r) => r.body?.params?.name === "region")!
        assert.strictEqual(region.headers.get("mcp-param-region"), "eu-west")
        assert.strictEqual(region.headers.get("mcp-name"), "region")
        assert.strictEqual(region.headers.get("mcp-method"), "tools/call")
        // Progress came on the request's own SSE stream.
        assert.isTrue(posts.some((r) => r.type?.startsWith("text/event-stream") === true))
      } finally {
        await client.close()
      }
    })
  }

  it("a 2025-11-25 client on the same endpoint gets a session", async () => {
    const transport = new StreamableHTTPClientTransport(url)
    const client = new Client({ name: "official-legacy-client", version: "1.0.0" })
    try {
      await client.connect(transport)
      assert.strictEqual(client.getNegotiatedProtocolVersion(), "2025-11-25")
      assert.isString(transport.sessionId)
      const sum = await client.callTool({ name: "add", arguments: { a: 1, b: 1 } })
      assert.deepStrictEqual(sum.structuredContent, { sum: 2 })
    } finally {
      await client.close()
    }
  })
})
