/**
 * `HttpTransport.toWebHandler` at the wire, on Node: real `Request`s in, real `Response`s out,
 * JSON text both ways, as Bun, Deno or a Worker would call it.
 *
 * - the front: Host and Origin (on by default; a request without a `Host` header is judged by its
 *   URL's authority, where a plain `HttpLayerRouter.toWebHandler` refused it 403), Accept and
 *   Content-Type, bad JSON (-32700 with HTTP 400);
 * - a streamed body with no length, over the limit, refused 413 while it still arrives: the
 *   handler does not read it all (what it read when it answered is about the limit);
 * - a call answered at once reads neither its request's `signal` nor, its length said, a stream of
 *   its body (what Deno and Bun make only when asked cost them most of our time per request); a
 *   call served in a fiber is interrupted when its request's signal aborts;
 * - a 2026-07-28 listen as a streamed `Response`: cancelling its body ends the subscription;
 * - a multi-round trip whose `requestState` is sealed with the key from the environment
 *   (`MCP_REQUEST_STATE_KEY`), its retry served by another handler (another isolate) with it;
 * - a handshake session: initialize, a call in it, DELETE, and the session gone;
 * - `auth`: 401 without a token (with the resource metadata's URL), or with one the verifier
 *   refuses; served with one it takes; the metadata served;
 * - the server is built once per handler, not per request (also when the first requests come together);
 *   a build that fails (a `Config` missing from a Worker's environment, say) is answered with a
 *   JSON-RPC error, HTTP 500, and the next request builds again (before: the returned promise was
 *   rejected, which a runtime answers with its own page, and every later request failed the same way).
 *
 * Before: there was no such handler; the router's (`HttpLayerRouter.toWebHandler`) refused a
 * `Request` without a `Host` header 403, and the app run bare (not as a route) never finished
 * reading a body of no stated length (its read raced uninterruptibly): every POST hung.
 */
import { AuthInfo } from "@effect-mcp/core"
import { events, handshakeHeaders, statelessHeaders } from "@effect-mcp/test-support/HttpWire"
import { describe, expect, it } from "@effect/vitest"
import * as Config from "effect/Config"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import { onTestFinished, vi } from "vitest"
import * as HttpTransport from "../src/HttpTransport.js"
import * as McpRequest from "../src/McpRequest.js"
import * as McpServer from "../src/McpServer.js"
import * as TokenVerifier from "../src/TokenVerifier.js"
import * as Tool from "../src/Tool.js"

const V = "2026-07-28"
const ACCEPT = "application/json, text/event-stream"
const url = "http://localhost/mcp"

const Echo = Tool.make(
  "echo",
  { parameters: Schema.Struct({ text: Schema.String }) },
  ({ text }) => Effect.succeed(`echo: ${text}`)
)

const Greet = Tool.make(
  "greet",
  { failure: Schema.String },
  () =>
    Effect.mapError(
      Effect.map(
        McpRequest.elicit("name", {
          message: "Who are you?",
          requestedSchema: { type: "object", properties: { name: { type: "string" } } }
        }),
        (answer) => `hello, ${answer.content?.name}`
      ),
      (error) => error.message
    )
)

/** How many servers were built: counted by the layer each handler builds. */
let builds = 0

const serverLayer = McpServer.layer({
  serverInfo: { name: "web-handler", version: "1.0.0" },
  revisions: ["2025-11-25", V],
  requestStateKey: Config.redacted("MCP_REQUEST_STATE_KEY"),
  tools: [Echo, Greet],
  maxSubscriptions: 4
}).pipe(
  Layer.tap(() => Effect.sync(() => builds++)),
  Layer.provide(Layer.setConfigProvider(
    ConfigProvider.fromMap(new Map([["MCP_REQUEST_STATE_KEY", "the web handler test's key, from the environment"]]))
  ))
)

const handlerOf = (options: HttpTransport.Options = {}) => {
  const web = HttpTransport.toWebHandler(serverLayer, options)
  onTestFinished(() => web.dispose())
  return web.handler
}

let ids = 0

const meta = {
  "io.modelcontextprotocol/protocolVersion": V,
  "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
  "io.modelcontextprotocol/clientInfo": { name: "web-test", version: "1.0.0" }
}

