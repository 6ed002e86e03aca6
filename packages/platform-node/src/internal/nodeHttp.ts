/**
 * `node:http` requests as MCP HTTP exchanges: headers read as they are, the body collected in
 * its `data` callbacks (counted as bytes arrive), a JSON answer written with one `res.end`; one
 * given while the body is still arriving is ended once the rest is read (`answerEarly`).
 */
import type { HttpTransport } from "@effect-mcp/server"
import type { IncomingMessage, ServerResponse } from "node:http"

const header = (request: IncomingMessage, name: string): string | undefined => {
  const value = request.headers[name]
  return Array.isArray(value) ? value.join(", ") : value
}

/** How much of a body still arriving after its answer is read (and dropped), and how long: then the socket is cut. */
const drainBytes = 16 * 1024 * 1024
const drainMillis = 3_000

/**
 * Answers a request whose body is still arriving: the whole answer is written at once, but the
 * response is ended (and, with `connection: close`, the connection closed) only once the rest of
 * the body was read and dropped. Closing a socket with bytes unread resets the connection, and
 * the reset can overtake the answer at the client. A body that goes on past `drainBytes` bytes
 * or `drainMillis` after the answer is cut there.
 */
const answerEarly = (request: IncomingMessage, response: ServerResponse, body: string | undefined) => {
  if (body !== undefined) response.write(body)
  else response.flushHeaders()
  let read = 0
  const stop = () => {
    clearTimeout(timer)
    request.off("data", onData)
    request.off("end", finish)
  }
  const cut = () => {
    stop()
    request.socket.destroy()
  }
  const finish = () => {
    stop()
    response.end()
  }
  const onData = (chunk: Buffer) => {
    read += chunk.length
    if (read > drainBytes) cut()
  }
  const timer = setTimeout(cut, drainMillis)
  request.on("data", onData)
  request.once("end", finish)
  // The client went away first: nothing left to wait for.
  response.once("close", stop)
  request.resume()
}

const readBody = (request: IncomingMessage, maxBytes: number, done: (body: HttpTransport.Body) => void) => {
  const length = request.headers["content-length"]
  // Not read: the answer reads the rest (`answerEarly`).
  if (length !== undefined && Number(length) > maxBytes) return done({ _tag: "TooLarge" })
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
    remoteAddress: request.socket.remoteAddress,
    body: (maxBytes, done) => readBody(request, maxBytes, done),
    reply: (reply) => {
      if (response.headersSent) return
      const early = !request.complete
      // The rest of an oversized body is not kept: the connection closes once it has arrived.
      if (reply.status === 413 && early) response.setHeader("connection", "close")
      // Its length said: writeHead sends the headers as given, and a body without one is chunked.
      if (reply.body !== undefined) response.setHeader("content-length", Buffer.byteLength(reply.body))
      response.writeHead(reply.status, reply.headers as Record<string, string>)
      if (early) answerEarly(request, response, reply.body)
      else response.end(reply.body)
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
