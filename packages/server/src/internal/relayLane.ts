/**
 * The relay lane of one engine (`RelayTable`): the transport's receiver, wrapped so that a
 * `tools/call` a relay table takes never reaches the engine. It is looked up as the frame arrives
 * (already parsed by the transport), before anything decodes it; taken, its answer goes out
 * through the transport with its id, as the engine's would (so the transport's bound on requests
 * in flight counts it), a `notifications/cancelled` for it or its client going away tells the
 * entry, and the transport is told it will not be answered. What the table declines, and
 * everything else, goes to the engine as it came.
 */
import type { Revision, Transport } from "@effect-mcp/core"
import { JsonRpc } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { RawCall, RelayTable } from "../RelayTable.js"
import type { State } from "./handshakeRequest.js"
import * as McpSchema from "./mcpSchema.js"

/** The engine's answer to a request whose id is in flight. */
const duplicate = (id: JsonRpc.RequestId) => ({
  code: JsonRpc.Code.InvalidRequest,
  message: `Invalid Request: id ${JSON.stringify(id)} is already in flight`
})

/** The most frames of one call waiting to be sent (its logs past it are dropped), as the engine's `maxCallLogs`. */
const maxWaiting = 256

/**
 * The most bytes of logs waiting to be sent, all calls of one lane together (each counted as its
 * JSON's UTF-16 units, two bytes each: what its text can take in the heap): a slow client and many
 * loud calls would otherwise hold 256 logs of up to 64 KiB each per call (16 MiB a call). Logs past
 * it are dropped, as past `maxWaiting`; answers never are.
 */
export const maxWaitingBytes = 16 * 1024 * 1024

/** What a frame waiting is counted as (`maxWaitingBytes`). */
const sizeOf = (frame: JsonRpc.Frame) => JSON.stringify(frame).length * 2

/** What a taken call needs of its lane: its book of calls and how its frames are sent. */
interface LaneOf {
  readonly forget: (client: Transport.ClientId, id: JsonRpc.RequestId) => void
  readonly sendOf: (
    client: Transport.ClientId,
    call: Taken,
    frame: JsonRpc.Frame,
    related: JsonRpc.RequestId,
    log: boolean
  ) => void
}

/**
 * A call taken, until it is answered or cancelled: one object per call, its answers methods of
 * its class (no closure made per call).
 */
class Taken implements RawCall {
  done = false
  /**
   * Its frames the transport could not take at once, in order, sent by one fiber (`draining`):
   * nothing of the call overtakes them (its answer comes after its logs). Made when one waits.
   */
  waiting: Array<JsonRpc.Frame> | undefined = undefined
  /** The size of each log in `waiting` (0 for its answer), in the same order. */
  sizes: Array<number> | undefined = undefined
  draining = false
  onCancel: (() => void) | undefined = undefined
  readonly arguments: Readonly<Record<string, unknown>> | undefined
  constructor(
    readonly lane: LaneOf,
    readonly client: Transport.ClientId,
    readonly id: JsonRpc.RequestId,
    readonly name: string,
    args: Readonly<Record<string, unknown>> | undefined,
    readonly revision: Revision.Revision,
    readonly logLevel: McpSchema.Base.LoggingLevel | undefined
  ) {
    this.arguments = args
  }
  private answer(response: JsonRpc.Response) {
    if (this.done) return
    this.done = true
    this.lane.forget(this.client, this.id)
    this.lane.sendOf(this.client, this, response, this.id, false)
  }
  result(result: unknown) {
    this.answer(JsonRpc.success(this.id, result))
  }
  error(error: JsonRpc.ErrorObject) {
    this.answer(JsonRpc.failure(this.id, error))
  }
  log(params: { readonly level: McpSchema.Base.LoggingLevel; readonly data: unknown; readonly logger?: string }) {
    const level = this.logLevel
    if (this.done || (level !== undefined && !McpSchema.Logging.isAtLeast(params.level, level))) return
    this.lane.sendOf(this.client, this, JsonRpc.notification("notifications/message", params), this.id, true)
  }
}

/** How the lane sends: a lone frame (`send`), and a taken call's frames in order (`sendOf`). */
const senders = <F>(protocol: Transport.Protocol<F>, run: (effect: Effect.Effect<void>) => void) => {
  const { sendNow } = protocol
  /** The bytes of the logs waiting, all calls together (`maxWaitingBytes`). */
  let waitingBytes = 0
  // At once where the transport can (no fiber), else as the engine sends.
  const send = (client: Transport.ClientId, frame: JsonRpc.Frame, related: JsonRpc.RequestId) => {
    const context = { related }
    if (sendNow === undefined || !sendNow(client, frame, context)) {
      run(Effect.ignore(protocol.send(client, frame, context)))
    }
  }
  /** Sends its waiting frames in order, one at a time, until none is left. */
  const drain = (client: Transport.ClientId, call: Taken, related: JsonRpc.RequestId): Effect.Effect<void> =>
    Effect.suspend(() => {
      const frame = call.waiting!.shift()
      waitingBytes -= call.sizes!.shift() ?? 0
      if (frame === undefined) {
        call.draining = false
        return Effect.void
      }
      return Effect.zipRight(Effect.ignore(protocol.send(client, frame, { related })), drain(client, call, related))
    })
  /**
   * A frame of a taken call: at once where the transport can and nothing of the call waits, else
   * after what waits; a log is dropped when `maxWaiting` wait (its answer never is).
   */
  const sendOf = (
    client: Transport.ClientId,
    call: Taken,
    frame: JsonRpc.Frame,
    related: JsonRpc.RequestId,
    log: boolean
  ) => {
    if (!call.draining && sendNow !== undefined && sendNow(client, frame, { related })) return
    const waiting = call.waiting ??= []
    const sizes = call.sizes ??= []
    if (log) {
      if (waiting.length >= maxWaiting) return
      const size = sizeOf(frame)
      if (waitingBytes + size > maxWaitingBytes) return
      waitingBytes += size
      sizes.push(size)
    } else sizes.push(0)
    waiting.push(frame)
    if (call.draining) return
    call.draining = true
    run(drain(client, call, related))
  }
  return { send, sendOf }
}

