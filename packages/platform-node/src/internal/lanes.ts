/**
 * The dispatcher under `NodeMcpClient.layerHttpClientWith`: three undici `Agent`s, so that a
 * bounded pool cannot deadlock. A call answered over an SSE stream holds its connection until its
 * answer, and a session's GET stream holds one for the session; the server's asks meanwhile
 * (roots, sampling, elicitation) need the client's answers POSTed, as its notifications and
 * cancellations. So:
 *
 * - `calls`: the POSTs that may open a call (requests, and whatever is not told apart below),
 *   at most `connections` per origin;
 * - `streams`: GETs (a session's stream, a call's resumed one), at most `connections` per origin;
 *   nothing waits on them but what the server sends unasked;
 * - `side`: the POSTs of answers and notifications, and DELETEs, at most `sideConnections` per
 *   origin: the server answers each at once (202), so each connection is soon free again.
 *
 * A POST is an answer or a notification when the head of its body shows a top-level `"result"`
 * or `"error"`, or a top-level `"method"` of `notifications/…` (what no request's method is); one
 * whose options say it opens a call (`opensCall`) is not looked at.
 */
import type * as Undici from "@effect/platform-node/Undici"
import { Buffer } from "node:buffer"

/** The connections per origin of the answers' and notifications' lane. */
export const sideConnections = 4

/** How much of a body's head is looked at. */
const headLength = 512

/** A top-level key (before any nested object or array), given its name's pattern. */
const topLevel = (key: string): RegExp => new RegExp(`^\\s*\\{(?:[^{}[\\]"]|"(?:[^"\\\\]|\\\\.)*")*?"${key}"\\s*:`)
const answer = topLevel("(?:result|error)")
const notification = new RegExp(topLevel("method").source + `\\s*"notifications/`)

const head = (body: unknown): string | undefined =>
  body instanceof Uint8Array
    ? Buffer.from(body.buffer, body.byteOffset, Math.min(headLength, body.byteLength)).toString("latin1")
    : typeof body === "string"
    ? body.slice(0, headLength)
    : undefined

/**
 * Set on a dispatch's options by a caller that knows its POST opens a call (a raw call's request,
 * `httpPost.ts`): its body is not looked at.
 */
export const opensCall: unique symbol = Symbol.for("@effect-mcp/platform-node/Lanes/opensCall")

/** Whether a POST of `body` is an answer or a notification (never one that opens a call). */
export const isSide = (body: unknown): boolean => {
  const text = head(body)
  return text !== undefined && (answer.test(text) || notification.test(text))
}

/** The three lanes as one dispatcher (`request` is undici's own, on `dispatch`). */
export const make = (
  undici: typeof Undici,
  options: { readonly connections: number; readonly keepAliveTimeout: number }
): Undici.Dispatcher => {
  const agent = (connections: number) =>
    new undici.Agent({ connections, keepAliveTimeout: options.keepAliveTimeout, pipelining: 1 })
  const calls = agent(options.connections)
  const streams = agent(options.connections)
  const side = agent(sideConnections)
  const all = [calls, streams, side]
  class Lanes extends undici.Dispatcher {
    override dispatch(opts: Undici.Dispatcher.DispatchOptions, handler: Undici.Dispatcher.DispatchHandler): boolean {
      const lane = opts.method === "GET"
        ? streams
        : opts.method === "DELETE" ||
            (opts.method === "POST" && (opts as { readonly [opensCall]?: true })[opensCall] !== true &&
              isSide(opts.body))
        ? side
        : calls
      return lane.dispatch(opts, handler)
    }
    override close(...args: Array<any>): any {
      return settle(Promise.all(all.map((agent) => agent.close())), args[0])
    }
    override destroy(...args: Array<any>): any {
      return settle(Promise.all(all.map((agent) => agent.destroy())), args.find((a) => typeof a === "function"))
    }
  }
  return new Lanes()
}

const settle = (done: Promise<unknown>, callback: unknown): Promise<void> | undefined => {
  const settled = done.then(() => undefined)
  if (typeof callback !== "function") return settled
  settled.then(() => callback(null), callback as (error: unknown) => void)
  return undefined
}
