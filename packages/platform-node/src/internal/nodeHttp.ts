/**
 * `node:http` requests as MCP HTTP exchanges: headers read as they are, the body collected in
 * its `data` callbacks (counted as bytes arrive), a JSON answer written with one `res.end`.
 */
import type { HttpTransport } from "@effect-mcp/server"
import type { IncomingMessage, ServerResponse } from "node:http"

const header = (request: IncomingMessage, name: string): string | undefined => {
  const value = request.headers[name]
  return Array.isArray(value) ? value.join(", ") : value
}

const readBody = (request: IncomingMessage, maxBytes: number, done: (body: HttpTransport.Body) => void) => {
  const length = request.headers["content-length"]
  if (length !== undefined && Number(length) > maxBytes) {
    // Not read: Node discards the rest of the body once the response is sent.
    return done({ _tag: "TooLarge" })
  }
  let first: Buffer | undefined
  let more: Array<Buffer> | undefined
  let size = 0
  let over = false
  request.on("data", (chunk: Buffer) => {
    if (over) return
    size += chunk.length
    if (size > maxBytes) {
      // Refused as soon as the limit is crossed, not when the client stops sending.
      over = true
      return done({ _tag: "TooLarge" })
    }
    if (first === undefined) first = chunk
    else (more ??= [first]).push(chunk)
  })
  request.once("end", () => {
    if (over) return
    const text = more !== undefined
      ? Buffer.concat(more, size).toString("utf8")
      : first === undefined
      ? ""
      : first.toString("utf8")
    done({ _tag: "Text", text })
  })
  request.once("error", () => {
    if (!over) done({ _tag: "Failed" })
  })
}

/** The exchange of one `node:http` request. */
export const exchange = (request: IncomingMessage, response: ServerResponse): HttpTransport.Exchange => {
  const url = request.url ?? "/"
  const q = url.indexOf("?")
  // The client went away before the response ended: listeners now, and any added later at once.
  let gone = false
  const listeners: Array<() => void> = []
  response.once("close", () => {
    if (response.writableFinished) return
    gone = true
    for (const listener of listeners) listener()
  })
  return {
    method: request.method ?? "GET",
    path: q < 0 ? url : url.slice(0, q),
    query: q < 0 ? "" : url.slice(q + 1),
    header: (name) => header(request, name),
    body: (maxBytes, done) => readBody(request, maxBytes, done),
    reply: (reply) => {
      if (response.headersSent) return
      if (reply.status === 413 && !request.complete) {
        // The rest of an oversized body is not read: the connection closes after the answer.
        response.setHeader("connection", "close")
        response.once("finish", () => request.destroy())
      }
      // Its length said: writeHead sends the headers as given, and a body without one is chunked.
      if (reply.body !== undefined) response.setHeader("content-length", Buffer.byteLength(reply.body))
      response.writeHead(reply.status, reply.headers as Record<string, string>)
      response.end(reply.body)
    },
    stream: (headers) => {
      response.writeHead(200, headers as Record<string, string>)
      response.flushHeaders()
      return {
        write: (text) => {
          if (!response.writableEnded) response.write(text)
        },
        end: () => {
          if (!response.writableEnded) response.end()
        }
      }
    },
    onClose: (listener) => {
      if (gone) listener()
      else listeners.push(listener)
    }
  }
}
