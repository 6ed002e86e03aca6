/**
 * One HTTP request and its response, as every MCP HTTP back end sees it, whatever serves it
 * (`node:http` directly, an @effect/platform router). Calls are plain functions made from the
 * platform's callbacks; a back end answers exactly once, with `reply` or `stream`.
 */
import type { Headers, Reply } from "./front.js"

/** What reading the body gave. */
export type Body =
  | { readonly _tag: "Text"; readonly text: string }
  | { readonly _tag: "TooLarge" }
  | { readonly _tag: "Failed" }

/** An open SSE response. */
export interface Stream {
  /** Writes SSE text (whole events). Ignored once the stream is closed. */
  readonly write: (text: string) => void
  /** Ends the response. */
  readonly end: () => void
}

export interface Exchange {
  readonly method: string
  /** The path, without the query. */
  readonly path: string
  /** The query string, without `?`. */
  readonly query: string
  /** A request header (lowercase name). */
  readonly header: (name: string) => string | undefined
  /**
   * The address the request's connection comes from, when the platform knows it: whom the quotas
   * of a client without a token count against (see `HttpTransport.Options.trustedProxies`).
   */
  readonly remoteAddress?: string | undefined
  /** Reads the body as UTF-8 text, at most `maxBytes` bytes (counted as they arrive). */
  readonly body: (maxBytes: number, done: (body: Body) => void) => void
  /** Answers with a whole response. */
  readonly reply: (reply: Reply) => void
  /** Answers with a stream (status 200, these headers). */
  readonly stream: (headers: Headers) => Stream
  /** Called once when the client goes away before the response ended. */
  readonly onClose: (listener: () => void) => void
}
