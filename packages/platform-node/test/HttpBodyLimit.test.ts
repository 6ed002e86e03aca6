/**
 * the HTTP front and the adapters (nodeHttp.ts, platform.ts): a body over the limit is
 * refused as its bytes arrive, not once the client chose to stop sending; its rest is still read
 * (up to a byte and a time bound) so that no reset overtakes the 413, from a raw `node:net` client.
 */
import { expect, it } from "@effect/vitest"
import * as http from "node:http"
import * as net from "node:net"
import { ACCEPT, describeServers } from "./utils/http.js"

describeServers("the body limit", (start) => {
  it("a chunked body over maxBodyBytes gets its 413 while the client is still sending", async () => {
    const h = await start({ maxBodyBytes: 1024 })
    const outcome = await new Promise<string>((resolve) => {
      const request = http.request({
        host: "127.0.0.1",
        port: h.port,
        method: "POST",
        path: "/mcp",
        headers: { accept: ACCEPT, "content-type": "application/json", "transfer-encoding": "chunked" },
        agent: false
      }, (response) => {
        resolve(`HTTP ${response.statusCode}`)
        response.resume()
      })
      request.on("error", (error) => resolve(`error ${error.message}`))
      // 64 KiB over a 1 KiB limit, and the body is not over yet: the client keeps the request open.
      request.write(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${"x".repeat(64 * 1024)}`)
      const timer = setTimeout(() => {
        resolve("no answer while the body goes on")
        request.destroy()
      }, 2000)
      request.on("close", () => clearTimeout(timer))
    })
    expect(outcome).toBe("HTTP 413")
  })
})

// ---------------------------------------------------------------------------- the rest of a refused body

/** What a raw `node:net` client got back: the bytes as text, and the socket's error if it had one. */
interface Outcome {
  readonly text: string
  readonly error: string | undefined
}

/** Raw request headers for a POST to /mcp; `length` a Content-Length, or undefined for a chunked body. */
const head = (port: number, length: number | undefined): string =>
  `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\naccept: ${ACCEPT}\r\ncontent-type: application/json\r\n` +
  (length === undefined ? "transfer-encoding: chunked\r\n" : `content-length: ${length}\r\n`) + "\r\n"

/** A ping of exactly `length` bytes, its `pad` filling the rest. */
const ping = (length: number): Buffer => {
  const body = Buffer.alloc(length, "x")
  body.write(`{"jsonrpc":"2.0","id":7,"method":"ping","params":{"pad":"`, 0)
  body.write(`"}}`, length - 3)
  return body
}

/** Sends the whole request in one write, as fast as the socket takes it, reading all along; ends with the socket. */
const sendWhole = (port: number, request: Buffer): Promise<Outcome> =>
  new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1")
    let text = ""
    let error: string | undefined
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("latin1")
    })
    socket.on("error", (cause) => {
      error = cause.message
    })
    socket.on("close", () => resolve({ text, error }))
    socket.write(request)
  })

/** The status, headers and body of one HTTP/1.1 response with a Content-Length; throws when it is not whole. */
const parse = (text: string) => {
  const end = text.indexOf("\r\n\r\n")
  if (end < 0) throw new Error(`no whole response head in ${JSON.stringify(text)}`)
  const [status, ...lines] = text.slice(0, end).split("\r\n")
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(":")
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim()
  }
  const body = text.slice(end + 4, end + 4 + Number(headers["content-length"]))
  if (body.length !== Number(headers["content-length"])) throw new Error(`a cut body in ${JSON.stringify(text)}`)
  return { status, headers, body: JSON.parse(body) }
}

const tooLarge = { jsonrpc: "2.0", id: null, error: { code: -32000, message: "Payload Too Large" } }

/** A chunked encoding of `body` in chunks of `size`, with its last chunk. */
const chunked = (body: Buffer, size: number): Buffer => {
  const parts: Array<Buffer> = []
  for (let at = 0; at < body.length; at += size) {
    const part = body.subarray(at, at + size)
    parts.push(Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from("\r\n"))
  }
  parts.push(Buffer.from("0\r\n\r\n"))
  return Buffer.concat(parts)
}

/**
 * Writes the request's headers then body bytes without end, in 64 KiB writes as fast as the socket drains,
 * every `every` ms when given; reads all along. Resolves when the server closes the connection.
 */
const sendForever = (port: number, length: number | undefined, every?: number) =>
  new Promise<Outcome & { readonly written: number; readonly millis: number; readonly answeredAt: number }>(
    (resolve) => {
      const socket = net.connect(port, "127.0.0.1")
      const started = Date.now()
      let text = ""
      let error: string | undefined
      let written = 0
      let answeredAt = -1
      let timer: ReturnType<typeof setTimeout> | undefined
      const piece = Buffer.alloc(64 * 1024, "x")
      const framed = length === undefined ? chunked(piece, piece.length).subarray(0, -5) : piece
      socket.on("data", (chunk: Buffer) => {
        if (answeredAt < 0) answeredAt = Date.now() - started
        text += chunk.toString("latin1")
      })
      socket.on("error", (cause) => {
        error = cause.message
      })
      socket.on("close", () => {
        clearTimeout(timer)
        resolve({ text, error, written, millis: Date.now() - started, answeredAt })
      })
      const pump = () => {
        while (!socket.destroyed) {
          written += piece.length
          if (every !== undefined) {
            socket.write(framed)
            timer = setTimeout(pump, every)
            return
          }
          if (!socket.write(framed)) return void socket.once("drain", pump)
        }
      }
      socket.write(head(port, length), pump)
    }
  )

describeServers("the rest of a refused body", (start) => {
  it("a Content-Length over the limit: the whole 413 arrives, never a reset, 20 times in a row", async () => {
    const h = await start()
    // 4.5 MB against the default 4 MiB limit, sent whole: more than the kernel buffers take at once.
    const request = Buffer.concat([Buffer.from(head(h.port, 4_500_000)), ping(4_500_000)])
    for (let i = 0; i < 20; i++) {
      const outcome = await sendWhole(h.port, request)
      expect({ attempt: i, error: outcome.error }).toEqual({ attempt: i, error: undefined })
      const response = parse(outcome.text)
      expect(response.status).toBe("HTTP/1.1 413 Payload Too Large")
      expect(response.headers.connection).toBe("close")
      expect(response.body).toEqual(tooLarge)
    }
  })

  it("a chunked body over the limit: the whole 413 arrives, never a reset, 20 times in a row", async () => {
    // Refused at its first 64 KiB: nearly all of the 4.5 MB is still to come.
    const h = await start({ maxBodyBytes: 64 * 1024 })
    const request = Buffer.concat([Buffer.from(head(h.port, undefined)), chunked(ping(4_500_000), 64 * 1024)])
    for (let i = 0; i < 20; i++) {
      const outcome = await sendWhole(h.port, request)
      expect({ attempt: i, error: outcome.error }).toEqual({ attempt: i, error: undefined })
      const response = parse(outcome.text)
      expect(response.status).toBe("HTTP/1.1 413 Payload Too Large")
      expect(response.body).toEqual(tooLarge)
    }
  })

  for (const framing of ["Content-Length", "chunked"] as const) {
    it(`a ${framing} body that never ends is read past its 413 up to the byte bound, then cut`, async () => {
      const h = await start({ maxBodyBytes: 64 * 1024 })
      const outcome = await sendForever(h.port, framing === "chunked" ? undefined : 1024 ** 4)
      expect(parse(outcome.text).body).toEqual(tooLarge)
      // Read and dropped up to 16 MiB after the answer (what the client wrote beyond that sits in the
      // kernel's buffers and its own, a few MiB), then the connection closed: well before the time bound.
      expect(outcome.written).toBeGreaterThan(16 * 1024 * 1024)
      expect(outcome.written).toBeLessThan(40 * 1024 * 1024)
      expect(outcome.millis).toBeLessThan(2_500)
    })
  }

  it("a body that trickles on is read past its 413 up to the time bound, then cut", async () => {
    const h = await start({ maxBodyBytes: 64 * 1024 })
    // 64 KiB every 20 ms: about 3 MiB a second, never near the byte bound.
    const outcome = await sendForever(h.port, 1024 ** 4, 20)
    expect(parse(outcome.text).body).toEqual(tooLarge)
    expect(outcome.answeredAt).toBeLessThan(1_000)
    expect(outcome.millis).toBeGreaterThan(2_500)
    expect(outcome.millis).toBeLessThan(5_000)
  })
})