/** A 2026-07-28 POST (no `Host` header: the URL's authority stands for it). */
const stateless = (
  method: string,
  params: Record<string, unknown>,
  init: { readonly headers?: Record<string, string>; readonly id?: number; readonly url?: string } = {}
) =>
  new Request(init.url ?? url, {
    method: "POST",
    headers: {
      ...statelessHeaders(method, typeof params.name === "string" ? params.name : undefined),
      ...init.headers
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: init.id ?? ++ids, method, params: { ...params, _meta: meta } })
  })

describe("HttpTransport.toWorkerHandler", () => {
  it("the server is built by the first request with the Worker's text bindings as its config, and options from env", async () => {
    let built = 0
    const bare = McpServer.layer({
      serverInfo: { name: "worker", version: "1.0.0" },
      revisions: [V],
      requestStateKey: Config.redacted("MCP_REQUEST_STATE_KEY"),
      tools: [Echo]
    }).pipe(Layer.tap(() => Effect.sync(() => built++)))
    const worker = HttpTransport.toWorkerHandler(bare, (env) => ({ allowedHosts: [String(env.MCP_HOST)] }))
    const env = { MCP_REQUEST_STATE_KEY: "the worker test's key, from a binding", MCP_HOST: "mcp.example.com", KV: {} }
    const at = "https://mcp.example.com/mcp"
    for (let i = 0; i < 3; i++) {
      const call = await worker.fetch(
        stateless("tools/call", { name: "echo", arguments: { text: "hi" } }, { url: at }),
        env
      )
      expect(await call.json()).toMatchObject({ result: { content: [{ type: "text", text: "echo: hi" }] } })
    }
    expect(built).toBe(1)
    const foreign = await worker.fetch(stateless("tools/list", {}, { url: "http://localhost/mcp" }), env)
    expect(foreign.status).toBe(403)
  })

  it("without the binding a Config needs, a JSON-RPC error (HTTP 500)", async () => {
    const worker = HttpTransport.toWorkerHandler(McpServer.layer({
      serverInfo: { name: "worker", version: "1.0.0" },
      revisions: [V],
      requestStateKey: Config.redacted("MCP_REQUEST_STATE_KEY")
    }))
    const answer = await worker.fetch(stateless("tools/list", {}, { id: 3 }), {})
    expect(answer.status).toBe(500)
    expect(await answer.json()).toMatchObject({ id: null, error: { code: -32603 } })
  })

  it("a tool reads the Worker's text bindings as its config when it is called, not only when the server is built", async () => {
    const Greet = Tool.make("greet", {}, () => Effect.orDie(Config.string("GREETING")))
    const worker = HttpTransport.toWorkerHandler(McpServer.layer({
      serverInfo: { name: "worker", version: "1.0.0" },
      revisions: [V],
      tools: [Greet]
    }))
    for (const id of [1, 2]) {
      const call = await worker.fetch(stateless("tools/call", { name: "greet", arguments: {} }, { id }), {
        GREETING: "hello from a binding"
      })
      expect(await call.json()).toMatchObject({
        id,
        result: { content: [{ type: "text", text: "hello from a binding" }] }
      })
    }
  })
})

describe("HttpTransport.toWebHandler with a memoMap", () => {
  it("two handlers given one memoMap and one server layer share the server: it is built once", async () => {
    let built = 0
    const layer = serverLayer.pipe(Layer.tap(() => Effect.sync(() => built++)))
    const memoMap = Effect.runSync(Layer.makeMemoMap)
    const first = HttpTransport.toWebHandler(layer, { memoMap })
    const second = HttpTransport.toWebHandler(layer, { memoMap })
    onTestFinished(() => Promise.all([first.dispose(), second.dispose()]).then(() => undefined))
    for (const [id, web] of [[1, first], [2, second]] as const) {
      const call = await web.handler(stateless("tools/call", { name: "echo", arguments: { text: "hi" } }, { id }))
      expect(await call.json()).toMatchObject({ id, result: { content: [{ type: "text", text: "echo: hi" }] } })
    }
    expect(built).toBe(1)
  })
})

