/**
 * Streamable HTTP in 2026-07-28 at the wire: POST only, each request its own POST; the headers
 * checked against the body (SEP-2243: MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Param-*
 * with `=?base64?…?=` values); status codes per answer; JSON or a request-scoped SSE stream
 * without event ids; a closed stream cancels; dual-era serving on one endpoint; the limits on
 * listens (503 past `maxSubscriptions`, 400 for a filter too large).
 */
import { validate } from "@effect-mcp/test-support/OfficialSchema"
import { assert, describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import {
  ACCEPT,
  awaitDeferred,
  control,
  describeServers,
  eventually,
  Extra,
  freshKey,
  type Harness,
  rawRequest,
  readAll,
  release,
  SseReader,
  WireClient
} from "./utils/http.js"

const V = "2026-07-28"
const dual = { revisions: ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", V] } as const
const statelessOnly = { revisions: [V] } as const

const meta = (extra: Record<string, unknown> = {}) => ({
  "io.modelcontextprotocol/protocolVersion": V,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "wire-test", version: "0.0.1" },
  ...extra
})

let ids = 0

/** The standard headers a 2026-07-28 client sends for this body. */
const standard = (body: { readonly method: string; readonly params?: any }): Record<string, string> => {
  const out: Record<string, string> = {
    accept: ACCEPT,
    "content-type": "application/json",
    "mcp-protocol-version": V,
    "mcp-method": body.method
  }
  const name = body.method === "resources/read" ? body.params?.uri : body.params?.name
  if (["tools/call", "prompts/get", "resources/read"].includes(body.method) && typeof name === "string") {
    out["mcp-name"] = name
  }
  return out
}

/** POSTs one 2026-07-28 request: standard headers, then `headers` (undefined removes one). */
const post = (
  h: Harness,
  method: string,
  params: Record<string, unknown> = {},
  options: {
    readonly headers?: Record<string, string | undefined>
    readonly id?: string | number
    readonly meta?: Record<string, unknown> | false
    readonly signal?: AbortSignal
  } = {}
): Promise<Response> => {
  const body = {
    jsonrpc: "2.0",
    id: options.id ?? ++ids,
    method,
    params: options.meta === false ? params : { ...params, _meta: meta(options.meta) }
  }
  const headers: Record<string, string> = standard(body)
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (value === undefined) delete headers[name]
    else headers[name] = value
  }
  return fetch(h.url, {
    method: "POST",
    headers,
    body: JSON.stringify(body),
    signal: options.signal ?? h.controller().signal
  }).then((response) => {
    methods.set(response, method)
    return response
  })
}

/** The method each response answers. */
const methods = new WeakMap<Response, string>()

const results: Record<string, string> = {
  "tools/list": "ListToolsResult",
  "tools/call": "CallToolResult",
  "resources/read": "ReadResourceResult",
  "prompts/get": "GetPromptResult",
  "server/discover": "DiscoverResult"
}
const notifications: Record<string, string> = {
  "notifications/progress": "ProgressNotification",
  "notifications/message": "LoggingMessageNotification"
}

/** A message the server sent, checked against the official 2026-07-28 schema. */
const valid = (message: any, method?: string): any => {
  const name = "method" in message
    ? notifications[message.method] ?? "JSONRPCNotification"
    : "error" in message
    ? "JSONRPCErrorResponse"
    : message.result?.resultType === "input_required"
    ? undefined
    : method === undefined
    ? "JSONRPCResultResponse"
    : results[method]
  if ("result" in message) {
    assert.isUndefined(validate(V, "JSONRPCResultResponse", message))
    const def = message.result.resultType === "input_required" ? "InputRequiredResult" : name
    if (def !== undefined && def !== "JSONRPCResultResponse") assert.isUndefined(validate(V, def, message.result))
  } else assert.isUndefined(validate(V, name!, message))
  return message
}

/** The one JSON body of a response, valid in 2026-07-28. */
const json = async (response: Response): Promise<any> => {
  expect(response.headers.get("content-type")).toMatch(/^application\/json/)
  return valid(await response.json(), methods.get(response))
}

const headerMismatch = async (response: Response, id?: string | number) => {
  expect(response.status).toBe(400)
  const body = await json(response)
  expect(body.error.code).toBe(-32020)
  if (id !== undefined) expect(body.id).toBe(id)
  return body
}

