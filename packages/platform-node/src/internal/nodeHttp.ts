/**
 * `node:http` requests as MCP HTTP exchanges: headers read as they are, the body collected in
 * its `data` callbacks (counted as bytes arrive), a JSON answer written with one `res.end`; one
 * given while the body is still arriving is ended once the rest is read (`answerEarly`).
 *
 * Every answer's bytes are counted in its connection's `WriteAccount` from the write until Node
 * says they were written out (the write's callback): a write the account refuses is not made
 * (the account closed the connection). What a response has to write goes out one piece at a time
 * (`pump`), each released as it is written, so that a reader that keeps up shows it.
 */
import type { HttpTransport } from "@effect-mcp/server"
import type { IncomingMessage, ServerResponse } from "node:http"

/**
 * A request header (lowercase name). (`IncomingMessage.headers` is built for every HTTP/1.1
 * request anyway: Node's server reads `expect` from it before the request is handed over.)
 */
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

const readBody = (request: IncomingMessage, maxBytes: number, given: (body: HttpTransport.Body) => void) => {
  const length = request.headers["content-length"]
  // Not read: the answer reads the rest (`answerEarly`).
  if (length !== undefined && Number(length) > maxBytes) return given({ _tag: "TooLarge" })
  // The listeners stay on the request as long as it lives (a listen: hours); what they hold (the
  // bytes, the callback and what it holds: the request's handling) need not, once it is read.
  let done: ((body: HttpTransport.Body) => void) | undefined = given
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
      const told = done!
      first = more = done = undefined
      return told({ _tag: "TooLarge" })
    }
    if (first === undefined) first = chunk
    else (more ??= [first]).push(chunk)
  })
  // `on`, not `once`: a request ends (or fails) once, and `once` wraps each listener.
  request.on("end", () => {
    if (over) return
    over = true
    const text = more !== undefined
      ? Buffer.concat(more, size).toString("utf8")
      : first === undefined
      ? ""
      : first.toString("utf8")
    const told = done!
    first = more = done = undefined
    told({ _tag: "Text", text })
  })
  request.on("error", () => {
    if (over) return
    over = true
    const told = done!
    first = more = done = undefined
    told({ _tag: "Failed" })
  })
}

/** Texts are written in pieces of at most this many characters. */
const piece = 256 * 1024

/**
 * Writes texts on a response in order, one piece at a time: the next piece once Node has written
 * out the one before (its callback). What waits is here, counted in `account` until written out,
 * so a reader that keeps up shows it piece by piece (Node would give a queue of writes to the
 * system in one go, and say nothing until all of it is out). One object, its steps methods: a
 * held-open stream (an idle listen) keeps no closures of its own.
 */
class Pump {
  readonly queue: Array<{ readonly text: string; readonly bytes: number }> = []
  current: { readonly text: string; at: number; left: number } | undefined = undefined
  writing = false
  ending = false

  constructor(readonly response: ServerResponse, readonly account: HttpTransport.WriteAccount) {}

  /**
   * The connection went (closed by the budget, or by the client): what waits is let go now, not
   * when the response is (a request still running keeps its response, and what waited on a
   * connection the budget closed is no longer counted in it). Called by the exchange's `close`.
   */
  drop(): void {
    this.queue.length = 0
    this.current = undefined
  }

  write(text: string, bytes: number): void {
    this.queue.push({ text, bytes })
    if (!this.writing) this.next()
  }

  end(): void {
    this.ending = true
    if (!this.writing && this.current === undefined && this.queue.length === 0) this.response.end()
  }

  next(): void {
    const { response, queue } = this
    this.writing = false
    if (response.destroyed) return
    let current = this.current
    if (current === undefined) {
      const first = queue.shift()
      if (first === undefined) {
        if (this.ending) response.end()
        return
      }
      // Small texts waiting together go out in one write.
      let text = first.text
      let bytes = first.bytes
      while (queue.length > 0 && text.length + queue[0].text.length <= piece) {
        const more = queue.shift()!
        text += more.text
        bytes += more.bytes
      }
      current = { text, at: 0, left: bytes }
    }
    const { at, text } = current
    let to = Math.min(at + piece, text.length)
    // A surrogate pair stays whole.
    const last = text.charCodeAt(to - 1)
    if (to < text.length && last >= 0xd800 && last <= 0xdbff) to++
    const part = at === 0 && to === text.length ? text : text.slice(at, to)
    const bytes = to === text.length ? current.left : Buffer.byteLength(part)
    current.left -= bytes
    current.at = to
    this.current = to === text.length ? undefined : current
    this.writing = true
    response.write(part, () => {
      this.account.release(bytes)
      this.next()
    })
  }
}

