/**
 * The raw lane's POST on undici (`internal/httpPost.ts`), against a local `node:http` server: a
 * JSON answer read whole without undici's `request` API (no `UNDICI_REQUEST` async resource, no
 * `Readable` per response), a body over the limit (declared, or counted as it arrives), a reader
 * that chooses after the body came, an SSE answer read as a web stream, and a dropped body that
 * leaves its connection to the next POST.
 */
import type { McpClientTransport } from "@effect-mcp/client"
import * as Undici from "@effect/platform-node/Undici"
import { assert, describe, it } from "@effect/vitest"
import { createHook } from "node:async_hooks"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import * as HttpPost from "../src/internal/httpPost.js"

const serve = async (handle: (request: IncomingMessage, response: ServerResponse) => void) => {
  const server = createServer((request, response) => {
    request.resume()
    request.on("end", () => handle(request, response))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`
  const agent = new Undici.Agent({ connections: 2, keepAliveTimeout: 4_000, pipelining: 1 })
  return {
    url,
    poster: HttpPost.make(Undici, agent),
    server,
    close: async () => {
      await agent.close()
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  }
}

type Handlers = Parameters<McpClientTransport.HttpPost["post"]>[3]

/** One POST, its response given to `reading` (which settles the promise). */
const postOnce = <A>(
  poster: McpClientTransport.HttpPost,
  url: string,
  reading: (response: McpClientTransport.HttpPostResponse, settle: (a: A) => void, fail: (e: unknown) => void) => void
) =>
  new Promise<A>((resolve, reject) => {
    const handlers: Handlers = { response: (response) => reading(response, resolve, reject), error: reject }
    poster.post(url, { accept: "application/json, text/event-stream" }, "{\"jsonrpc\":\"2.0\",\"id\":1}", handlers)
  })

const readText = (limit: number) =>
(
  response: McpClientTransport.HttpPostResponse,
  settle: (a: string | undefined) => void,
  fail: (e: unknown) => void
) => response.text(limit, settle, fail)

describe("the raw lane's POST on undici", () => {
  it("reads JSON answers whole with no undici request handler per call (no UNDICI_REQUEST resource)", async () => {
    const s = await serve((request, response) => {
      response.writeHead(200, { "content-type": "application/json" }).end(
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"
      )
    })
    try {
      const types: Array<string> = []
      const hook = createHook({ init: (_id, type) => void types.push(type) }).enable()
      const texts: Array<string | undefined> = []
      try {
        for (let i = 0; i < 5; i++) texts.push(await postOnce(s.poster, s.url, readText(1_000)))
      } finally {
        hook.disable()
      }
      assert.deepStrictEqual(texts, Array(5).fill("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"))
      assert.strictEqual(types.filter((type) => type === "UNDICI_REQUEST").length, 0)
    } finally {
      await s.close()
    }
  })

  it("gives undefined for a body over the limit, declared or counted as it arrives, and the next POST is answered", async () => {
    const s = await serve((request, response) => {
      if (request.headers["x-case"] === "declared") {
        response.writeHead(200, { "content-type": "application/json", "content-length": 2_000 }).end("x".repeat(2_000))
        return
      }
      response.writeHead(200, { "content-type": "application/json" })
      response.write("a".repeat(600))
      response.end("b".repeat(600))
    })
    try {
      const declared = await new Promise<string | undefined>((resolve, reject) => {
        s.poster.post(s.url, { "x-case": "declared" }, "{}", {
          response: (response) => response.text(1_000, resolve, reject),
          error: reject
        })
      })
      assert.strictEqual(declared, undefined)
      assert.strictEqual(await postOnce(s.poster, s.url, readText(1_000)), undefined)
      assert.strictEqual(await postOnce(s.poster, s.url, readText(2_000)), "a".repeat(600) + "b".repeat(600))
    } finally {
      await s.close()
    }
  })

  it("hands a reader that chooses after the body came the whole of it", async () => {
    let written!: () => void
    const finished = new Promise<void>((resolve) => (written = resolve))
    const s = await serve((request, response) => {
      response.on("finish", written)
      response.writeHead(200, { "content-type": "application/json" }).end("{\"late\":true}")
    })
    try {
      const text = await postOnce<string | undefined>(s.poster, s.url, (response, settle, fail) => {
        void finished.then(() => setImmediate(() => response.text(1_000, settle, fail)))
      })
      assert.strictEqual(text, "{\"late\":true}")
    } finally {
      await s.close()
    }
  })

  it("reads an SSE answer as a web stream, event by event, and a dropped body leaves its connection", async () => {
    let next!: () => void
    const more = new Promise<void>((resolve) => (next = resolve))
    const s = await serve((request, response) => {
      if (request.headers["x-case"] === "drop") {
        response.writeHead(200, { "content-type": "application/json" }).end("{\"dropped\":true}")
        return
      }
      response.writeHead(200, { "content-type": "text/event-stream" })
      response.write("event: message\ndata: {\"n\":1}\n\n")
      void more.then(() => response.end("event: message\ndata: {\"n\":2}\n\n"))
    })
    try {
      const web = await postOnce<Response>(s.poster, s.url, (response, settle) => settle(response.toWeb()))
      assert.strictEqual(web.status, 200)
      assert.strictEqual(web.headers.get("content-type"), "text/event-stream")
      const reader = web.body!.getReader()
      const decoder = new TextDecoder()
      const first = await reader.read()
      assert.strictEqual(decoder.decode(first.value), "event: message\ndata: {\"n\":1}\n\n")
      next()
      let rest = ""
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        rest += decoder.decode(chunk.value)
      }
      assert.strictEqual(rest, "event: message\ndata: {\"n\":2}\n\n")
      const dropOrRead = (drop: boolean) =>
        new Promise<string | number | undefined>((resolve, reject) => {
          s.poster.post(s.url, { "x-case": "drop" }, "{}", {
            response: (response) => {
              if (!drop) return response.text(1_000, resolve, reject)
              response.discard()
              resolve(response.status)
            },
            error: reject
          })
        })
      assert.strictEqual(await dropOrRead(true), 200)
      assert.strictEqual(await dropOrRead(false), "{\"dropped\":true}")
    } finally {
      await s.close()
    }
  })
})