describeServers("HTTP 2026-07-28: requests", (start) => {
  it("a request is answered in JSON, complete, with its envelope; no session is made", async () => {
    const h = await start({}, dual)
    const response = await post(h, "tools/list", {}, { id: "a" })
    expect(response.status).toBe(200)
    expect(response.headers.get("mcp-session-id")).toBeNull()
    const body = await json(response)
    expect(body.id).toBe("a")
    expect(body.result.resultType).toBe("complete")
    expect(body.result.ttlMs).toBe(0)
    expect(body.result.cacheScope).toBe("public")
    expect(body.result._meta["io.modelcontextprotocol/serverInfo"].name).toBe("http-test")
    expect(body.result.tools.map((t: any) => t.name)).toContain("quick")
    expect(h.server.revisions).toContain(V)
  })

  it("Mcp-Session-Id and Last-Event-ID are ignored", async () => {
    const h = await start({}, dual)
    const response = await post(h, "tools/call", { name: "quick", arguments: {} }, {
      headers: { "mcp-session-id": "no-such-session", "last-event-id": "x_1" }
    })
    expect(response.status).toBe(200)
    expect(response.headers.get("mcp-session-id")).toBeNull()
    expect((await json(response)).result.content).toEqual([{ type: "text", text: "quick" }])
  })

  it("status codes: 404 for -32601, 400 for -32602 and -32022, 200 for a tool error", async () => {
    const h = await start({}, dual)
    const unknown = await post(h, "no/such", {}, { id: 1 })
    expect(unknown.status).toBe(404)
    expect((await json(unknown)).error.code).toBe(-32601)

    const noMeta = await post(h, "tools/list", {}, { id: 2, meta: false })
    expect(noMeta.status).toBe(400)
    const noMetaBody = await noMeta.json()
    expect(noMetaBody).toMatchObject({ id: 2, error: { code: -32602 } })

    const future = await post(h, "tools/list", {}, {
      id: 3,
      meta: { "io.modelcontextprotocol/protocolVersion": "2099-01-01" },
      headers: { "mcp-protocol-version": "2099-01-01" }
    })
    expect(future.status).toBe(400)
    const futureBody = await future.json()
    expect(futureBody.id).toBe(3)
    expect(futureBody.error.code).toBe(-32022)
    expect(futureBody.error.data.requested).toBe("2099-01-01")
    expect(futureBody.error.data.supported).toContain(V)

    const badArgs = await post(h, "tools/call", { name: "controlled", arguments: { key: 5 } }, { id: 4 })
    expect(badArgs.status).toBe(200)
    expect((await json(badArgs)).result.isError).toBe(true)
  })

  it("a batch, a response and a notification", async () => {
    const h = await start({}, dual)
    const headers = { ...standard({ method: "tools/list" }) }
    const batch = await fetch(h.url, {
      method: "POST",
      headers,
      body: JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: meta() } }])
    })
    expect(batch.status).toBe(400)
    expect((await batch.json()).error.code).toBe(-32600)

    const response = await fetch(h.url, {
      method: "POST",
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", id: 9, result: {} })
    })
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ id: 9, error: { code: -32600 } })

    const notification = await fetch(h.url, {
      method: "POST",
      headers: { ...headers, "mcp-method": "notifications/cancelled" },
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } })
    })
    expect(notification.status).toBe(202)
    expect(await notification.text()).toBe("")

    const garbage = await fetch(h.url, { method: "POST", headers, body: "{not json" })
    expect(garbage.status).toBe(400)
    expect((await garbage.json()).error.code).toBe(-32700)
  })

  it("Accept and Content-Type are checked as in every era", async () => {
    const h = await start({}, statelessOnly)
    expect((await post(h, "tools/list", {}, { headers: { accept: "application/json" } })).status).toBe(406)
    expect((await post(h, "tools/list", {}, { headers: { "content-type": "text/plain" } })).status).toBe(415)
  })

  it("GET and DELETE are 405 in 2026-07-28 (and on a stateless-only server, with Allow: POST)", async () => {
    const dualServer = await start({}, dual)
    for (const method of ["GET", "DELETE"]) {
      const response = await fetch(dualServer.url, {
        method,
        headers: { accept: "text/event-stream", "mcp-protocol-version": V }
      })
      expect(response.status).toBe(405)
    }
    const only = await start({}, statelessOnly)
    const get = await fetch(only.url, { method: "GET", headers: { accept: "text/event-stream" } })
    expect(get.status).toBe(405)
    expect(get.headers.get("allow")).toBe("POST")
    // No legacy HTTP+SSE on a server without the handshake era.
    expect((await fetch(`${only.origin}/sse`, { headers: { accept: "text/event-stream" } })).status).toBe(404)
  })
})