describe("a dual-era server as a Cloudflare Worker (navigator.userAgent \"Cloudflare-Workers\")", () => {
  it("serves 2026-07-28; a handshake-era initialize is told -32022 naming 2026-07-28, a GET is 405; warned once", async () => {
    vi.stubGlobal("navigator", { userAgent: "Cloudflare-Workers" })
    onTestFinished(() => {
      vi.unstubAllGlobals()
    })
    const warned: Array<string> = []
    const watch = Logger.make(({ logLevel, message }) => {
      if (logLevel._tag === "Warning") warned.push(Array.isArray(message) ? message.join(" ") : String(message))
    })
    const web = HttpTransport.toWebHandler(
      serverLayer.pipe(Layer.provide(Logger.replace(Logger.defaultLogger, watch)))
    )
    onTestFinished(() => web.dispose())
    const call = await web.handler(stateless("tools/call", { name: "echo", arguments: { text: "hi" } }, { id: 1 }))
    expect(await call.json()).toMatchObject({ id: 1, result: { content: [{ type: "text", text: "echo: hi" }] } })
    const initialize = await web.handler(
      new Request(url, {
        method: "POST",
        headers: handshakeHeaders(undefined),
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 2,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "w", version: "1.0.0" } }
        })
      })
    )
    expect(await initialize.json()).toMatchObject({
      id: 2,
      error: { code: -32022, data: { supported: [V], requested: "2025-11-25" } }
    })
    const get = await web.handler(new Request(url, { method: "GET", headers: { accept: "text/event-stream" } }))
    expect(get.status).toBe(405)
    expect(warned.filter((line) => line.includes("no process keeps a handshake session"))).toHaveLength(1)
  })

  it("a server of handshake revisions only cannot be built there: every request is a JSON-RPC error (HTTP 500)", async () => {
    vi.stubGlobal("navigator", { userAgent: "Cloudflare-Workers" })
    onTestFinished(() => {
      vi.unstubAllGlobals()
    })
    const web = HttpTransport.toWebHandler(McpServer.layer({
      serverInfo: { name: "handshake-only", version: "1.0.0" },
      revisions: ["2025-11-25"],
      tools: [Echo]
    }))
    onTestFinished(() => web.dispose())
    const answer = await web.handler(stateless("tools/list", {}, { id: 1 }))
    expect(answer.status).toBe(500)
    expect(await answer.json()).toMatchObject({ id: null, error: { code: -32603 } })
  })
})

