/**
 * Multi-round-trip requests (2026-07-28), the server's side:
 *
 * - the `InputRequired` signal: what an ask that has no answer yet (or a handler's own
 *   `McpServer.inputRequired`) stops the handler with. It is a defect, so no typed-error handling
 *   of the handler swallows it; the stateless era collects every signal of one run from the
 *   cause into one `input_required` result.
 * - the sealed `requestState`: the answers of earlier rounds and the handler's own state, bound
 *   to the method and the request's salient params, with an expiry, signed with HMAC-SHA256
 *   (Web Crypto). A retry may therefore reach another process that has the same key.
 */
import type { Schema as McpSchema } from "@effect-mcp/core"
import { McpError } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

type InputRequest = McpSchema.InputRequired.InputRequest

const SignalId: unique symbol = Symbol.for("@effect-mcp/server/InputRequired")

/** A handler stopped because it needs input from the client first. */
export class InputRequired {
  readonly [SignalId] = SignalId
  constructor(
    /** What it asks for, by the handler's keys. */
    readonly inputRequests: Readonly<Record<string, InputRequest>>,
    /** The handler's own state for the retry (low-level API). */
    readonly requestState: string | undefined
  ) {}
}

export const isInputRequired = (u: unknown): u is InputRequired => typeof u === "object" && u !== null && SignalId in u

/** Stops the handler: it needs these inputs first. */
export const signal = (inputRequests: Readonly<Record<string, InputRequest>>, requestState?: string) =>
  Effect.die(new InputRequired(inputRequests, requestState))

// ---------------------------------------------------------------------------- sealing

/** What the sealed state carries. */
interface Payload {
  readonly v: 1
  /** The method and the digest of the salient params it was issued for. */
  readonly m: string
  readonly d: string
  /** Expiry, epoch milliseconds. */
  readonly e: number
  /** Answers of earlier rounds, by key. */
  readonly a: Readonly<Record<string, unknown>>
  /** The handler's own state. */
  readonly u?: string
}

/** What a verified state gives back. */
export interface Unsealed {
  readonly answers: Readonly<Record<string, unknown>>
  readonly userState: Option.Option<string>
}

const encoder = new TextEncoder()
const decoder = new TextDecoder()

const base64url = (bytes: Uint8Array): string => {
  let binary = ""
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
}

const fromBase64url = (text: string): Uint8Array<ArrayBuffer> => {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"))
  const bytes = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
  return bytes
}

/** The salient params of a retryable request: what a state is bound to. */
export const salient = (method: string, params: Record<string, unknown>): unknown => {
  switch (method) {
    case "tools/call":
    case "prompts/get":
      return { name: params.name, arguments: params.arguments ?? {} }
    case "resources/read":
      return { uri: params.uri }
    default:
      return {}
  }
}

const invalid = (why: string) => new McpError.InvalidParams({ message: `Invalid requestState: ${why}` })

/** Signs and verifies request states with one key. */
export interface Sealer {
  readonly seal: (
    method: string,
    params: Record<string, unknown>,
    answers: Readonly<Record<string, unknown>>,
    userState: string | undefined
  ) => Effect.Effect<string>
  readonly unseal: (
    method: string,
    params: Record<string, unknown>,
    state: string
  ) => Effect.Effect<Unsealed, McpError.InvalidParams>
}

export const sealer = (options: {
  /** The HMAC key's bytes (at least 32 recommended). */
  readonly key: Uint8Array
  readonly ttlMillis: number
  readonly now: () => number
}): Effect.Effect<Sealer> =>
  Effect.map(
    Effect.promise(() =>
      crypto.subtle.importKey("raw", new Uint8Array(options.key), { name: "HMAC", hash: "SHA-256" }, false, [
        "sign",
        "verify"
      ])
    ),
    (key): Sealer => {
      const digest = (method: string, params: Record<string, unknown>) =>
        Effect.map(
          Effect.promise(() =>
            crypto.subtle.digest("SHA-256", encoder.encode(JSON.stringify(salient(method, params)) ?? ""))
          ),
          (hash) => base64url(new Uint8Array(hash))
        )
      return {
        seal: (method, params, answers, userState) =>
          Effect.flatMap(digest(method, params), (d) => {
            const payload: Payload = {
              v: 1,
              m: method,
              d,
              e: options.now() + options.ttlMillis,
              a: answers,
              ...(userState !== undefined ? { u: userState } : {})
            }
            const body = base64url(encoder.encode(JSON.stringify(payload)))
            return Effect.map(
              Effect.promise(() => crypto.subtle.sign("HMAC", key, encoder.encode(body))),
              (mac) => `${body}.${base64url(new Uint8Array(mac))}`
            )
          }),
        unseal: (method, params, state) =>
          Effect.gen(function*() {
            const dot = state.indexOf(".")
            if (dot <= 0) return yield* invalid("not a state this server issued")
            const body = state.slice(0, dot)
            let mac: Uint8Array<ArrayBuffer>
            try {
              mac = fromBase64url(state.slice(dot + 1))
            } catch {
              return yield* invalid("not a state this server issued")
            }
            const verified = yield* Effect.promise(() => crypto.subtle.verify("HMAC", key, mac, encoder.encode(body)))
            if (!verified) return yield* invalid("its signature does not verify (tampered, or sealed by another key)")
            const payload = JSON.parse(decoder.decode(fromBase64url(body))) as Payload
            if (payload.e < options.now()) return yield* invalid("it expired")
            if (payload.m !== method || payload.d !== (yield* digest(method, params))) {
              return yield* invalid("it was issued for another request")
            }
            return { answers: payload.a, userState: Option.fromNullable(payload.u) }
          })
      }
    }
  )

/** A random 32-byte key (one per process: retries cannot move to another process). */
export const randomKey = (): Uint8Array => crypto.getRandomValues(new Uint8Array(32))
