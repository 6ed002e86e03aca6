/**
 * The client of the HTTP benchmarks (`http.ts`, `memory.ts`): HTTP/1.1 over raw `node:net`
 * sockets, keep-alive, one request in flight per connection, one MCP session per connection.
 *
 * Requests are written as text: the headers of a session are built once, the body of each call
 * is formatted from its id. Responses are parsed only as far as needed: the status, the headers
 * `Content-Length`, `Transfer-Encoding: chunked` and `Mcp-Session-Id`, and the body, whether
 * plain JSON or an SSE stream (the SDK's default), which is then only searched (a result, no
 * error, the right sum), never parsed. Sockets are read as latin1, so string length is byte
 * length and nothing is decoded.
 *
 * `fetchLoad` drives the same requests with Node's `fetch` (undici), to compare clients.
 */
import { connect, type Socket } from "node:net"
import { type Envelope, isGoodAdd } from "./envelope.js"
import { BenchFailure } from "./proc.js"

/** How long without any answer before a benchmark gives up (BENCH_HTTP_STALL_MILLIS: more under callgrind). */
const stallMillis = Number(process.env.BENCH_HTTP_STALL_MILLIS ?? 30_000)

export interface Target {
  readonly port: number
  /** The MCP endpoint, e.g. `/mcp`. */
  readonly path: string
  /** Header lines sent with every request, each ending in CRLF (a Worker's `CF-Connecting-IP`). */
  readonly headers?: string | undefined
}

export interface Response {
  readonly status: number
  /** The raw header block, without the final blank line. */
  readonly head: string
  readonly body: string
  readonly sessionId: string | undefined
}

const headerValue = (head: string, lower: string, name: string): string | undefined => {
  const at = lower.indexOf(`\r\n${name}:`)
  if (at < 0) return undefined
  const start = at + name.length + 3
  const end = lower.indexOf("\r\n", start)
  return head.slice(start, end < 0 ? head.length : end).trim()
}

const dial = (target: Target): Promise<Socket> =>
  new Promise((resolve, reject) => {
    const socket = connect({ port: target.port, host: "127.0.0.1", noDelay: true })
    socket.once("connect", () => {
      socket.off("error", reject)
      resolve(socket)
    })
    socket.once("error", reject)
  })

/** One keep-alive HTTP/1.1 connection; one request at a time. */
export class Connection {
  private socket: Socket
  private buf = ""
  private headEnd = -1
  private status = 0
  private head = ""
  private sessionId: string | undefined = undefined
  /** Body length, or -1 for chunked. */
  private length = 0
  private chunkAt = 0
  private chunks = ""
  private waiting: ((response: Response | Error) => void) | undefined = undefined
  closed = false

  private constructor(socket: Socket, readonly target: Target) {
    this.socket = socket
    this.attach()
  }

  static async open(target: Target): Promise<Connection> {
    return new Connection(await dial(target), target)
  }

  private attach() {
    this.closed = false
    this.socket.setEncoding("latin1")
    this.socket.on("data", (chunk: string) => this.onData(chunk))
    const gone = (error?: Error) => {
      this.closed = true
      const waiting = this.waiting
      this.waiting = undefined
      waiting?.(new BenchFailure(`connection closed while waiting for a response${error ? `: ${error.message}` : ""}`))
    }
    this.socket.on("error", gone)
    this.socket.on("close", () => gone())
  }

  /** Reconnects a connection the server closed while it was idle (its keep-alive timeout). */
  async reopen(): Promise<void> {
    if (!this.closed) return
    this.socket = await dial(this.target)
    this.buf = ""
    this.headEnd = -1
    this.attach()
  }

  /** Writes a whole request; `onResponse` gets its response (or the error that ended the connection). */
  send(request: string, onResponse: (response: Response | Error) => void): void {
    if (this.closed) return onResponse(new BenchFailure("connection closed"))
    this.waiting = onResponse
    this.socket.write(request, "latin1")
  }