describeServers("HTTP 2026-07-28: standard headers against the body", (start) => {
  it("Mcp-Method: required, equal to the method, case-sensitive", async () => {
    const h = await start({}, statelessOnly)
    await headerMismatch(await post(h, "tools/list", {}, { id: 11, headers: { "mcp-method": undefined } }), 11)
    await headerMismatch(await post(h, "tools/list", {}, { id: 12, headers: { "mcp-method": "prompts/list" } }), 12)
    await headerMismatch(await post(h, "tools/list", {}, { id: 13, headers: { "mcp-method": "TOOLS/LIST" } }), 13)
  })

  it("header names are case-insensitive, values trimmed of optional whitespace", async () => {
    const h = await start({}, statelessOnly)
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "quick", arguments: {}, _meta: meta() }
    })
    const response = await rawRequest({
      port: h.port,
      method: "POST",
      path: "/mcp",
      headers: {
        host: `127.0.0.1:${h.port}`,
        Accept: ACCEPT,
        "Content-Type": "application/json",
        "MCP-PROTOCOL-VERSION": V,
        "MCP-METHOD": "tools/call",
        "Mcp-Name": "  quick\t "
      },
      body
    })
    expect(response.status).toBe(200)
    expect(JSON.parse(response.body).result.content[0].text).toBe("quick")
  })

  it("MCP-Protocol-Version: required and equal to the _meta version", async () => {
    const h = await start({}, statelessOnly)
    await headerMismatch(
      await post(h, "tools/list", {}, { id: 21, headers: { "mcp-protocol-version": undefined } }),
      21
    )
    await headerMismatch(
      await post(h, "tools/list", {}, { id: 22, headers: { "mcp-protocol-version": "2025-11-25" } }),
      22
    )
  })

  it("Mcp-Name: the tool or prompt name, the resource URI; required when the body has one; Base64 decoded", async () => {
    const h = await start({}, statelessOnly)
    const call = { name: "quick", arguments: {} }
    await headerMismatch(await post(h, "tools/call", call, { id: 31, headers: { "mcp-name": undefined } }), 31)
    await headerMismatch(await post(h, "tools/call", call, { id: 32, headers: { "mcp-name": "other" } }), 32)
    const encoded = await post(h, "tools/call", call, { headers: { "mcp-name": `=?base64?${btoa("quick")}?=` } })
    expect(encoded.status).toBe(200)

    const read = await post(h, "resources/read", { uri: "test://doc" })
    expect(read.status).toBe(200)
    expect((await json(read)).result.contents[0].text).toBe("the doc")
    await headerMismatch(await post(h, "resources/read", { uri: "test://doc" }, { headers: { "mcp-name": "x" } }))

    const prompt = await post(h, "prompts/get", { name: "greeting", arguments: { name: "Ann" } })
    expect(prompt.status).toBe(200)
    await headerMismatch(
      await post(h, "prompts/get", { name: "greeting", arguments: { name: "Ann" } }, { headers: { "mcp-name": "g" } })
    )
  })

  it("nothing runs when the headers disagree", async () => {
    const h = await start({}, statelessOnly)
    const key = freshKey()
    await headerMismatch(
      await post(h, "tools/call", { name: "controlled", arguments: { key } }, { headers: { "mcp-name": "quick" } })
    )
    expect(Effect.runSync(Deferred.isDone(control(key).started))).toBe(false)
  })
})

