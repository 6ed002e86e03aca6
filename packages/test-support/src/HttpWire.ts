/**
 * The raw wire of Streamable HTTP as a test drives it with `fetch`: a handshake-era request's
 * headers, and the JSON-RPC messages of a response (one JSON body, or the events of an SSE stream
 * with their ids), read as they come.
 *
 * @since 0.1.0
 */

/**
 * The headers of a 2025-11-25 POST (of session `session`, when given).
 *
 * @since 0.1.0
 */
export const handshakeHeaders = (session?: string): Record<string, string> => ({
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-11-25",
  ...(session === undefined ? {} : { "mcp-session-id": session })
})

/**
 * The headers of a 2026-07-28 POST of `method` (and `name`: a tool's or a prompt's name, or a
 * resource's URI), as the revision has them mirror its body.
 *
 * @since 0.2.0
 */
export const statelessHeaders = (method: string, name?: string): Record<string, string> => ({
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": method,
  ...(name === undefined ? {} : { "mcp-name": name })
})

/**
 * One event of a response: its SSE id (none for a JSON body) and its message.
 *
 * @since 0.1.0
 */
export interface Received {
  readonly id: string | undefined
  readonly message: any
}

/**
 * The messages of `response` until one for which `until` holds (then the stream is let go), the
 * stream ends, or `ms` pass.
 *
 * @since 0.1.0
 */
export const events = async (
  response: Response,
  until: (message: any) => boolean,
  ms = 10_000
): Promise<Array<Received>> => {
  if (response.headers.get("content-type")?.startsWith("application/json")) {
    return [{ id: undefined, message: await response.json() }]
  }
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  const out: Array<Received> = []
  let buffer = ""
  const timer = setTimeout(() => void reader.cancel(), ms)
  try {
    while (true) {
      const { done, value } = await reader.read()
      if (done) return out
      buffer += decoder.decode(value, { stream: true })
      let at: number
      while ((at = buffer.indexOf("\n\n")) >= 0) {
        const event = buffer.slice(0, at)
        buffer = buffer.slice(at + 2)
        const lines = event.split("\n")
        const id = lines.find((line) => line.startsWith("id:"))?.slice(3).trim()
        const data = lines.filter((line) => line.startsWith("data:")).map((line) => line.slice(5).trim()).join("\n")
        if (data === "") continue
        const message = JSON.parse(data)
        out.push({ id, message })
        if (until(message)) {
          void reader.cancel()
          return out
        }
      }
    }
  } finally {
    clearTimeout(timer)
  }
}

/**
 * An SSE response read as it comes, priming events too (an id and no message): `next` waits for
 * the next event that satisfies `until` (those before it are passed over; a failure saying `what`
 * did not come if the stream ends first, or within `ms`), `ended` for the end of the response (its
 * connection closed), `received` what came so far.
 *
 * @since 0.2.0
 */
export const sse = (response: Response) => {
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  const received: Array<Received> = []
  let taken = 0
  let over = false
  let wake = () => {}
  const ended = (async () => {
    let buffer = ""
    try {
      while (true) {
        const { done, value } = await reader.read()
        if (done) break
        buffer += decoder.decode(value, { stream: true })
        let at: number
        while ((at = buffer.indexOf("\n\n")) >= 0) {
          const lines = buffer.slice(0, at).split("\n")
          buffer = buffer.slice(at + 2)
          const id = lines.find((line) => line.startsWith("id:"))?.slice(3).trim()
          const data = lines.filter((line) => line.startsWith("data:")).map((line) => line.slice(5).trim()).join("\n")
          if (id === undefined && data === "") continue
          received.push({ id, message: data === "" ? undefined : JSON.parse(data) })
          wake()
        }
      }
    } catch {
      // The connection went.
    }
    over = true
    wake()
  })()
  const next = (until: (event: Received) => boolean, what: string, ms = 30_000) => {
    let timer: ReturnType<typeof setTimeout> | undefined
    return new Promise<Received>((resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)
      // Events are taken only while someone waits: what comes after is the next wait's.
      wake = () => {
        while (taken < received.length) {
          const event = received[taken++]!
          if (until(event)) {
            wake = () => {}
            return resolve(event)
          }
        }
        if (over) {
          wake = () => {}
          reject(new Error(`${what}: the stream ended first`))
        }
      }
      wake()
    }).finally(() => clearTimeout(timer))
  }
  return { next, ended, received: received as ReadonlyArray<Received>, cancel: () => reader.cancel().catch(() => {}) }
}
