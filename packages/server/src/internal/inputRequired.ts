/**
 * Multi-round-trip requests (2026-07-28), the server's side:
 *
 * - the `InputRequired` signal: what an ask that has no answer yet (or a handler's own
 *   `McpServer.inputRequired`) stops the handler with. It is a defect, so no typed-error handling
 *   of the handler swallows it; the stateless era collects every signal of one run from the
 *   cause into one `input_required` result.
 * - the sealed `requestState`: the answers of earlier rounds, the keys this round asks for and
 *   the handler's own state, bound to the method and the request's salient params, with an
 *   expiry, signed with HMAC-SHA256 (Web Crypto). A retry may therefore reach another process
 *   that has the same key. It is canonical base64url only (one spelling per state), and no
 *   longer than a cap, both when it is sealed and when it comes back.
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

/**
 * What the sealed state carries. `v` is the format's version: a state of another version (one
 * sealed by an older or newer server with the same key) is refused, never read as this one.
 */
interface Payload {
  readonly v: 2
  /** The method and the digest of the salient params it was issued for. */
  readonly m: string
  readonly d: string
  /** Expiry, epoch milliseconds. */
  readonly e: number
  /** Answers of earlier rounds, by key (never one of `q`'s: a key asked again is answered anew). */
  readonly a: Readonly<Record<string, unknown>>
  /** The keys this round asks for: the only answers the retry's own `inputResponses` may give. */
  readonly q: ReadonlyArray<string>
  /** The handler's own state. */
  readonly u?: string
  /** The subject of the token of the request it was issued for (authorization on). */
  readonly s?: string
}

/** The version of the format sealed and taken. */
const version = 2

/** What a verified state gives back. */
export interface Unsealed {
  /** Answers of earlier rounds, by key. */
  readonly answers: Readonly<Record<string, unknown>>
  /** The keys the round that sealed it asked for. */
  readonly asked: ReadonlyArray<string>
  readonly userState: Option.Option<string>
}

/** The default longest `requestState` sealed or taken, in characters: 64 KiB. */
export const defaultMaxLength = 65_536

const encoder = new TextEncoder()
const decoder = new TextDecoder()

const base64url = (bytes: Uint8Array): string => {
  let binary = ""
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
}

const base64urlAlphabet = /^[A-Za-z0-9_-]*$/

/**
 * The bytes of canonical base64url without padding, or undefined: `atob` alone takes whitespace,
 * `=` padding, the `+/` alphabet and set spare bits, so that one value would have many spellings.
 * Only the one spelling `base64url` makes is taken (re-encoded and compared).
 */
const fromBase64url = (text: string): Uint8Array<ArrayBuffer> | undefined => {
  if (!base64urlAlphabet.test(text) || text.length % 4 === 1) return undefined
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"))
  const bytes = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
  return base64url(bytes) === text ? bytes : undefined
}

/** A signed body's payload (of whichever version: `v` says), or undefined when it is none. */
const parse = (bytes: Uint8Array): Payload | undefined => {
  try {
    const payload: unknown = JSON.parse(decoder.decode(bytes))
    return typeof payload === "object" && payload !== null ? payload as Payload : undefined
  } catch {
    return undefined
  }
}

/** The length of an HMAC-SHA256 in base64url (32 bytes). */
const macLength = 43

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
const foreign = () => invalid("not a state this server issued")

/** Signs and verifies request states with one key. */
export interface Sealer {
  /**
   * The state of a round that asks for `asked`, carrying `answers` (those of earlier rounds) and
   * the handler's own state; an `InternalError` when it would be longer than the cap.
   */
  readonly seal: (
    method: string,
    params: Record<string, unknown>,
    answers: Readonly<Record<string, unknown>>,
    asked: ReadonlyArray<string>,
    userState: string | undefined,
    /** The subject of the request's token (authorization on): only that subject may bring the state back. */
    subject: string | undefined
  ) => Effect.Effect<string, McpError.InternalError>
  /** A state this sealer issued, for this request, unexpired, no longer than the cap. */
  readonly unseal: (
    method: string,
    params: Record<string, unknown>,
    state: string,
    subject: string | undefined
  ) => Effect.Effect<Unsealed, McpError.InvalidParams>
}

export const sealer = (options: {
  /** The HMAC key's bytes (at least 32 recommended). */
  readonly key: Uint8Array
  readonly ttlMillis: number
  /** The longest state sealed or taken, in characters. */
  readonly maxLength: number
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
      const { maxLength } = options
      const digest = (method: string, params: Record<string, unknown>) =>
        Effect.map(
          Effect.promise(() =>
            crypto.subtle.digest("SHA-256", encoder.encode(JSON.stringify(salient(method, params)) ?? ""))
          ),
          (hash) => base64url(new Uint8Array(hash))
        )
      return {
        seal: (method, params, answers, asked, userState, subject) =>
          Effect.flatMap(digest(method, params), (d) => {
            const payload: Payload = {
              v: version,
              m: method,
              d,
              e: options.now() + options.ttlMillis,
              a: answers,
              q: asked,
              ...(userState !== undefined ? { u: userState } : {}),
              ...(subject !== undefined ? { s: subject } : {})
            }
            const body = base64url(encoder.encode(JSON.stringify(payload)))
            // Said before signing: the length of the state is the body's, a dot and the MAC's.
            const length = body.length + 1 + macLength
            if (length > maxLength) {
              return Effect.fail(
                new McpError.InternalError({
                  message: `The requestState of this round would be ${length} characters, over the cap of ` +
                    `${maxLength} (requestStateMaxLength)`
                })
              )
            }
            return Effect.map(
              Effect.promise(() => crypto.subtle.sign("HMAC", key, encoder.encode(body))),
              (mac) => `${body}.${base64url(new Uint8Array(mac))}`
            )
          }),
        unseal: (method, params, state, subject) =>
          Effect.gen(function*() {
            // The length first: a long state is neither decoded nor signed over.
            if (state.length > maxLength) return yield* invalid(`longer than ${maxLength} characters`)
            const dot = state.indexOf(".")
            if (dot <= 0) return yield* foreign()
            const body = state.slice(0, dot)
            const mac = fromBase64url(state.slice(dot + 1))
            if (mac === undefined || mac.length !== 32 || !base64urlAlphabet.test(body)) return yield* foreign()
            const verified = yield* Effect.promise(() => crypto.subtle.verify("HMAC", key, mac, encoder.encode(body)))
            if (!verified) return yield* invalid("its signature does not verify (tampered, or sealed by another key)")
            // Signed by this key, so made by a sealer: still, only its one spelling is taken.
            const bytes = fromBase64url(body)
            if (bytes === undefined) return yield* foreign()
            const payload = parse(bytes)
            if (payload === undefined) return yield* foreign()
            if (payload.v !== version) return yield* invalid("it was sealed by another version of this server")
            if (payload.e < options.now()) return yield* invalid("it expired")
            if (payload.m !== method || payload.d !== (yield* digest(method, params))) {
              return yield* invalid("it was issued for another request")
            }
            if (payload.s !== subject) return yield* invalid("it was issued to another holder")
            return { answers: payload.a, asked: payload.q, userState: Option.fromNullable(payload.u) }
          })
      }
    }
  )

/** A random 32-byte key (one per process: retries cannot move to another process). */
export const randomKey = (): Uint8Array => crypto.getRandomValues(new Uint8Array(32))