describeServers("HTTP 2026-07-28: Mcp-Param headers (x-mcp-header)", (start) => {
  const call = (
    h: Harness,
    args: Record<string, unknown>,
    headers: Record<string, string | undefined>
  ) => post(h, "tools/call", { name: "region", arguments: args }, { headers })

  const text = async (response: Response) => {
    expect(response.status).toBe(200)
    const body = await json(response)
    assert.isUndefined(body.error)
    return body.result.content[0].text
  }

  it("tools/list publishes the annotations", async () => {
    const h = await start({}, statelessOnly)
    const tools = (await json(await post(h, "tools/list"))).result.tools
    const region = tools.find((t: any) => t.name === "region")
    expect(region.inputSchema.properties.region["x-mcp-header"]).toBe("Region")
    expect(region.inputSchema.properties.count).toMatchObject({ type: "integer", "x-mcp-header": "Count" })
  })

  it("plain and Base64 values agree with the body; integers compare as numbers, booleans as true/false", async () => {
    const h = await start({}, statelessOnly)
    expect(await text(await call(h, { region: "eu-west" }, { "mcp-param-region": "eu-west" }))).toBe("eu-west - -")
    const zurich = "Zürich "
    const encoded = `=?base64?${Buffer.from(zurich, "utf8").toString("base64")}?=`
    expect(await text(await call(h, { region: zurich }, { "mcp-param-region": encoded }))).toBe("Zürich  - -")
    expect(
      await text(
        await call(h, { region: "r", count: 3, dry: true }, {
          "mcp-param-region": "r",
          "mcp-param-count": "3.0",
          "mcp-param-dry-run": "true"
        })
      )
    ).toBe("r 3 true")
    // A value without both markers is literal.
    const literal = `=?base64?${btoa("Hello")}`
    expect(await text(await call(h, { region: literal }, { "mcp-param-region": literal }))).toBe(`${literal} - -`)
    // A null argument has no header (and this tool's own schema refuses it: an isError result).
    const nulled = await call(h, { region: "r", count: null }, { "mcp-param-region": "r" })
    expect(nulled.status).toBe(200)
    expect((await json(nulled)).result.isError).toBe(true)
  })

  it("a missing, different or broken header is -32020", async () => {
    const h = await start({}, statelessOnly)
    await headerMismatch(await call(h, { region: "eu" }, {}))
    await headerMismatch(await call(h, { region: "eu" }, { "mcp-param-region": "us" }))
    await headerMismatch(await call(h, { region: "Hello" }, { "mcp-param-region": "=?base64?SGVsbG8?=" }))
    await headerMismatch(await call(h, { region: "Hello" }, { "mcp-param-region": "=?base64?SGVs!!!bG8=?=" }))
    await headerMismatch(
      await call(h, { region: "r", count: 3 }, { "mcp-param-region": "r", "mcp-param-count": "4" })
    )
    await headerMismatch(
      await call(h, { region: "r", dry: false }, { "mcp-param-region": "r", "mcp-param-dry-run": "False" })
    )
    // A header for an argument the body does not carry disagrees with it too.
    await headerMismatch(await call(h, { region: "r" }, { "mcp-param-region": "r", "mcp-param-count": "1" }))
  })
})

