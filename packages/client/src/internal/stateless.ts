/**
 * The stateless era (2026-07-28) of the client: every request carries the envelope (revision,
 * capabilities, client info, log level) in `_meta`; an `input_required` result is fulfilled with
 * the handlers, its input requests in parallel, and the request sent again with the same params,
 * the answers under the server's keys and `requestState` byte for byte, up to `maxRoundTrips`.
 */
import { type McpError, Meta, type Peer, Revision, Schema as McpSchema, Telemetry } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import type * as Tracer from "effect/Tracer"
import * as ClientError from "../ClientError.js"
import type { CallOptions } from "../McpClient.js"
import type { Asks } from "./asks.js"
import { engineOptions, isObject, server } from "./request.js"

type InputRequest = McpSchema.InputRequired.InputRequest

/** The newest stateless revision of the table: what every stateless request of this client speaks. */
export const revision: Revision.Revision = Revision.stateless[Revision.stateless.length - 1]!

export interface Options {
  readonly peer: Peer.Peer<ClientError.TransportFailure>
  readonly asks: Asks
  readonly capabilities: McpSchema.Capabilities.ClientCapabilities
  readonly clientInfo: McpSchema.Base.Implementation
  readonly logLevel: McpSchema.Base.LoggingLevel | undefined
  readonly maxRoundTrips: number
  /** Spans on (see `Telemetry`): the rounds of a multi-round trip link the first, its asks get spans. */
  readonly spans: boolean
  /** Told to speak this era only (`era: "stateless"`): no other revision would be tried. */
  readonly pinned: boolean
}

export interface Stateless {
  /** The `_meta` every request of this client carries. */
  readonly meta: McpSchema.Base.MetaObject
  /**
   * One request, its rounds driven until the result is complete; the wire result, unchecked.
   * `firstRound` is told a result that came without a multi-round trip (only those may be cached);
   * `meta` replaces the client's own (a task call's declares the tasks extension); a call's
   * `logLevel` replaces the client's.
   */
  readonly request: (
    method: string,
    params: object | undefined,
    call: CallOptions | undefined,
    firstRound?: (result: Record<string, unknown>) => void,
    meta?: McpSchema.Base.MetaObject
  ) => Effect.Effect<unknown, ClientError.ClientError>
  /** The `_meta` of a request that declares the tasks extension (a task call, `tasks/*`, a listen for tasks). */
  readonly tasksMeta: McpSchema.Base.MetaObject
  readonly versionMismatch: (error: McpError.UnsupportedProtocolVersion) => ClientError.VersionMismatch
}

export const make = (options: Options): Stateless => {
  const { asks, maxRoundTrips, peer } = options
  const meta: McpSchema.Base.MetaObject = {
    [Meta.protocolVersion]: revision,
    [Meta.clientCapabilities]: options.capabilities,
    [Meta.clientInfo]: options.clientInfo,
    ...(options.logLevel !== undefined ? { [Meta.logLevel]: options.logLevel } : {})
  }
  const tasksMeta: McpSchema.Base.MetaObject = {
    ...meta,
    [Meta.clientCapabilities]: {
      ...options.capabilities,
      extensions: { ...options.capabilities.extensions, [McpSchema.TasksExtension.extensionId]: {} }
    }
  }
  const versionMismatch = (error: McpError.UnsupportedProtocolVersion) =>
    options.pinned
      ? new ClientError.VersionMismatch({
        offered: error.supported,
        supported: Revision.stateless,
        pinned: "stateless"
      })
      : new ClientError.VersionMismatch({ offered: error.supported, supported: Revision.all })

  /**
   * A -32022 whose `supported` lists the revision we speak is retried once (a server may reject a
   * first choice it then accepts); otherwise, or again, it is a `VersionMismatch` naming both.
   */
  const retryOnce = <A>(
    send: () => Effect.Effect<A, Exclude<ClientError.ClientError, ClientError.VersionMismatch>>
  ) =>
    Effect.catchTag(send(), "UnsupportedProtocolVersion", (error) =>
      error.supported.includes(revision)
        ? Effect.catchTag(send(), "UnsupportedProtocolVersion", (again) => Effect.fail(versionMismatch(again)))
        : Effect.fail(versionMismatch(error)))

  /**
   * One input request answered by its handler: with spans on, in a SERVER span of its own (the
   * server asked it), a child of the round's.
   */
  const answer = (input: InputRequest) => {
    const answered = asks.answer(input.method, "params" in input ? input.params : undefined)
    return options.spans
      ? Effect.withSpan(answered, input.method, {
        kind: "server",
        attributes: { [Telemetry.attributes.methodName]: input.method }
      })
      : answered
  }

  /** Fulfils every input request of one round, in parallel, with the handlers. */
  const fulfil = (requests: Readonly<Record<string, InputRequest>>, round: Tracer.Span | undefined) =>
    Effect.all(
      Object.fromEntries(
        Object.entries(requests).map((
          [key, input]
        ) => [key, round === undefined ? answer(input) : Effect.withParentSpan(answer(input), round)])
      ),
      // In parallel, a few at a time: a server may ask for many (each may be a model's sampling).
      { concurrency: 8 }
    )

  const request: Stateless["request"] = (method, params, call, firstRound, given = meta) => {
    // The call's own log level, if it set one, instead of the client's.
    const own = call?.logLevel === undefined ? given : { ...given, [Meta.logLevel]: call.logLevel }
    // With spans on: the first round's span, which each later one links, and the latest one's.
    let first: Tracer.Span | undefined
    let latest: Tracer.Span | undefined
    const traced = (n: number) => {
      if (!options.spans) return engineOptions(call)
      const onSpan = (span: Tracer.Span) => {
        if (n === 1) first = span
        latest = span
      }
      return {
        ...engineOptions(call),
        onSpan,
        ...(n > 1 && first !== undefined
          ? { spanLinks: [{ _tag: "SpanLink", span: first, attributes: { "mcp.round": n } }] as const }
          : {})
      }
    }
    const round = (n: number, extra: object): Effect.Effect<unknown, ClientError.ClientError> =>
      Effect.flatMap(
        retryOnce(() => peer.request(server, method, Meta.withMeta({ ...params, ...extra }, own), traced(n))),
        (result): Effect.Effect<unknown, ClientError.ClientError> => {
          if (!isObject(result) || result.resultType !== "input_required") {
            if (n === 1 && isObject(result)) firstRound?.(result)
            return Effect.succeed(result)
          }
          if (n >= maxRoundTrips) return Effect.fail(new ClientError.RoundTripsExceeded({ method, rounds: n }))
          const requests = (isObject(result.inputRequests) ? result.inputRequests : {}) as Readonly<
            Record<string, InputRequest>
          >
          return Effect.flatMap(fulfil(requests, latest), (inputResponses) =>
            round(n + 1, {
              ...(Object.keys(inputResponses).length > 0 ? { inputResponses } : {}),
              ...(typeof result.requestState === "string" ? { requestState: result.requestState } : {})
            }))
        }
      )
    return round(1, {})
  }

  return { meta, tasksMeta, request, versionMismatch }
}
