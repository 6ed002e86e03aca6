/**
 * Our client against hostile HTTP servers: every buffer bounded, nothing answered that should not
 * be, no header sent to an origin it was not configured for, and each failure a typed error of
 * its own, at once (never the 60-second timeout).
 */
import { ClientError, McpClient, McpClientTransport } from "@effect-mcp/client"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as http from "node:http"
import type * as net from "node:net"
import * as zlib from "node:zlib"

interface Seen {
  readonly method: string
  readonly url: string
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
}

type Handle = (seen: Seen, response: http.ServerResponse, all: ReadonlyArray<Seen>) => void

/** An HTTP server on 127.0.0.1 answering with `handle`, for the scope; its URL and what it was sent. */
const serve = (handle: Handle, host = "127.0.0.1") =>
  Effect.gen(function*() {
    const all: Array<Seen> = []
    const server = yield* Effect.acquireRelease(
      Effect.async<http.Server>((resume) => {
        const server = http.createServer((request, response) => {
          const chunks: Array<Buffer> = []
          request.on("data", (chunk: Buffer) => chunks.push(chunk))
          request.on("end", () => {
            const seen = {
              method: request.method ?? "",
              url: request.url ?? "",
              headers: request.headers,
              body: Buffer.concat(chunks).toString("utf8")
            }
            all.push(seen)
            handle(seen, response, all)
          })
        })
        server.listen(0, host, () => resume(Effect.succeed(server)))
      }),
      (server) =>
        Effect.async<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    const port = (server.address() as net.AddressInfo).port
    return { url: `http://${host}:${port}/mcp`, origin: `http://${host}:${port}`, all }
  })

const initializeResult = (id: unknown) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "h", version: "1" } }
  })

/** A handshake server: `initialize` answered properly, the rest (GETs too, with `gets`) by `rest`. */
const handshake = (rest: Handle, gets = false): Handle => (seen, response, all) => {
  if (gets && seen.method === "GET") return rest(seen, response, all)
  if (seen.method === "DELETE" || seen.method === "GET") {
    response.writeHead(405)
    response.end()
    return
  }
  const message = JSON.parse(seen.body)
  if (message.method === "initialize") {
    response.writeHead(200, { "content-type": "application/json", "mcp-session-id": "s1" })
    response.end(initializeResult(message.id))
  } else if (message.id === undefined) {
    response.writeHead(202)
    response.end()
  } else rest(seen, response, all)
}

/** A client for the test's scope (`clientOptions`: the client's own, besides its name and era). */
const client = (
  url: string,
  options: Partial<McpClientTransport.HttpOptions> = {},
  clientOptions: Partial<McpClient.Options> = {}
) =>
  Effect.map(
    Layer.build(
      McpClient.layer({
        clientInfo: { name: "t", version: "1" },
        era: "handshake",
        timeout: "20 seconds",
        ...clientOptions
      }).pipe(
        Layer.provide(McpClientTransport.layerHttp({ url, headers: { authorization: "Bearer secret" }, ...options })),
        Layer.provide(FetchHttpClient.layer)
      )
    ),
    (context) => Context.get(context, McpClient.McpClient)
  )

const idOf = (seen: Seen) => JSON.parse(seen.body).id