  /**
   * `send` as a promise, reconnecting first if the server closed the idle connection, and once
   * more if it closed it just as the request went out (the keep-alive race). Fails after
   * `stallMillis` without an answer.
   */
  async request(request: string): Promise<Response> {
    const once = async () => {
      await this.reopen()
      return new Promise<Response>((resolve, reject) => {
        const timer = setTimeout(() => {
          this.waiting = undefined
          reject(new BenchFailure(`no answer for ${stallMillis / 1000} s`))
        }, stallMillis)
        this.send(request, (response) => {
          clearTimeout(timer)
          if (response instanceof Error) reject(response)
          else resolve(response)
        })
      })
    }
    try {
      return await once()
    } catch (error) {
      if (!this.closed || this.buf.length > 0) throw error
      return once()
    }
  }

  close(): void {
    this.closed = true
    this.waiting = undefined
    this.socket.destroy()
  }

  private onData(chunk: string) {
    this.buf = this.buf.length === 0 ? chunk : this.buf + chunk
    for (;;) {
      if (this.headEnd < 0) {
        const at = this.buf.indexOf("\r\n\r\n")
        if (at < 0) return
        const head = this.buf.slice(0, at)
        const lower = head.toLowerCase()
        this.head = head
        this.status = Number(head.slice(9, 12))
        this.sessionId = headerValue(head, lower, "mcp-session-id")
        const length = headerValue(head, lower, "content-length")
        const encoding = headerValue(head, lower, "transfer-encoding")
        // No length and not chunked: only bodiless answers (202, 204) come that way here.
        this.length = encoding !== undefined && encoding.toLowerCase().includes("chunked")
          ? -1
          : length === undefined
          ? 0
          : Number(length)
        this.headEnd = at + 4
        this.chunkAt = this.headEnd
        this.chunks = ""
      }
      let end: number
      let body: string
      if (this.length >= 0) {
        end = this.headEnd + this.length
        if (this.buf.length < end) return
        body = this.buf.slice(this.headEnd, end)
      } else {
        // Chunked: `size-in-hex[;ext]\r\n data \r\n` … `0\r\n [trailers] \r\n`.
        let done = -1
        for (;;) {
          const lineEnd = this.buf.indexOf("\r\n", this.chunkAt)
          if (lineEnd < 0) break
          const size = parseInt(this.buf.slice(this.chunkAt, lineEnd), 16)
          if (size === 0) {
            const last = this.buf.indexOf("\r\n\r\n", lineEnd)
            if (last >= 0) done = last + 4
            break
          }
          const dataEnd = lineEnd + 2 + size
          if (this.buf.length < dataEnd + 2) break
          this.chunks += this.buf.slice(lineEnd + 2, dataEnd)
          this.chunkAt = dataEnd + 2
        }
        if (done < 0) return
        end = done
        body = this.chunks
      }
      const response: Response = { status: this.status, head: this.head, body, sessionId: this.sessionId }
      this.buf = end === this.buf.length ? "" : this.buf.slice(end)
      this.headEnd = -1
      this.chunks = ""
      const waiting = this.waiting
      this.waiting = undefined
      if (waiting === undefined) throw new BenchFailure(`a response nobody waited for: ${response.head}`)
      waiting(response)
    }
  }
}

/** The request text: fixed headers, `Content-Length` and the body. */
const requestText = (prefix: string, body: string) => `${prefix}Content-Length: ${body.length}\r\n\r\n${body}`

const headers = (target: Target, sessionId: string | undefined, revision: string | undefined) =>
  `POST ${target.path} HTTP/1.1\r\nHost: 127.0.0.1:${target.port}\r\n` +
  `Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n` +
  (target.headers ?? "") +
  (sessionId === undefined ? "" : `Mcp-Session-Id: ${sessionId}\r\n`) +
  (revision === undefined ? "" : `MCP-Protocol-Version: ${revision}\r\n`)