describeServers("HTTP 2026-07-28: streams", (start) => {
  it("progress first: a request-scoped SSE stream without event ids, ended by the answer", async () => {
    const h = await start({}, statelessOnly)
    const response = await post(h, "tools/call", { name: "progress", arguments: {} }, {
      id: 5,
      meta: { progressToken: "p" }
    })
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toBe("text/event-stream")
    expect(response.headers.get("x-accel-buffering")).toBe("no")
    const frames = await new SseReader(response).rest()
    for (const frame of frames) assert.isUndefined(frame.id)
    const messages = frames.map((f) => JSON.parse(f.data!))
    for (const message of messages) valid(message, "tools/call")
    expect(messages.slice(0, 3).map((m) => m.params.progress)).toEqual([1, 2, 3])
    expect(messages.slice(0, 3).every((m) => m.params.progressToken === "p")).toBe(true)
    expect(messages[3]).toMatchObject({ id: 5, result: { resultType: "complete" } })
    expect(messages.length).toBe(4)
  })

  it("logs only for a request that asked, at its level", async () => {
    const h = await start({}, statelessOnly)
    const silent = await post(h, "tools/call", { name: "log", arguments: {} })
    expect(silent.headers.get("content-type")).toMatch(/^application\/json/)
    const asked = await post(h, "tools/call", { name: "log", arguments: {} }, {
      meta: { "io.modelcontextprotocol/logLevel": "warning" }
    })
    const messages = await readAll(asked)
    expect(messages.map((m) => m.method ?? "result")).toEqual(["notifications/message", "result"])
    expect(messages[0].params).toMatchObject({ level: "warning", data: "second" })
  })

  it("a closed response stream cancels the request: its handler is interrupted", async () => {
    const h = await start({}, statelessOnly)
    const key = freshKey()
    const controller = new AbortController()
    const response = await post(h, "tools/call", { name: "controlled", arguments: { key } }, {
      meta: { progressToken: 1 },
      signal: controller.signal
    })
    const reader = new SseReader(response)
    expect((await reader.message()).method).toBe("notifications/progress")
    controller.abort()
    await awaitDeferred(control(key).interrupted, 5000, "the handler's interruption")
    release(key)
  })

  it("a request over the maximum duration is answered -32603 and interrupted", async () => {
    const h = await start({ maxRequestDuration: "1 second" }, { ...statelessOnly, testClock: true })
    const key = freshKey()
    const pending = post(h, "tools/call", { name: "controlled", arguments: { key } }, { id: 8 })
    await awaitDeferred(control(key).started)
    await h.adjust("3 seconds")
    const response = await pending
    const body = await response.json()
    expect(body).toMatchObject({ id: 8, error: { code: -32603 } })
    await awaitDeferred(control(key).interrupted)
  })

  it("multi-round trips over HTTP: input_required, then the retry with the answer", async () => {
    const h = await start({}, statelessOnly)
    const capabilities = { sampling: {} }
    const first = await json(
      await post(h, "tools/call", { name: "sample", arguments: { prompt: "hi" } }, {
        meta: { "io.modelcontextprotocol/clientCapabilities": capabilities }
      })
    )
    expect(first.result.resultType).toBe("input_required")
    expect(first.result.inputRequests.s.method).toBe("sampling/createMessage")
    const retry = await json(
      await post(h, "tools/call", {
        name: "sample",
        arguments: { prompt: "hi" },
        inputResponses: { s: { role: "assistant", content: { type: "text", text: "yo" }, model: "m" } },
        requestState: first.result.requestState
      }, { meta: { "io.modelcontextprotocol/clientCapabilities": capabilities } })
    )
    expect(retry.result.content[0].text).toBe("sampled: yo")
  })
})

describeServers("HTTP 2026-07-28: dual era on one endpoint", (start) => {
  it("a handshake session and stateless requests side by side", async () => {
    const h = await start({}, dual)
    const session = new WireClient(h)
    await session.initialize()
    expect(session.initializeResult.protocolVersion).toBe("2025-11-25")
    const stateless = await json(await post(h, "tools/call", { name: "quick", arguments: {} }))
    expect(stateless.result.resultType).toBe("complete")
    const handshake = await session.result("tools/call", { name: "quick", arguments: {} })
    assert.isUndefined(handshake.resultType)
    expect(handshake.content[0].text).toBe("quick")
    const discover = await json(await post(h, "server/discover"))
    expect(discover.result.supportedVersions).toEqual(dual.revisions)
  })

  it("a stateless request without its headers on the dual endpoint is -32020", async () => {
    const h = await start({}, dual)
    const response = await fetch(h.url, {
      method: "POST",
      headers: { accept: ACCEPT, "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tools/list", params: { _meta: meta() } })
    })
    await headerMismatch(response, 4)
  })

  it("a stateless-only server tells a handshake client which revisions would work (-32022)", async () => {
    const h = await start({}, statelessOnly)
    const response = await fetch(h.url, {
      method: "POST",
      headers: { accept: ACCEPT, "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "old", version: "1" } }
      })
    })
    expect(response.status).toBe(400)
    const body = await response.json()
    expect(body).toMatchObject({ id: 1, error: { code: -32022, data: { supported: [V], requested: "2025-11-25" } } })
  })
})

describe("HTTP 2026-07-28: headers encoding", () => {
  it.effect("round trip of the header value encoding", () =>
    Effect.gen(function*() {
      const { HttpHeaders } = yield* Effect.promise(() => import("@effect-mcp/core"))
      for (const value of ["plain", " padded ", "Zürich", "tab\there", "=?base64?abc?=", "", "日本"]) {
        const decoded = HttpHeaders.decodeValue(HttpHeaders.encodeValue(value))
        expect(decoded._tag === "Right" && decoded.right).toBe(value)
      }
      expect(HttpHeaders.encodeValue("plain")).toBe("plain")
      expect(HttpHeaders.encodeValue(42)).toBe("42")
      expect(HttpHeaders.encodeValue(false)).toBe("false")
    }))
})