describe("the client against a hostile HTTP server", () => {
  it.scopedLive("a JSON answer larger than maxMessageSize: MessageTooLarge, at once, the body unread", () =>
    Effect.gen(function*() {
      const { url } = yield* serve(handshake((_seen, response) => {
        response.writeHead(200, { "content-type": "application/json" })
        // 64 MiB of one string, in 1 MiB writes, without a Content-Length: the client stops reading.
        const mib = "x".repeat(1024 * 1024)
        let left = 64
        const more = () => {
          while (left > 0) {
            left--
            if (!response.write(mib)) return void response.once("drain", more)
          }
          response.end()
        }
        response.write("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[],\"pad\":\"")
        more()
      }))
      const c = yield* client(url, { maxMessageSize: 1024 * 1024 })
      const error = yield* Effect.flip(c.listTools)
      assert.deepStrictEqual(error, new ClientError.MessageTooLarge({ method: "tools/list", limit: 1024 * 1024 }))
    }))

  it.scopedLive("an answer nested deeper than maxDepth fails its request at once (-32600), never parsed further", () =>
    Effect.gen(function*() {
      const deep = (n: number): unknown => n === 0 ? "bottom" : { in: deep(n - 1) }
      const { url } = yield* serve(handshake((seen, response) => {
        response.writeHead(200, { "content-type": "application/json" })
        response.end(JSON.stringify({ jsonrpc: "2.0", id: idOf(seen), result: { tools: [], deep: deep(20) } }))
      }))
      // The default (128) takes it; 8 does not.
      assert.deepStrictEqual(yield* (yield* client(url)).listTools, [])
      const error = yield* Effect.flip((yield* client(url, { maxDepth: 8 })).listTools)
      assert.strictEqual(error._tag, "InvalidRequest")
      assert.include(error.message, "nest")
    }))

  it.scopedLive("a compressed answer is bounded by its decoded size, not by its Content-Length", () =>
    Effect.gen(function*() {
      const { url } = yield* serve(handshake((seen, response) => {
        // 8 MiB of JSON, a few KiB gzipped: the length said is the small one.
        const body = zlib.gzipSync(
          JSON.stringify({ jsonrpc: "2.0", id: idOf(seen), result: { tools: [], pad: "x".repeat(8 * 1024 * 1024) } })
        )
        response.writeHead(200, {
          "content-type": "application/json",
          "content-encoding": "gzip",
          "content-length": String(body.length)
        })
        response.end(body)
      }))
      const c = yield* client(url, { maxMessageSize: 1024 * 1024 })
      assert.deepStrictEqual(
        yield* Effect.flip(c.listTools),
        new ClientError.MessageTooLarge({ method: "tools/list", limit: 1024 * 1024 })
      )
    }))

  it.scopedLive("a Content-Length past the limit is refused before the body is read", () =>
    Effect.gen(function*() {
      const { url } = yield* serve(handshake((_seen, response) => {
        response.writeHead(200, { "content-type": "application/json", "content-length": String(200 * 1024 * 1024) })
        response.write("{")
      }))
      const c = yield* client(url, { maxMessageSize: 1024 * 1024 })
      assert.strictEqual((yield* Effect.flip(c.listTools))._tag, "MessageTooLarge")
    }))

  for (
    const [name, endless] of [
      ["data: lines without a blank line", "data: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n"],
      ["bytes without a newline", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"]
    ] as const
  ) {
    it.scopedLive(`an SSE answer of endless ${name}: MessageTooLarge once past the limit`, () =>
      Effect.gen(function*() {
        const { url } = yield* serve(handshake((_seen, response) => {
          response.writeHead(200, { "content-type": "text/event-stream" })
          const chunk = endless.repeat(1000)
          const more = () => {
            while (!response.destroyed && response.write(chunk)) {
              // until the socket pushes back
            }
            if (!response.destroyed) response.once("drain", more)
          }
          response.on("close", () => response.destroy())
          more()
        }))
        const c = yield* client(url, { maxMessageSize: 256 * 1024 })
        const error = yield* Effect.flip(c.listTools)
        assert.deepStrictEqual(error, new ClientError.MessageTooLarge({ method: "tools/list", limit: 256 * 1024 }))
      }))
  }

  it.scopedLive("unparseable events are dropped, never answered: one POST per request, no error POSTs", () =>
    Effect.gen(function*() {
      const { all, url } = yield* serve(handshake((seen, response) => {
        response.writeHead(200, { "content-type": "text/event-stream" })
        for (let i = 0; i < 50; i++) response.write(`data: not json ${i}\n\n`)
        response.write(`data: {"jsonrpc":"2.0","id":77,"method":12}\n\n`)
        response.end(`data: ${JSON.stringify({ jsonrpc: "2.0", id: idOf(seen), result: { tools: [] } })}\n\n`)
      }))
      const c = yield* client(url)
      assert.deepStrictEqual(yield* c.listTools, [])
      // initialize, notifications/initialized, tools/list, and the standalone GET: nothing else.
      const posts = all.filter((seen) => seen.method === "POST").map((seen) => JSON.parse(seen.body).method)
      assert.deepStrictEqual(posts, ["initialize", "notifications/initialized", "tools/list"])
    }))

  it.scopedLive("a JSON body batching the answer with garbage: the answer counts, the garbage is never answered", () =>
    Effect.gen(function*() {
      const { all, url } = yield* serve(handshake((seen, response) => {
        response.writeHead(200, { "content-type": "application/json" })
        const answer = { jsonrpc: "2.0", id: idOf(seen), result: { tools: [] } }
        response.end(JSON.stringify([answer, { jsonrpc: "2.0", id: 77, method: 12 }, { garbage: true }, 42]))
      }))
      const c = yield* client(url)
      assert.deepStrictEqual(yield* c.listTools, [])
      // A second call: what the first one's garbage made the client send (an error POST per item,
      // before the fix) is posted before this call's answer comes back.
      assert.deepStrictEqual(yield* c.listTools, [])
      const posts = all.filter((seen) => seen.method === "POST").map((seen) => JSON.parse(seen.body).method)
      assert.deepStrictEqual(posts, ["initialize", "notifications/initialized", "tools/list", "tools/list"])
    }))

  it.scopedLive("a JSON answer with another id fails at once, naming both ids", () =>
    Effect.gen(function*() {
      const { url } = yield* serve(handshake((seen, response) => {
        response.writeHead(200, { "content-type": "application/json" })
        response.end(JSON.stringify({ jsonrpc: "2.0", id: idOf(seen) + 100, result: { tools: [] } }))
      }))
      const c = yield* client(url)
      // At once: at the request's timeout it would be a RequestTimeout, not this.
      const error = yield* Effect.flip(c.listTools)
      assert.instanceOf(error, ClientError.UnexpectedAnswer)
      assert.strictEqual(error.message, "tools/list (id 1) was answered with the answer to id 101")
    }))

  it.scopedLive("a redirect to another origin is not followed: HttpError, and the other origin hears nothing", () =>
    Effect.gen(function*() {
      const elsewhere = yield* serve((_seen, response) => {
        response.writeHead(200, { "content-type": "application/json" })
        response.end("{}")
      }, "127.0.0.2")
      const { url } = yield* serve(handshake((_seen, response) => {
        response.writeHead(307, { location: `${elsewhere.origin}/steal` })
        response.end()
      }))
      const c = yield* client(url)
      const error = yield* Effect.flip(c.listTools)
      assert.instanceOf(error, ClientError.HttpError)
      assert.strictEqual(error.status, 307)
      assert.strictEqual(
        error.message,
        `tools/list: POST ${url} answered HTTP 307 (a redirect to another origin, ${elsewhere.origin}, is not followed)`
      )
      assert.strictEqual(elsewhere.all.length, 0)
    }))

  it.scopedLive("a 307 to the same origin is followed: the POST, its body and its headers again", () =>
    Effect.gen(function*() {
      const { all, url } = yield* serve(handshake((seen, response) => {
        if (seen.url === "/mcp") {
          response.writeHead(307, { location: "/moved" })
          response.end()
          return
        }
        response.writeHead(200, { "content-type": "application/json" })
        response.end(JSON.stringify({ jsonrpc: "2.0", id: idOf(seen), result: { tools: [] } }))
      }))
      const c = yield* client(url)
      assert.deepStrictEqual(yield* c.listTools, [])
      const moved = all.find((seen) => seen.url === "/moved")!
      assert.strictEqual(JSON.parse(moved.body).method, "tools/list")
      assert.strictEqual(moved.headers.authorization, "Bearer secret")
      assert.strictEqual(moved.headers["mcp-session-id"], "s1")
    }))

  it.scopedLive("a 401 with WWW-Authenticate: HttpError carrying the parsed challenges", () =>
    Effect.gen(function*() {
      const { url } = yield* serve(handshake((_seen, response) => {
        response.writeHead(401, {
          "content-type": "application/json",
          "www-authenticate":
            `Bearer realm="mcp", error="invalid_token", error_description="The token \\"expired\\"", resource_metadata="https://as.example/.well-known/oauth-protected-resource", Basic realm=x`
        })
        response.end(`{"error":"invalid_token"}`)
      }))
      const c = yield* client(url)
      const error = yield* Effect.flip(c.listTools)
      assert.instanceOf(error, ClientError.HttpError)
      assert.strictEqual(error.status, 401)
      assert.strictEqual(error.body, `{"error":"invalid_token"}`)
      assert.deepStrictEqual(error.challenges, [
        {
          scheme: "bearer",
          params: {
            realm: "mcp",
            error: "invalid_token",
            error_description: "The token \"expired\"",
            resource_metadata: "https://as.example/.well-known/oauth-protected-resource"
          }
        },
        { scheme: "basic", params: { realm: "x" } }
      ])
    }))

  it.scopedLive("nothing listening: ConnectionFailed naming the address and the reason", () =>
    Effect.gen(function*() {
      // A port that was just free.
      const { url } = yield* Effect.scoped(serve(() => {}))
      const error = yield* Effect.flip(client(url))
      assert.instanceOf(error, ClientError.ConnectionFailed)
      assert.strictEqual(error.message, `cannot connect to ${url} (connection refused)`)
    }))
})

describe("the client lets go of what a hostile server holds", () => {
  it.scopedLive("a session's call that times out lets its POST go: the stream is closed and the cancel posted", () =>
    Effect.gen(function*() {
      let closed = 0
      const { all, url } = yield* serve(handshake((_seen, response) => {
        // An answer that never comes, on a stream held open.
        response.writeHead(200, { "content-type": "text/event-stream" })
        response.write(": waiting\n\n")
        response.on("close", () => closed++)
      }))
      const c = yield* client(url)
      const error = yield* Effect.flip(c.callTool("hang", {}, { timeout: "300 millis" }))
      assert.strictEqual(error._tag, "RequestTimeout")
      yield* eventually(() => closed === 1 && all.some((seen) => seen.body.includes("notifications/cancelled")))
    }))

  it.scopedLive("a stream resumed again and again without an event is given up, at the server's retry (at least 100 ms)", () =>
    Effect.gen(function*() {
      const { all, url } = yield* serve(handshake((seen, response) => {
        response.writeHead(200, { "content-type": "text/event-stream" })
        // A priming event with an id and a retry of 0, then the end: resume, forever.
        response.end(seen.method === "POST" ? "id: e1\nretry: 0\ndata:\n\n" : "")
      }, true))
      const c = yield* client(url)
      const error = yield* Effect.flip(c.listTools)
      assert.instanceOf(error, ClientError.UnexpectedAnswer)
      assert.strictEqual(
        error.message,
        "tools/list (id 1) was answered with an event stream resumed 5 times without an event"
      )
      // Five resumptions from its last event id, each after the retry (100 ms at the least).
      const gets = all.filter((seen) => seen.method === "GET" && seen.headers["last-event-id"] === "e1")
      assert.strictEqual(gets.length, 5)
    }))
})

/**
 * Waits until `check` holds, polled every 10 ms (what the test's server saw is not announced): 30 s
 * only bound what never comes.
 */
const eventually = (check: () => boolean) =>
  Effect.gen(function*() {
    for (let i = 0; i < 3000 && !check(); i++) yield* Effect.sleep("10 millis")
    assert.isTrue(check(), "the condition never held")
  })

describe("the legacy HTTP+SSE fallback against a hostile server", () => {
  it.scopedLive("an endpoint on another origin is refused: nothing is posted there, the headers never leave", () =>
    Effect.gen(function*() {
      const elsewhere = yield* serve((_seen, response) => {
        response.writeHead(202)
        response.end()
      }, "127.0.0.2")
      const { url } = yield* serve((seen, response) => {
        if (seen.method === "POST") {
          response.writeHead(405)
          response.end()
          return
        }
        response.writeHead(200, { "content-type": "text/event-stream" })
        response.write(`event: endpoint\ndata: ${elsewhere.origin}/messages\n\n`)
      })
      const error = yield* Effect.flip(client(url))
      assert.instanceOf(error, ClientError.ConnectionFailed)
      assert.strictEqual(
        error.message,
        `cannot connect to ${url} (the server's endpoint is on another origin, ${elsewhere.origin}, where this client sends nothing)`
      )
      assert.strictEqual(elsewhere.all.length, 0)
    }))

  it.scopedLive("an event stream that ends before its endpoint fails the connection at once", () =>
    Effect.gen(function*() {
      const { url } = yield* serve((seen, response) => {
        if (seen.method === "POST") {
          response.writeHead(405)
          response.end()
          return
        }
        response.writeHead(200, { "content-type": "text/event-stream" })
        response.end(": no endpoint\n\n")
      })
      const error = yield* Effect.flip(client(url))
      assert.instanceOf(error, ClientError.ConnectionFailed)
      assert.strictEqual(
        error.message,
        `cannot connect to ${url} (the event stream ended before it named the endpoint to post to)`
      )
    }))
})

describe("the client against a listing that never ends", () => {
  /** Each list method's answer: `next(cursor)` its next cursor, one item of `size` characters a page. */
  const listing = (next: (cursor: string) => string | undefined, size = 10) =>
    handshake((seen, response) => {
      const { id, method, params } = JSON.parse(seen.body)
      const cursor: string = params?.cursor ?? ""
      const field = {
        "tools/list": "tools",
        "prompts/list": "prompts",
        "resources/list": "resources",
        "resources/templates/list": "resourceTemplates"
      }[method as string]!
      const name = `${method}-${cursor}-${"x".repeat(size)}`
      const item = field === "tools"
        ? { name, inputSchema: { type: "object" } }
        : field === "resources"
        ? { uri: `demo://${name}`, name }
        : field === "resourceTemplates"
        ? { uriTemplate: `demo://${name}/{x}`, name }
        : { name }
      const nextCursor = next(cursor)
      response.writeHead(200, { "content-type": "application/json" })
      response.end(JSON.stringify({
        jsonrpc: "2.0",
        id,
        result: { [field]: [item], ...(nextCursor === undefined ? {} : { nextCursor }) }
      }))
    })
  const asked = (all: ReadonlyArray<Seen>, method: string) =>
    all.filter((seen) => seen.method === "POST" && JSON.parse(seen.body).method === method).length

  it.scopedLive("a nextCursor past maxPages fails each listing with ListingExceeded, never a silent part", () =>
    Effect.gen(function*() {
      const { all, url } = yield* serve(listing((cursor) => `${cursor}n`))
      const c = yield* client(url, {}, { maxPages: 7 })
      for (
        const [method, list] of [
          ["tools/list", c.listTools],
          ["prompts/list", c.listPrompts],
          ["resources/list", c.listResources],
          ["resources/templates/list", c.listResourceTemplates]
        ] as const
      ) {
        const error = yield* Effect.flip(list as Effect.Effect<unknown, ClientError.ClientError>)
        assert.deepStrictEqual(error, new ClientError.ListingExceeded({ method, unit: "pages", limit: 7, pages: 7 }))
        assert.strictEqual(asked(all, method), 7)
      }
    }))

  it.scopedLive("a cursor given twice ends the listing at once: ListingExceeded, no page asked again", () =>
    Effect.gen(function*() {
      // a → b → a → b ...: without the check, 100 pages (maxPages' default) of the same two.
      const { all, url } = yield* serve(listing((cursor) => cursor === "a" ? "b" : "a"))
      const error = yield* Effect.flip((yield* client(url)).listTools)
      assert.deepStrictEqual(
        error,
        new ClientError.ListingExceeded({ method: "tools/list", unit: "repeated cursor", limit: 3, pages: 3 })
      )
      assert.strictEqual(asked(all, "tools/list"), 3)
    }))

  it.scopedLive("items past maxListingBytes fail the listing, the pages after them never asked", () =>
    Effect.gen(function*() {
      // Ten pages of one 100 KB tool each, then none: 1 MB in all, past a 300 KB bound at the third.
      const { all, url } = yield* serve(listing((cursor) => cursor.length < 9 ? `${cursor}n` : undefined, 100_000))
      assert.strictEqual((yield* (yield* client(url)).listTools).length, 10)
      const before = asked(all, "tools/list")
      const error = yield* Effect.flip((yield* client(url, {}, { maxListingBytes: 300_000 })).listTools)
      assert.instanceOf(error, ClientError.ListingExceeded)
      assert.deepStrictEqual([error.unit, error.limit, error.pages], ["bytes", 300_000, 3])
      assert.strictEqual(asked(all, "tools/list") - before, 3)
    }))
})
