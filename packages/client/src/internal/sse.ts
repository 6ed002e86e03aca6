/**
 * Server-Sent Events, read (the client side of both HTTP transports): lines split across chunks,
 * `data` lines joined, `event`, `id` and `retry` fields kept, comments skipped.
 */

/** One SSE event: its type (`message` unless named), data and id. */
export interface SseEvent {
  readonly event: string
  readonly data: string
  readonly id: string | undefined
}

/** An SSE parser: `emit` gets each complete event, `onRetry` each `retry` field. */
export const sseParser = (emit: (event: SseEvent) => void, onRetry: (millis: number) => void) => {
  let buffer = ""
  let data: Array<string> = []
  let id: string | undefined
  let event = "message"
  const line = (text: string) => {
    if (text === "") {
      if (data.length > 0) emit({ event, data: data.join("\n"), id })
      data = []
      event = "message"
      return
    }
    if (text.startsWith(":")) return
    const colon = text.indexOf(":")
    const field = colon < 0 ? text : text.slice(0, colon)
    const value = colon < 0 ? "" : text.slice(colon + 1).replace(/^ /, "")
    if (field === "data") data.push(value)
    else if (field === "event") event = value
    else if (field === "id" && !value.includes("\0")) id = value
    else if (field === "retry" && /^\d+$/.test(value)) onRetry(Number(value))
  }
  return (chunk: string) => {
    buffer += chunk
    let newline = buffer.search(/\r\n|\r|\n/)
    while (newline >= 0) {
      const width = buffer.startsWith("\r\n", newline) ? 2 : 1
      line(buffer.slice(0, newline))
      buffer = buffer.slice(newline + width)
      newline = buffer.search(/\r\n|\r|\n/)
    }
  }
}