describeServers("HTTP 2026-07-28: subscriptions/listen", (start) => {
  const listen = (h: Harness, filter: Record<string, unknown>, id: string | number = ++ids) =>
    post(h, "subscriptions/listen", { notifications: filter }, { id })

  const validNotification = (message: any) => {
    const names: Record<string, string> = {
      "notifications/subscriptions/acknowledged": "SubscriptionsAcknowledgedNotification",
      "notifications/tools/list_changed": "ToolListChangedNotification",
      "notifications/resources/updated": "ResourceUpdatedNotification"
    }
    assert.isUndefined(validate(V, names[message.method] ?? "JSONRPCNotification", message))
    return message
  }

  it("one held-open SSE stream: the acknowledgement first, then what it asked for, tagged; closed gracefully", async () => {
    const h = await start({}, dual)
    const response = await listen(h, { toolsListChanged: true, promptsListChanged: true }, "L1")
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toBe("text/event-stream")
    expect(response.headers.get("x-accel-buffering")).toBe("no")
    const stream = new SseReader(response)
    const ack = validNotification(await stream.message())
    expect(ack.method).toBe("notifications/subscriptions/acknowledged")
    expect(ack.params._meta["io.modelcontextprotocol/subscriptionId"]).toBe("L1")
    expect(ack.params.notifications.toolsListChanged).toBe(true)

    await h.run(h.server.addTool(Extra))
    const changed = validNotification(await stream.message())
    expect(changed).toEqual({
      jsonrpc: "2.0",
      method: "notifications/tools/list_changed",
      params: { _meta: { "io.modelcontextprotocol/subscriptionId": "L1" } }
    })

    const [open] = await h.run(h.server.activeSubscriptions)
    expect(open.subscriptionId).toBe("L1")
    expect(await h.run(h.server.closeSubscription(open))).toBe(true)
    const last = await stream.message()
    expect(last).toMatchObject({
      id: "L1",
      result: { resultType: "complete", _meta: { "io.modelcontextprotocol/subscriptionId": "L1" } }
    })
    assert.isUndefined(validate(V, "SubscriptionsListenResultResponse", last))
    expect(await stream.rest()).toEqual([])
    expect(await h.run(h.server.activeSubscriptions)).toEqual([])
  })

  it("a closed stream ends the subscription; the others go on", async () => {
    const h = await start({}, statelessOnly)
    const controller = new AbortController()
    const first = new SseReader(
      await post(h, "subscriptions/listen", { notifications: { toolsListChanged: true } }, {
        id: 1,
        signal: controller.signal
      })
    )
    const second = new SseReader(await listen(h, { toolsListChanged: true }, 1))
    await first.message()
    await second.message()
    expect((await h.run(h.server.activeSubscriptions)).length).toBe(2)
    controller.abort()
    await h.dropped()
    // The server ends the subscription once it saw the drop: nothing announces it.
    await eventually(async () => (await h.run(h.server.activeSubscriptions)).length === 1, undefined, 10)
    expect((await h.run(h.server.activeSubscriptions)).length).toBe(1)
    await h.run(h.server.addTool(Extra))
    expect((await second.message()).method).toBe("notifications/tools/list_changed")
  })

  it("the server's end answers every subscription gracefully before the streams close", async () => {
    const h = await start({}, dual)
    // Streams of their own (the harness's close would abort its own first).
    const own = (id: number) =>
      post(h, "subscriptions/listen", { notifications: { toolsListChanged: true } }, {
        id,
        signal: new AbortController().signal
      })
    const streams = [new SseReader(await own(1)), new SseReader(await own(2))]
    for (const stream of streams) await stream.message()
    const closing = h.close()
    for (const [i, stream] of streams.entries()) {
      expect(await stream.message()).toMatchObject({ id: i + 1, result: { resultType: "complete" } })
    }
    await closing
  })

  it("keep-alive comments on an idle listen; the maximum request duration does not cut it", async () => {
    const h = await start({ maxRequestDuration: "1 second" }, { ...statelessOnly, testClock: true })
    const stream = new SseReader(await listen(h, { toolsListChanged: true }))
    await stream.message()
    await h.adjust("16 seconds")
    const comment = await stream.next()
    expect(comment?.raw).toBe(": keep-alive")
    await h.run(h.server.addTool(Extra))
    expect((await stream.message()).method).toBe("notifications/tools/list_changed")
  })

  it("a bad filter is -32602 with the request's id", async () => {
    const h = await start({}, statelessOnly)
    const response = await post(h, "subscriptions/listen", { notifications: "all" }, { id: 77 })
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ id: 77, error: { code: -32602 } })
  })

  it("maxSubscriptions: past it a listen is 503 with a JSON-RPC error and its id; calls are served; an update reaches exactly its listens", async () => {
    // One client (one address) may hold them all here: the cap itself is what is tested.
    const h = await start({}, {
      ...statelessOnly,
      subscriptionLimits: { maxSubscriptions: 3, maxSubscriptionsPerHolder: 3 }
    })
    const filters = [
      { resourceSubscriptions: ["test://a", "test://shared"] },
      { resourceSubscriptions: ["test://b", "test://shared"] },
      { resourceSubscriptions: ["test://dir/"] }
    ]
    const controllers = filters.map(() => h.controller())
    const streams = await Promise.all(filters.map(async (filter, i) => {
      const response = await post(h, "subscriptions/listen", { notifications: filter }, {
        id: `L${i}`,
        signal: controllers[i].signal
      })
      expect(response.status).toBe(200)
      const stream = new SseReader(response)
      expect(validNotification(await stream.message()).method).toBe("notifications/subscriptions/acknowledged")
      return stream
    }))
    const refused = await listen(h, { toolsListChanged: true }, "L3")
    expect(refused.status).toBe(503)
    const body = await json(refused)
    expect(body).toMatchObject({ jsonrpc: "2.0", id: "L3", error: { code: -32000 } })
    expect(body.error.message).toContain("maxSubscriptions")
    // Everyone else is served while the listens are at the cap.
    const list = await post(h, "tools/list", {}, { id: "list" })
    expect(list.status).toBe(200)
    expect((await json(list)).id).toBe("list")
    // Each update reaches exactly the listens whose filter covers its URI.
    await h.run(h.server.resourceUpdated("test://shared"))
    await h.run(h.server.resourceUpdated("test://dir/x"))
    await h.run(h.server.resourceUpdated("test://none"))
    const uriOf = async (stream: SseReader) => {
      const message = validNotification(await stream.message())
      expect(message.method).toBe("notifications/resources/updated")
      return message.params.uri
    }
    expect(await uriOf(streams[0])).toBe("test://shared")
    expect(await uriOf(streams[1])).toBe("test://shared")
    expect(await uriOf(streams[2])).toBe("test://dir/x")
    await h.run(h.server.resourceUpdated("test://b"))
    expect(await uriOf(streams[1])).toBe("test://b")
    // One ends: another gets in.
    controllers[0].abort()
    await eventually(async () => (await h.run(h.server.activeSubscriptions)).length === 2, undefined, 10)
    const admitted = await listen(h, { toolsListChanged: true }, "L4")
    expect(admitted.status).toBe(200)
    expect(validNotification(await new SseReader(admitted).message()).params._meta).toEqual({
      "io.modelcontextprotocol/subscriptionId": "L4"
    })
  })

  it("a filter past the limits is 400 with -32602, its id and the limit named", async () => {
    const h = await start({}, statelessOnly)
    const uris = (n: number) => Array.from({ length: n }, (_, i) => `test://r/${i}`)
    const many = await listen(h, { resourceSubscriptions: uris(1001) }, "many")
    expect(many.status).toBe(400)
    const manyBody = await json(many)
    expect(manyBody).toMatchObject({ id: "many", error: { code: -32602 } })
    expect(manyBody.error.message).toContain("maxSubscriptionUris (1000)")
    const long = await listen(h, { resourceSubscriptions: ["test://" + "x".repeat(70_000)] }, "long")
    expect(long.status).toBe(400)
    const longBody = await json(long)
    expect(longBody).toMatchObject({ id: "long", error: { code: -32602 } })
    expect(longBody.error.message).toContain("subscriptionMaxLength (65536 characters)")
    expect(await h.run(h.server.activeSubscriptions)).toEqual([])
    // At the limit: acknowledged, every URI echoed.
    const full = await listen(h, { resourceSubscriptions: uris(1000) }, "full")
    expect(full.status).toBe(200)
    const ack = validNotification(await new SseReader(full).message())
    expect(ack.params.notifications).toEqual({ resourceSubscriptions: uris(1000) })
  })
})