/** An MCP session over one connection: its request headers are built once. */
export interface Session {
  readonly connection: Connection
  readonly sessionId: string | undefined
  readonly prefix: string
}

/** A server that would not open a session (e.g. 503 when it holds as many as it allows). */
export class Refused {
  constructor(readonly status: number, readonly body: string) {}
}

const describe = (response: Response) => `${response.status}\n${response.head}\n\n${response.body.slice(0, 500)}`

/**
 * Opens a session: `initialize` (a 200 with an `Mcp-Session-Id` and the revision), then
 * `notifications/initialized` (202). A 503 on `initialize` is a `Refused`; anything else
 * unexpected fails the benchmark. Without a handshake (2026-07-28) it only builds the headers
 * (the envelope's `addCallHeaders` among them: a session of `tools/call add` only).
 */
export const openSession = async (connection: Connection, envelope: Envelope): Promise<Session | Refused> => {
  const target = connection.target
  if (envelope.handshake === undefined) {
    return { connection, sessionId: undefined, prefix: headers(target, undefined, undefined) + envelope.addCallHeaders }
  }
  const init = await connection.request(
    requestText(headers(target, undefined, undefined), envelope.handshake.initialize)
  )
  if (init.status === 503) return new Refused(init.status, init.body)
  if (
    init.status !== 200 || init.sessionId === undefined ||
    !init.body.includes(`"protocolVersion":"${envelope.revision}"`)
  ) {
    throw new BenchFailure(`initialize failed: ${describe(init)}`)
  }
  const prefix = headers(target, init.sessionId, envelope.revision)
  const initialized = await connection.request(requestText(prefix, envelope.handshake.initialized))
  if (initialized.status !== 202 && initialized.status !== 200 && initialized.status !== 204) {
    throw new BenchFailure(`notifications/initialized failed: ${describe(initialized)}`)
  }
  return { connection, sessionId: init.sessionId, prefix }
}

/** Opens `count` connections, each with its session; fails on a refusal. */
export const openSessions = async (target: Target, envelope: Envelope, count: number): Promise<Array<Session>> =>
  Promise.all(Array.from({ length: count }, async () => {
    const session = await openSession(await Connection.open(target), envelope)
    if (session instanceof Refused) throw new BenchFailure(`session refused: ${session.status} ${session.body}`)
    return session
  }))

/** One `tools/call add` on a session, checked. */
export const callAdd = async (session: Session, envelope: Envelope, id: number): Promise<void> => {
  const response = await session.connection.request(requestText(session.prefix, envelope.addCall(id)))
  if (response.status !== 200 || !isGoodAdd(response.body, id)) {
    throw new BenchFailure(`tools/call ${id} failed: ${describe(response)}`)
  }
}

/** Calls `first … first + count - 1` (`tools/call add`), spread over the sessions, one in flight on each, each checked. */
export const callAddOver = async (
  sessions: ReadonlyArray<Session>,
  envelope: Envelope,
  first: number,
  count: number
): Promise<void> => {
  let next = first
  const end = first + count
  await Promise.all(sessions.map(async (session) => {
    while (next < end) await callAdd(session, envelope, next++)
  }))
}

export interface LoadStats {
  readonly requests: number
  readonly seconds: number
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly bad: number
  readonly firstBad: string | undefined
  /** This process's CPU time over the run / wall time: near 1 means the client saturates its core. */
  readonly clientCpu: number
  /** The id after the last one used. */
  readonly nextId: number
}

const sortedLatencies = (latencies: Array<number>) => Float64Array.from(latencies).sort()

const stats = (
  latencies: Array<number>,
  seconds: number,
  bad: number,
  firstBad: string | undefined,
  cpu: NodeJS.CpuUsage,
  nextId: number
): LoadStats => {
  const sorted = sortedLatencies(latencies)
  return {
    requests: latencies.length,
    seconds,
    rps: latencies.length / seconds,
    p50: sorted.length === 0 ? Number.NaN : sorted[Math.floor(sorted.length * 0.5)],
    p99: sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))],
    bad,
    firstBad,
    clientCpu: (cpu.user + cpu.system) / 1e6 / seconds,
    nextId
  }
}