/**
 * `protocol`, its receiver wrapped with the lane: `relayable` says which session's calls may be
 * taken (`Handshake.OnEngine.relayable`); `run` runs the sends on the engine's runtime.
 */
export const protocol = <F>(
  protocol: Transport.Protocol<F>,
  table: RelayTable,
  relayable: (client: Transport.ClientId) => State | undefined,
  run: (effect: Effect.Effect<void>) => void
): Transport.Protocol<F> => {
  /** The calls taken, by client and id. */
  const taken = new Map<Transport.ClientId, Map<JsonRpc.RequestId, Taken>>()
  const { send, sendOf } = senders(protocol, run)
  const forget = (client: Transport.ClientId, id: JsonRpc.RequestId) => {
    const calls = taken.get(client)
    if (calls === undefined) return
    calls.delete(id)
    if (calls.size === 0) taken.delete(client)
  }

  const lane: LaneOf = { forget, sendOf }

  const isTaken = (client: Transport.ClientId, id: JsonRpc.RequestId) => taken.get(client)?.has(id) === true

  const take = (
    client: Transport.ClientId,
    message: JsonRpc.Request,
    busy: Transport.Receiver<F>["inFlight"]
  ): boolean => {
    const params = message.params as Record<string, unknown> | undefined
    if (typeof params !== "object" || params === null) return false
    const name = params.name
    if (typeof name !== "string") return false
    const entry = table.get(name)
    if (entry === undefined) return false
    for (const key in params) if (key !== "name" && key !== "arguments") return false
    const args = params.arguments
    if (args !== undefined && (typeof args !== "object" || args === null || Array.isArray(args))) return false
    const state = relayable(client)
    if (state === undefined) return false
    // An id the engine serves: it refuses the duplicate.
    if (busy?.(client, message.id) === true) return false
    const call = new Taken(
      lane,
      client,
      message.id,
      name,
      args as Readonly<Record<string, unknown>> | undefined,
      state.revision,
      Option.getOrUndefined(state.logLevel)
    )
    if (!entry.take(call)) return false
    if (!call.done) {
      let calls = taken.get(client)
      if (calls === undefined) taken.set(client, calls = new Map())
      calls.set(call.id, call)
    }
    return true
  }

  /** A cancel of a call taken: the entry is told, the transport stops waiting; nothing is sent. */
  const cancel = (client: Transport.ClientId, id: JsonRpc.RequestId): boolean => {
    const call = taken.get(client)?.get(id)
    if (call === undefined) return false
    call.done = true
    forget(client, id)
    call.onCancel?.()
    protocol.unanswered?.(client, id)
    return true
  }

  const cancelledId = (params: unknown): JsonRpc.RequestId | undefined => {
    const id = typeof params === "object" && params !== null ? (params as { requestId?: unknown }).requestId : undefined
    return typeof id === "string" || typeof id === "number" ? id : undefined
  }

  return {
    ...protocol,
    inFlight: isTaken,
    run: (receiver) =>
      protocol.run({
        ...receiver,
        receive: (client, inbound, context) => {
          if (inbound._tag === "Single") {
            const message = inbound.message
            if ("method" in message) {
              if ("id" in message) {
                // An id this lane serves: refused as the engine refuses its own duplicates.
                if (isTaken(client, message.id)) {
                  return send(client, JsonRpc.failure(message.id, duplicate(message.id)), message.id)
                }
                if (message.method === "tools/call" && take(client, message, receiver.inFlight)) return
              } else if (message.method === "notifications/cancelled" && taken.has(client)) {
                const id = cancelledId(message.params)
                if (id !== undefined && cancel(client, id)) return
              }
            }
          }
          receiver.receive(client, inbound, context)
        },
        disconnect: (client, reason) => {
          const calls = taken.get(client)
          if (calls !== undefined) {
            taken.delete(client)
            for (const call of calls.values()) {
              call.done = true
              call.onCancel?.()
            }
          }
          receiver.disconnect(client, reason)
        },
        responseClosed: (client, id) => {
          if (!cancel(client, id)) receiver.responseClosed(client, id)
        }
      })
  }
}