/**
 * One connection of a `node:http` server: what it has waiting to be written (`account`, its
 * `maxBufferedBytes`), and how many of its requests are being answered (`answering`: one with
 * none closes at once when the server closes), counted down as each response closes.
 */
export class Connection {
  answering = 0
  constructor(readonly account: HttpTransport.WriteAccount) {}
}

/** An open SSE response of an exchange: its writes go through the exchange's pump. */
class NodeStream implements HttpTransport.ResponseStream {
  ended = false
  constructor(readonly exchange: NodeExchange) {}
  write(text: string): void {
    if (this.ended || this.exchange.response.destroyed) return
    const bytes = Buffer.byteLength(text)
    if (this.exchange.connection.account.add(bytes)) this.exchange.out().write(text, bytes)
  }
  end(): void {
    if (this.ended) return
    this.ended = true
    this.exchange.out().end()
  }
}

/**
 * The exchange of one `node:http` request, its writes counted in its connection's account, its
 * connection's `answering` counted down once the response closes, however it ends (one `close`
 * listener a request serves both). Its calls are methods (an exchange is one object and one
 * listener, not a closure per call: an idle listen holds its exchange for as long as it is open).
 */
class NodeExchange implements HttpTransport.Exchange {
  readonly method: string
  readonly path: string
  readonly query: string
  readonly remoteAddress: string | undefined
  /** Made when a response first writes in pieces (a large answer, a stream): most never do. */
  pumped: Pump | undefined = undefined
  /** The client went away before the response ended: listeners now, and any added later at once. */
  gone = false
  listeners: Array<() => void> | undefined = undefined
  /**
   * The bytes of a whole answer (`reply`), released when the response closes: Node closes it once
   * they are written out (after `finish`), or when the connection goes (its account closes then).
   */
  replied = 0

  constructor(readonly request: IncomingMessage, readonly response: ServerResponse, readonly connection: Connection) {
    const url = request.url ?? "/"
    const q = url.indexOf("?")
    this.method = request.method ?? "GET"
    this.path = q < 0 ? url : url.slice(0, q)
    this.query = q < 0 ? "" : url.slice(q + 1)
    this.remoteAddress = request.socket.remoteAddress
    response.on("close", () => this.closed())
  }

  closed(): void {
    this.connection.answering--
    if (this.replied > 0) this.connection.account.release(this.replied)
    this.pumped?.drop()
    if (this.response.writableFinished) return
    this.gone = true
    if (this.listeners !== undefined) { for (const listener of this.listeners) listener() }
  }

  out(): Pump {
    return this.pumped ??= new Pump(this.response, this.connection.account)
  }

  header(name: string): string | undefined {
    return header(this.request, name)
  }

  body(maxBytes: number, done: (body: HttpTransport.Body) => void): void {
    readBody(this.request, maxBytes, done)
  }

  reply(reply: HttpTransport.Reply): void {
    const { request, response } = this
    if (response.headersSent) return
    const early = !request.complete
    // The rest of an oversized body is not kept: the connection closes once it has arrived.
    if (reply.status === 413 && early) response.setHeader("connection", "close")
    const bytes = reply.body === undefined ? 0 : Buffer.byteLength(reply.body)
    const account = this.connection.account
    // Over a bound: the connection is closed, and the answer not written.
    if (!account.add(bytes)) return
    // Its length said: writeHead sends the headers as given, and a body without one is chunked.
    // (Given to writeHead with the others: a header set before it makes Node merge the two.)
    response.writeHead(
      reply.status,
      (reply.body === undefined ? reply.headers : { ...reply.headers, "content-length": bytes }) as Record<
        string,
        string | number
      >
    )
    if (early) {
      // The answers given early are short refusals: counted as written at once.
      account.release(bytes)
      answerEarly(request, response, reply.body)
    } else if (reply.body === undefined) response.end()
    else if (reply.body.length <= piece) {
      this.replied = bytes
      response.end(reply.body)
    } else {
      this.out().write(reply.body, bytes)
      this.out().end()
    }
  }

  stream(headers: Parameters<HttpTransport.Exchange["stream"]>[0]): HttpTransport.ResponseStream {
    this.response.writeHead(200, headers as Record<string, string>)
    this.response.flushHeaders()
    return new NodeStream(this)
  }

  onClose(listener: () => void): void {
    if (this.gone) listener()
    else (this.listeners ??= []).push(listener)
  }
}

/** The exchange of one `node:http` request on `connection` (`NodeExchange`). */
export const exchange = (
  request: IncomingMessage,
  response: ServerResponse,
  connection: Connection
): HttpTransport.Exchange => new NodeExchange(request, response, connection)