/**
 * Closed-loop load: every session keeps one `tools/call add` in flight (the next goes out as
 * soon as its answer is in) for `millis`, then the calls in flight finish. Ids are unique
 * across sessions, from `firstId`. Throughput is answers / (last answer − start).
 */
export const load = (
  sessions: ReadonlyArray<Session>,
  envelope: Envelope,
  millis: number,
  firstId: number
): Promise<LoadStats> =>
  new Promise((resolve) => {
    const latencies: Array<number> = []
    let nextId = firstId
    let bad = 0
    let firstBad: string | undefined
    let active = sessions.length
    let stopping = false
    let finished = false
    const cpu = process.cpuUsage()
    const start = performance.now()
    let last = start
    const timer = setTimeout(() => {
      stopping = true
    }, millis)
    const finish = () => {
      if (finished) return
      finished = true
      clearTimeout(timer)
      clearInterval(watchdog)
      resolve(stats(latencies, (last - start) / 1000, bad, firstBad, process.cpuUsage(cpu), nextId))
    }
    // A server that stops answering fails the run instead of hanging it.
    const watchdog = setInterval(() => {
      if (performance.now() - last < stallMillis) return
      bad += active
      firstBad ??= `no answer for ${stallMillis / 1000} s on ${active} connections`
      finish()
    }, 1_000)
    const next = (session: Session) => {
      if (stopping) {
        if (--active === 0) finish()
        return
      }
      const id = nextId++
      const sentAt = performance.now()
      session.connection.send(requestText(session.prefix, envelope.addCall(id)), (response) => {
        if (finished) return
        const now = performance.now()
        last = now
        if (response instanceof Error) {
          bad++
          firstBad ??= response.message
          if (--active === 0) finish()
          return
        }
        if (response.status === 200 && isGoodAdd(response.body, id)) latencies.push(now - sentAt)
        else {
          bad++
          firstBad ??= describe(response)
        }
        next(session)
      })
    }
    for (const session of sessions) next(session)
  })

/** Header lines (`Name: value\r\n`…) as a record. */
const headerRecord = (lines: string): Record<string, string> =>
  Object.fromEntries(
    lines.split("\r\n").filter((line) => line.length > 0).map((line) => {
      const colon = line.indexOf(":")
      return [line.slice(0, colon), line.slice(colon + 1).trim()]
    })
  )

/**
 * The same closed loop with Node's `fetch` (undici, keep-alive pool), `connections` loops
 * against the bare server (no sessions): to compare clients, not servers.
 */
export const fetchLoad = async (
  target: Target,
  envelope: Envelope,
  connections: number,
  millis: number
): Promise<LoadStats> => {
  const url = `http://127.0.0.1:${target.port}${target.path}`
  const latencies: Array<number> = []
  let bad = 0
  let firstBad: string | undefined
  let nextId = 1
  let stopping = false
  let last = 0
  const cpu = process.cpuUsage()
  const start = performance.now()
  const timer = setTimeout(() => {
    stopping = true
  }, millis)
  await Promise.all(Array.from({ length: connections }, async () => {
    while (!stopping) {
      const id = nextId++
      const sentAt = performance.now()
      const response = await fetch(url, {
        method: "POST",
        headers: {
          accept: "application/json, text/event-stream",
          "content-type": "application/json",
          ...headerRecord(envelope.addCallHeaders)
        },
        body: envelope.addCall(id)
      })
      const body = await response.text()
      last = performance.now()
      if (response.status === 200 && isGoodAdd(body, id)) latencies.push(last - sentAt)
      else {
        bad++
        firstBad ??= `${response.status} ${body.slice(0, 200)}`
      }
    }
  }))
  clearTimeout(timer)
  return stats(latencies, (last - start) / 1000, bad, firstBad, process.cpuUsage(cpu), nextId)
}