describe("HttpTransport.toWebHandler", () => {
  it("a server that cannot be built: a JSON-RPC error (HTTP 500) for the request, and the next one builds again", async () => {
    let attempts = 0
    const flaky = Layer.unwrapEffect(Effect.suspend(() =>
      attempts++ === 0
        ? Effect.fail(new Error("the first build fails (a Config missing, say)"))
        : Effect.succeed(serverLayer)
    ))
    const web = HttpTransport.toWebHandler(flaky)
    onTestFinished(() => web.dispose())
    const first = await web.handler(stateless("tools/list", {}, { id: 1 }))
    expect(first.status).toBe(500)
    expect(first.headers.get("content-type")).toBe("application/json")
    expect(await first.json()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32603, message: "Internal error: the server could not be built" }
    })
    const second = await web.handler(stateless("tools/list", {}, { id: 2 }))
    expect(second.status).toBe(200)
    expect(await second.json()).toMatchObject({ id: 2, result: { tools: expect.any(Array) } })
    expect(attempts).toBe(2)
  })

  it("list and call on 2026-07-28, with no Host header (the URL's authority is the host); one server for every request", async () => {
    const before = builds
    const handler = handlerOf()
    const list = await handler(stateless("tools/list", {}, { id: 1 }))
    expect(list.status).toBe(200)
    const listed = await list.json()
    expect(listed.id).toBe(1)
    expect(listed.result.tools.map((tool: { name: string }) => tool.name).sort()).toEqual(["echo", "greet"])
    for (let i = 0; i < 5; i++) {
      const call = await handler(stateless("tools/call", { name: "echo", arguments: { text: `hi ${i}` } }, { id: 2 }))
      expect(await call.json()).toMatchObject({ id: 2, result: { content: [{ type: "text", text: `echo: hi ${i}` }] } })
    }
    expect(builds - before).toBe(1)
  })

  it("requests that come together before the server is built build it once", async () => {
    const before = builds
    const handler = handlerOf()
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => handler(stateless("tools/list", {}, { id: i })))
    )
    expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(200))
    expect(builds - before).toBe(1)
  })

  it("auth: no token is 401 with the resource metadata; a token the verifier takes is served, its holder known", async () => {
    const resource = "http://localhost/mcp"
    const handler = handlerOf({
      auth: {
        resource,
        authorizationServers: ["https://issuer.example"],
        verifier: {
          verify: (token) =>
            token === "good"
              ? Effect.succeed(
                new AuthInfo.AuthInfo({
                  subject: "ada",
                  clientId: Option.none(),
                  scopes: [],
                  expiresAt: Option.none(),
                  audience: [resource],
                  issuer: Option.some("https://issuer.example"),
                  claims: {},
                  token: Redacted.make(token)
                })
              )
              : Effect.fail(new TokenVerifier.TokenRejected({ reason: "unknown token" }))
        }
      }
    })
    const none = await handler(stateless("tools/list", {}, { id: 1 }))
    expect(none.status).toBe(401)
    expect(none.headers.get("www-authenticate")).toContain(
      "resource_metadata=\"http://localhost/.well-known/oauth-protected-resource/mcp\""
    )
    const bad = await handler(stateless("tools/list", {}, { id: 2, headers: { authorization: "Bearer bad" } }))
    expect(bad.status).toBe(401)
    expect(bad.headers.get("www-authenticate")).toContain("error=\"invalid_token\"")
    const good = await handler(stateless("tools/list", {}, { id: 3, headers: { authorization: "Bearer good" } }))
    expect(good.status).toBe(200)
    expect((await good.json()).id).toBe(3)
    const metadata = await handler(new Request("http://localhost/.well-known/oauth-protected-resource/mcp"))
    expect(await metadata.json()).toMatchObject({ resource, authorization_servers: ["https://issuer.example"] })
  })

  it("the front: Host and Origin allow-lists on by default, Accept and Content-Type, bad JSON", async () => {
    const handler = handlerOf()
    const body = async (response: Response) => ({ status: response.status, body: await response.json() })
    // A host that is not loopback, by its header or, without one, by its URL.
    expect(await body(await handler(stateless("tools/list", {}, { headers: { host: "evil.example" } })))).toMatchObject(
      {
        status: 403,
        body: { jsonrpc: "2.0", id: null, error: { code: -32000, message: "Forbidden: Host not allowed" } }
      }
    )
    expect(await body(await handler(stateless("tools/list", {}, { url: "http://evil.example/mcp" })))).toMatchObject({
      status: 403,
      body: { error: { message: "Forbidden: Host not allowed" } }
    })
    expect(await body(await handler(stateless("tools/list", {}, { headers: { origin: "https://evil.example" } }))))
      .toMatchObject({ status: 403, body: { error: { message: "Forbidden: Origin not allowed" } } })
    // An allowed origin: served, with CORS.
    const cors = await handler(stateless("tools/list", {}, { headers: { origin: "http://localhost:5173" } }))
    expect(cors.status).toBe(200)
    expect(cors.headers.get("access-control-allow-origin")).toBe("http://localhost:5173")
    expect(await body(await handler(stateless("tools/list", {}, { headers: { accept: "text/html" } })))).toMatchObject({
      status: 406,
      body: { error: { code: -32000 } }
    })
    expect(await body(await handler(stateless("tools/list", {}, { headers: { "content-type": "text/plain" } }))))
      .toMatchObject({ status: 415, body: { error: { code: -32000 } } })
    const bad = await handler(
      new Request(url, {
        method: "POST",
        headers: { accept: ACCEPT, "content-type": "application/json", "mcp-protocol-version": V },
        body: "{\"jsonrpc\":\"2.0\",\"id\":1,"
      })
    )
    expect(await body(bad)).toMatchObject({ status: 400, body: { jsonrpc: "2.0", id: null, error: { code: -32700 } } })
    // Nothing else is lost: the handler goes on serving.
    expect((await handler(stateless("tools/list", {}))).status).toBe(200)
  })

  it("a streamed body over the limit, with no length: 413 while it still arrives, not read whole", async () => {
    const maxBodyBytes = 64 * 1024
    const handler = handlerOf({ maxBodyBytes })
    const chunk = new Uint8Array(16 * 1024).fill(0x20)
    let pulled = 0
    // A body that never ends: were it buffered whole, the answer would never come.
    const endless = new ReadableStream<Uint8Array>({
      pull: (controller) => {
        pulled += chunk.length
        controller.enqueue(chunk)
      }
    })
    const response = await handler(
      new Request(url, {
        method: "POST",
        headers: { accept: ACCEPT, "content-type": "application/json", "mcp-protocol-version": V },
        body: endless,
        duplex: "half"
      } as RequestInit)
    )
    const readWhenAnswered = pulled
    expect(response.status).toBe(413)
    expect(readWhenAnswered).toBeLessThanOrEqual(maxBodyBytes + 4 * chunk.length)
    expect(await response.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32000 } })
    // What it still drains of the rest is bounded (then it lets go of the stream).
    expect(pulled).toBeLessThanOrEqual(maxBodyBytes + 16 * 1024 * 1024 + 4 * chunk.length)
  })

  it("a call answered at once reads neither its request's signal nor, its length said, a stream of its body", async () => {
    // What a runtime makes only when asked costs every request that asks: Deno aborts a signal
    // that was read, with a DOMException, as each request ends (before: a quarter of its CPU time,
    // the signal read for every request); Bun makes a JavaScript stream of a body read as one
    // (before: the body always read from its stream).
    const handler = handlerOf()
    const text = JSON.stringify({
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "echo", arguments: { text: "at once" }, _meta: meta }
    })
    const request = new Request(url, {
      method: "POST",
      headers: {
        ...statelessHeaders("tools/call", "echo"),
        "content-length": String(new TextEncoder().encode(text).length)
      },
      body: text
    })
    const read: Array<string | symbol> = []
    const watched = new Proxy(request, {
      get: (target, key) => {
        if (key === "signal" || key === "body") read.push(key)
        const value = Reflect.get(target, key, target)
        return typeof value === "function" ? value.bind(target) : value
      }
    })
    const response = await handler(watched)
    expect({ status: response.status, body: await response.json() }).toMatchObject({
      status: 200,
      body: { jsonrpc: "2.0", id: 7, result: { content: [{ type: "text", text: "echo: at once" }] } }
    })
    expect(read).toEqual([])
  })

  it("a call served in a fiber is interrupted when its request's signal aborts", async () => {
    const started = Deferred.unsafeMake<void>(FiberId.none)
    const interrupted = Deferred.unsafeMake<void>(FiberId.none)
    const Wait = Tool.make(
      "wait",
      {},
      () =>
        Effect.zipRight(Effect.sync(() => Deferred.unsafeDone(started, Exit.void)), Effect.never).pipe(
          Effect.onInterrupt(() => Effect.sync(() => Deferred.unsafeDone(interrupted, Exit.void)))
        )
    )
    const web = HttpTransport.toWebHandler(
      McpServer.layer({ serverInfo: { name: "web-abort", version: "1.0.0" }, revisions: [V], tools: [Wait] }),
      {}
    )
    onTestFinished(() => web.dispose())
    const controller = new AbortController()
    void web.handler(
      new Request(url, {
        method: "POST",
        headers: statelessHeaders("tools/call", "wait"),
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "wait", arguments: {}, _meta: meta }
        }),
        signal: controller.signal
      })
    ).catch(() => {})
    await Effect.runPromise(Deferred.await(started))
    controller.abort()
    await Effect.runPromise(Deferred.await(interrupted))
  })

  it("a listen is a streamed Response; cancelling its body ends the subscription", async () => {
    // The listen's end is its request's Debug line ("... cancelled"): waited for, not polled.
    const cancelled = Deferred.unsafeMake<void>(FiberId.none)
    const watch = Logger.make(({ message }) => {
      const line = Array.isArray(message) ? message.join(" ") : String(message)
      if (line.startsWith("effect-mcp: subscriptions/listen cancelled")) Deferred.unsafeDone(cancelled, Exit.void)
    })
    const runtime = ManagedRuntime.make(
      serverLayer.pipe(
        Layer.provideMerge(
          Layer.merge(Logger.replace(Logger.defaultLogger, watch), Logger.minimumLogLevel(LogLevel.Debug))
        )
      )
    )
    const scope = await runtime.runPromise(Scope.make())
    onTestFinished(async () => {
      await runtime.runPromise(Scope.close(scope, Exit.void))
      await runtime.dispose()
    })
    const handler = await runtime.runPromise(Scope.extend(HttpTransport.makeWebHandler(), scope))
    const active = () => runtime.runPromise(Effect.flatMap(McpServer.McpServer, (server) => server.activeSubscriptions))
    const response = await handler(stateless("subscriptions/listen", { notifications: { toolsListChanged: true } }))
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toBe("text/event-stream")
    // The acknowledgement comes first; then the body is cancelled (`events` lets go of it).
    const seen = await events(response, (message) => message.method === "notifications/subscriptions/acknowledged")
    expect(seen.map((event) => event.message.method)).toEqual(["notifications/subscriptions/acknowledged"])
    await Effect.runPromise(Deferred.await(cancelled))
    expect(await active()).toEqual([])
  })

  it("a multi-round trip: the requestState sealed with the key from the environment, retried on another handler", async () => {
    const first = handlerOf()
    const other = handlerOf()
    const round1 = await (await first(stateless("tools/call", { name: "greet", arguments: {} }))).json()
    expect(round1.result).toMatchObject({
      resultType: "input_required",
      inputRequests: { name: { method: "elicitation/create" } }
    })
    expect(typeof round1.result.requestState).toBe("string")
    const round2 = await (await other(stateless("tools/call", {
      name: "greet",
      arguments: {},
      inputResponses: { name: { action: "accept", content: { name: "Ann" } } },
      requestState: round1.result.requestState
    }))).json()
    expect(round2.result).toMatchObject({ content: [{ type: "text", text: "hello, Ann" }] })
  })

  it("a handshake session: initialize, a call in it, the GET stream, DELETE; then the session is gone", async () => {
    const runtime = ManagedRuntime.make(serverLayer)
    const scope = await runtime.runPromise(Scope.make())
    onTestFinished(async () => {
      await runtime.runPromise(Scope.close(scope, Exit.void))
      await runtime.dispose()
    })
    const handler = await runtime.runPromise(Scope.extend(HttpTransport.makeWebHandler(), scope))
    const add = (tool: Tool.Tool<never>) =>
      runtime.runPromise(Effect.flatMap(McpServer.McpServer, (server) => server.addTool(tool)))
    const post = (message: Record<string, unknown>, session?: string) =>
      handler(
        new Request(url, { method: "POST", headers: handshakeHeaders(session), body: JSON.stringify(message) })
      )
    const init = await post({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "web-test", version: "1.0.0" } }
    })
    expect(init.status).toBe(200)
    const session = init.headers.get("mcp-session-id")!
    expect(session).toMatch(/.{16,}/)
    const [initialized] = await events(init, (message) => message.id === 1)
    expect(initialized.message.result.protocolVersion).toBe("2025-11-25")
    expect((await post({ jsonrpc: "2.0", method: "notifications/initialized" }, session)).status).toBe(202)
    const call = await post({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "echo", arguments: { text: "in a session" } }
    }, session)
    const [answer] = await events(call, (message) => message.id === 2)
    expect(answer.message.result.content).toEqual([{ type: "text", text: "echo: in a session" }])
    // The standalone GET stream of the session: what the server says outside a request reaches it.
    const controller = new AbortController()
    const stream = await handler(
      new Request(url, {
        method: "GET",
        headers: { ...handshakeHeaders(session), accept: "text/event-stream" },
        signal: controller.signal
      })
    )
    expect(stream.status).toBe(200)
    expect(stream.headers.get("content-type")).toBe("text/event-stream")
    const changed = events(stream, (message) => message.method === "notifications/tools/list_changed")
    await add(Tool.make("late", {}, () => Effect.succeed("late")))
    expect((await changed).map((event) => event.message.method)).toContain("notifications/tools/list_changed")
    const deleted = await handler(new Request(url, { method: "DELETE", headers: handshakeHeaders(session) }))
    expect(deleted.status).toBe(200)
    const after = await post({ jsonrpc: "2.0", id: 3, method: "tools/list" }, session)
    expect(after.status).toBe(404)
    expect(await after.json()).toMatchObject({ error: { code: -32001 } })
  })
})
