/**
 * Fuzz tests of the rule "bad input gets a clear JSON-RPC error with the request's id, and
 * nothing else is lost: the loop survives any single message; a defect in one handler becomes
 * -32603 for that request":
 *
 * 1. `Wire.decode` never throws and classifies every text as an independent oracle (written from
 *    JSON-RPC 2.0, not from `Wire`) says: -32700 for non-JSON, -32600 for JSON that is not a message.
 * 2. A 2025-11-25 session on `Transport.memory` fed random lines answers every request line exactly
 *    once with its id, never answers a notification or a response, and still answers `ping`
 *    (and a 2025-03-26 session, where batches are served item by item, the same).
 * 3. Newline-delimited framing (`Transport.lineReader`, `Transport.ndjson`, `NodeMcpServer.transport`)
 *    yields the original messages whatever the chunk boundaries, inside multi-byte characters too.
 * 4. Streamable HTTP on 127.0.0.1: random POST bodies never get a 5xx or hang; the session survives.
 */
import type { Transport } from "@effect-mcp/core"
import { MemoryTransport, Method, Ndjson, Wire } from "@effect-mcp/core"
import { NodeMcpServer } from "@effect-mcp/platform-node"
import { McpServer, Prompt, Resource, Tool } from "@effect-mcp/server"
import { Services } from "@effect-mcp/test-support"
import * as Effect from "effect/Effect"
import * as fc from "effect/FastCheck"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { PassThrough } from "node:stream"
import { StringDecoder } from "node:string_decoder"
import { afterAll, assert, beforeAll, describe, it } from "vitest"

// ---------------------------------------------------------------------------- the oracle

type Id = string | number

/** What one message (a JSON value) must become, by JSON-RPC 2.0 alone. */
type Expected =
  | { readonly _tag: "Request"; readonly id: Id; readonly method: string; readonly params: unknown }
  | { readonly _tag: "Notification"; readonly method: string; readonly params: unknown }
  | { readonly _tag: "Response" }
  /** A response nested too deep or with a number JSON cannot carry: an error response for its id, never answered. */
  | { readonly _tag: "FlawedResponse"; readonly id: Id | null }
  | { readonly _tag: "Error"; readonly id: Id | null; readonly code: -32700 | -32600 | -32602 }

/** What one text frame must become. */
type ExpectedFrame = Expected | { readonly _tag: "Batch"; readonly items: ReadonlyArray<Expected> }

const isPlainObject = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)
const isId = (u: unknown): u is Id => typeof u === "string" || (typeof u === "number" && Number.isFinite(u))
const has = (o: object, key: string) => Object.hasOwn(o, key)

/** The envelope rules, from the spec. An unreadable (or absent) id is answered with `id: null`. */
/** The deepest nesting under `value` (itself at `depth`), and whether it holds a non-finite number; `__proto__` keys aside. */
const shape = (value: unknown, depth: number): { readonly depth: number; readonly nonFinite: boolean } => {
  let deepest = 0
  let nonFinite = false
  const stack: Array<[unknown, number]> = [[value, depth]]
  while (stack.length > 0) {
    const [v, d] = stack.pop()!
    if (typeof v === "number") nonFinite ||= !Number.isFinite(v)
    if (typeof v !== "object" || v === null) continue
    deepest = Math.max(deepest, d)
    for (const [k, item] of Object.entries(v)) if (k !== "__proto__") stack.push([item, d + 1])
  }
  return { depth: deepest, nonFinite }
}

/** The bound `Wire.decode` holds to by default (its documented `defaultMaxDepth`). */
const maxDepth = 128

const expectMessage = (value: unknown): Expected => {
  if (!isPlainObject(value)) return { _tag: "Error", id: null, code: -32600 }
  // `__proto__` keys never count (they are dropped at the boundary).
  const id = has(value, "id") && isId(value.id) ? value.id : null
  // Nesting past the bound, or a number a double cannot hold, anywhere: refused before the envelope.
  const flaws = Object.entries(value).filter(([k]) => k !== "__proto__").map(([k, item]) => {
    const s = shape(item, 2)
    return { key: k, flawed: s.depth > maxDepth || s.nonFinite }
  }).filter((f) => f.flawed)
  if (flaws.length > 0) {
    if (!has(value, "method") && (has(value, "result") || has(value, "error"))) return { _tag: "FlawedResponse", id }
    const first = flaws[0]!
    return { _tag: "Error", id, code: first.key === "params" && typeof value.method === "string" ? -32602 : -32600 }
  }
  const invalid: Expected = { _tag: "Error", id, code: -32600 }
  if (value.jsonrpc !== "2.0") return invalid
  if (has(value, "method")) {
    if (typeof value.method !== "string") return invalid
    if (has(value, "id") && id === null) return invalid
    if (has(value, "params") && !isPlainObject(value.params)) return invalid
    return id === null
      ? { _tag: "Notification", method: value.method, params: value.params }
      : { _tag: "Request", id, method: value.method, params: value.params }
  }
  if (has(value, "result")) return id === null ? invalid : { _tag: "Response" }
  if (has(value, "error")) {
    const e = value.error
    const ok = isPlainObject(e) && Number.isInteger(e.code) && typeof e.message === "string"
    return ok && (value.id === null || id !== null) ? { _tag: "Response" } : invalid
  }
  return invalid
}

const expectFrame = (text: string): ExpectedFrame => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return { _tag: "Error", id: null, code: -32700 }
  }
  if (Array.isArray(value)) {
    return value.length === 0
      ? { _tag: "Error", id: null, code: -32600 }
      : { _tag: "Batch", items: value.map(expectMessage) }
  }
  return expectMessage(value)
}

/** A key for an id as it crosses the wire (number 1 and string "1" differ). */
const key = (id: Id): string => typeof id === "string" ? `s:${id}` : `n:${String(id)}`

/** Structural equality that ignores `__proto__` keys of `b`; iterative (deep values welcome). */
const equalModuloProto = (a: unknown, b: unknown): boolean => {
  const stack: Array<[unknown, unknown]> = [[a, b]]
  while (stack.length > 0) {
    const [x, y] = stack.pop()!
    if (typeof x !== "object" || x === null || typeof y !== "object" || y === null) {
      if (!Object.is(x, y)) return false
      continue
    }
    if (Array.isArray(x) !== Array.isArray(y)) return false
    const kx = Object.keys(x)
    const ky = Object.keys(y).filter((k) => k !== "__proto__")
    if (kx.length !== ky.length) return false
    for (const k of ky) {
      if (!Object.hasOwn(x, k)) return false
      stack.push([(x as any)[k], (y as any)[k]])
    }
  }
  return true
}

/** No own `__proto__` key and no foreign prototype anywhere in a decoded value; iterative. */
const clean = (value: unknown): boolean => {
  const stack: Array<unknown> = [value]
  while (stack.length > 0) {
    const v = stack.pop()
    if (typeof v !== "object" || v === null) continue
    if (Array.isArray(v)) {
      stack.push(...v)
      continue
    }
    if (Object.getPrototypeOf(v) !== Object.prototype || Object.hasOwn(v, "__proto__")) return false
    for (const k of Object.keys(v)) stack.push((v as any)[k])
  }
  return true
}

/** For failure messages: never throws, never long. */
const show = (u: unknown): string => {
  try {
    return String(JSON.stringify(u)).slice(0, 300)
  } catch {
    return String(u).slice(0, 300)
  }
}

const checkMessage = (decoded: Wire.Single | Wire.Invalid, expected: Expected, value: unknown, where: string) => {
  if (expected._tag === "FlawedResponse") {
    assert.strictEqual(decoded._tag, "Single", `${where}: expected an error response`)
    const message = (decoded as Wire.Single).message as any
    assert.deepStrictEqual(message.id, expected.id, `${where}: its id`)
    assert.strictEqual(message.error?.code, -32600, `${where}: code`)
    return
  }
  if (expected._tag === "Error") {
    assert.strictEqual(decoded._tag, "Invalid", `${where}: expected an error`)
    const invalid = decoded as Wire.Invalid
    assert.deepStrictEqual(invalid.id, expected.id, `${where}: id of the error`)
    const wire = invalid.error.toWire("2025-11-25")
    assert.strictEqual(wire.code, expected.code, `${where}: code`)
    assert.isString(wire.message)
    assert.isAbove(wire.message.length, 0)
  } else {
    assert.strictEqual(decoded._tag, "Single", `${where}: expected a message, got ${show(decoded)}`)
    const message = (decoded as Wire.Single).message
    assert.isTrue(equalModuloProto(message, value), `${where}: the message is kept verbatim`)
    assert.isTrue(clean(message), `${where}: no __proto__ survives`)
  }
}

/** Checks `Wire.decode(text)` against the oracle. */
const checkDecode = (text: string) => {
  let inbound: Wire.Inbound
  try {
    inbound = Wire.decode(text)
  } catch (error) {
    throw new Error(`Wire.decode threw on ${JSON.stringify(text.slice(0, 200))}: ${String(error)}`)
  }
  const expected = expectFrame(text)
  const where = JSON.stringify(text.slice(0, 120))
  if (expected._tag === "Batch") {
    assert.strictEqual(inbound._tag, "Batch", `${where}: a batch`)
    const value = JSON.parse(text) as Array<unknown>
    const items = (inbound as Wire.Batch).items
    assert.strictEqual(items.length, expected.items.length)
    expected.items.forEach((item, i) => checkMessage(items[i], item, value[i], `${where}[${i}]`))
  } else if (expected._tag === "Error" && expected.code === -32700) {
    assert.strictEqual(inbound._tag, "Invalid", `${where}: invalid JSON`)
    assert.strictEqual((inbound as Wire.Invalid).error._tag, "ParseError")
    assert.isNull((inbound as Wire.Invalid).id)
    assert.strictEqual((inbound as Wire.Invalid).error.toWire("2025-11-25").code, -32700)
  } else {
    assert.notStrictEqual(inbound._tag, "Batch", `${where}: not a batch`)
    checkMessage(inbound as Wire.Single | Wire.Invalid, expected, JSON.parse(text), where)
  }
}

// ---------------------------------------------------------------------------- generators

const methods = Array.from(new Set(Method.definitions.map((d) => d.name)))
const toolNames = ["echo", "slow", "slow", "boom", "nope"] as const

/** Small pools so that ids repeat (duplicates in flight), plus anything. */
const idArb: fc.Arbitrary<Id> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom<Id>(1, 2, 3, "a", "b", 0) },
  fc.integer(),
  fc.string({ maxLength: 4 }),
  fc.double({ noNaN: true, noDefaultInfinity: true })
)

const methodArb = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...methods) },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) }
)

const weirdKey = fc.constantFrom("__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "_meta")
const smallObject = fc.dictionary(fc.oneof(fc.string({ maxLength: 6 }), weirdKey), fc.jsonValue({ maxDepth: 2 }), {
  maxKeys: 4
})

const metaArb = fc.oneof(
  fc.record({ progressToken: fc.oneof(idArb, fc.jsonValue({ maxDepth: 1 })) }),
  fc.jsonValue({ maxDepth: 2 })
)

const toolCallParams = fc.record({
  name: fc.oneof(fc.constantFrom(...toolNames), fc.jsonValue({ maxDepth: 1 })),
  arguments: fc.oneof(
    fc.record({ text: fc.oneof(fc.string(), fc.jsonValue({ maxDepth: 2 })) }),
    fc.jsonValue({ maxDepth: 2 })
  ),
  _meta: metaArb
}, { requiredKeys: ["name"] })

const paramsArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(undefined),
  smallObject,
  toolCallParams,
  fc.record({ uri: fc.oneof(fc.constant("test://doc"), fc.string()), name: fc.string(), level: fc.string() }, {
    requiredKeys: []
  }),
  fc.jsonValue({ maxDepth: 2 })
)

const withParams = (message: Record<string, unknown>, params: unknown) =>
  params === undefined ? message : { ...message, params }

const requestArb = fc.tuple(idArb, methodArb, paramsArb).map(([id, method, params]) =>
  withParams({ jsonrpc: "2.0", id, method }, params)
)
const toolCallArb = fc.tuple(idArb, toolCallParams).map(([id, params]) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params
}))
const cancelledArb = fc.tuple(idArb, fc.option(fc.string(), { nil: undefined })).map(([requestId, reason]) => ({
  jsonrpc: "2.0",
  method: "notifications/cancelled",
  params: reason === undefined ? { requestId } : { requestId, reason }
}))
const notificationArb = fc.oneof(
  fc.tuple(methodArb, paramsArb).map(([method, params]) => withParams({ jsonrpc: "2.0", method }, params)),
  cancelledArb
)
const responseArb = fc.oneof(
  fc.tuple(idArb, fc.jsonValue({ maxDepth: 2 })).map(([id, result]) => ({ jsonrpc: "2.0", id, result })),
  fc.tuple(fc.oneof(idArb, fc.constant(null)), fc.integer(), fc.string(), fc.option(fc.jsonValue({ maxDepth: 2 })))
    .map(([id, code, message, data]) => ({
      jsonrpc: "2.0",
      id,
      error: data === null ? { code, message } : { code, message, data }
    }))
)

const fields = ["jsonrpc", "id", "method", "params", "result", "error"] as const
type Mutation =
  | { readonly _tag: "Remove"; readonly field: string }
  | { readonly _tag: "Retype"; readonly field: string; readonly value: unknown }
const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ _tag: fc.constant("Remove" as const), field: fc.constantFrom(...fields) }),
  fc.record({
    _tag: fc.constant("Retype" as const),
    field: fc.constantFrom(...fields, "extra"),
    value: fc.oneof(
      fc.jsonValue({ maxDepth: 2 }),
      fc.constantFrom<unknown>(null, true, 0, 1.5, -1, "", "2.0", "1.0", [], {}, [1], { code: 1 })
    )
  })
)
const mutate = (message: Record<string, unknown>, mutations: ReadonlyArray<Mutation>) => {
  const out: Record<string, unknown> = { ...message }
  for (const m of mutations) {
    if (m._tag === "Remove") delete out[m.field]
    else out[m.field] = m.value
  }
  return out
}

const messageArb = fc.oneof(
  { weight: 3, arbitrary: requestArb },
  { weight: 2, arbitrary: toolCallArb },
  { weight: 2, arbitrary: notificationArb },
  { weight: 1, arbitrary: responseArb }
)
const mutatedArb = fc.tuple(messageArb, fc.array(mutationArb, { maxLength: 2 })).map(([m, ms]) => mutate(m, ms))

/** `__proto__` / `constructor` keys put in as text (an object literal would set the prototype). */
const protoInjections = [
  `"__proto__":{"polluted":true,"method":"ping","id":7}`,
  `"__proto__":null`,
  `"__proto__":[1,2]`,
  `"constructor":{"prototype":{"polluted":true}}`,
  `"__proto__":{"__proto__":{"polluted":true}}`,
  // The same key spelled with escapes: JSON.parse still makes it `__proto__`.
  `"\\u005f_proto__":{"polluted":true,"method":"ping"}`,
  `"__proto\\u005F_":{"arguments":{"text":"x"}}`
]
const injectArb = fc.tuple(mutatedArb, fc.constantFrom(...protoInjections), fc.nat()).map(([m, injection, at]) => {
  const text = JSON.stringify(m)
  const opens = Array.from(text.matchAll(/\{/g), (match) => match.index!)
  const position = opens[at % opens.length] + 1
  const rest = text.slice(position)
  return text.slice(0, position) + injection + (rest.startsWith("}") ? "" : ",") + rest
})

/** Nesting `depth` deep, of arrays or objects, optionally with `__proto__` keys on the way. */
const deepArb = fc.tuple(fc.integer({ min: 1, max: 20_000 }), fc.constantFrom("array", "object", "proto")).map((
  [depth, kind]
) =>
  kind === "array"
    ? "[".repeat(depth) + "]".repeat(depth)
    : kind === "object"
    ? "{\"a\":".repeat(depth) + "1" + "}".repeat(depth)
    : "{\"__proto__\":{},\"a\":".repeat(depth) + "1" + "}".repeat(depth)
)
const deepMessageArb = fc.tuple(idArb, deepArb, fc.constantFrom("params", "uri", "arguments", "id", "error", "batch"))
  .map((
    [id, deep, where]
  ) => {
    const i = JSON.stringify(id)
    switch (where) {
      case "params":
        return `{"jsonrpc":"2.0","id":${i},"method":"ping","params":{"deep":${deep}}}`
      case "uri":
        return `{"jsonrpc":"2.0","id":${i},"method":"resources/read","params":{"uri":${deep}}}`
      case "arguments":
        return `{"jsonrpc":"2.0","id":${i},"method":"tools/call","params":{"name":"echo","arguments":{"text":${deep}}}}`
      case "id":
        return `{"jsonrpc":"2.0","id":${deep},"method":"ping"}`
      case "error":
        return `{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"x","data":${deep}}}`
      default:
        return `[${deep}]`
    }
  })

const hugeNumberArb = fc.tuple(
  fc.constantFrom(
    "1e400",
    "-1e400",
    "123456789012345678901234567890",
    "1e-400",
    "-0",
    "0.1e1",
    "1E2",
    "9007199254740993"
  ),
  fc.constantFrom("id", "code", "progressToken")
).map(([n, where]) =>
  where === "id"
    ? `{"jsonrpc":"2.0","id":${n},"method":"ping"}`
    : where === "code"
    ? `{"jsonrpc":"2.0","id":1,"error":{"code":${n},"message":"x"}}`
    : `{"jsonrpc":"2.0","id":${n},"method":"tools/call","params":{"name":"echo","arguments":{"text":"t"},"_meta":{"progressToken":${n}}}}`
)

const truncatedArb = fc.tuple(mutatedArb, fc.nat()).map(([m, at]) => {
  const text = JSON.stringify(m)
  return text.slice(0, at % text.length)
})

const batchArb = fc.array(fc.oneof(mutatedArb, fc.jsonValue({ maxDepth: 1 })), { maxLength: 4 }).map((items) =>
  JSON.stringify(items)
)

const garbageArb = fc.oneof(
  fc.string(),
  fc.fullUnicodeString(),
  fc.string({ unit: "binary" }),
  fc.json(),
  fc.constantFrom("", " ", "\n", "null", "true", "\"\"", "{}", "[]", "[[]]", "{\"jsonrpc\":\"2.0\"}", "\uFEFF{}")
)

/** Any frame text, weighted towards texts that are almost messages. */
const frameArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: mutatedArb.map((m) => JSON.stringify(m)) },
  { weight: 4, arbitrary: messageArb.map((m) => JSON.stringify(m)) },
  { weight: 2, arbitrary: injectArb },
  { weight: 2, arbitrary: garbageArb },
  { weight: 1, arbitrary: truncatedArb },
  { weight: 1, arbitrary: batchArb },
  { weight: 1, arbitrary: hugeNumberArb },
  { weight: 1, arbitrary: deepMessageArb }
)

// ---------------------------------------------------------------------------- the server under test

const Echo = Tool.make(
  "echo",
  { parameters: Schema.Struct({ text: Schema.String }) },
  ({ text }) => Effect.succeed(text)
)
/** Long enough for a later line with the same id to find it in flight. */
const Slow = Tool.make("slow", {}, () => Effect.as(Effect.sleep("10 millis"), "slept"))
const Boom = Tool.make("boom", {}, () => Effect.die(new Error("boom")))
const Doc = Resource.make("test://doc", { name: "doc", mimeType: "text/plain" }, Effect.succeed("the doc"))
const Greeting = Prompt.make(
  "greeting",
  { arguments: Schema.Struct({ name: Schema.String }) },
  ({ name }) => Effect.succeed(`Hello, ${name}!`)
)

const serverOptions = {
  serverInfo: { name: "fuzz", version: "0.0.0" },
  tools: [Echo, Slow, Boom],
  resources: [Doc],
  prompts: [Greeting]
}
const clientInfo = { name: "fuzz-client", version: "0.0.0" }

/** Log lines at level Error and above, kept for the assertions (and kept off the console). */
const captureLogs = () => {
  const lines: Array<string> = []
  const logger = Logger.make<unknown, void>(({ logLevel, message }) => {
    if (logLevel._tag === "Error" || logLevel._tag === "Fatal") {
      lines.push((Array.isArray(message) ? message : [message]).map(String).join(" "))
    }
  })
  return { lines, layer: Logger.replace(Logger.defaultLogger, logger) }
}

/** Lines whose error log is expected: the defect of `boom`. */
const expectedLog = (line: string) => line.includes("effect-mcp: tools/call boom failed")

/** Is this request a call of the `boom` tool (whose defect is -32603)? */
const isBoomCall = (e: Expected) =>
  e._tag === "Request" && e.method === "tools/call" && isPlainObject(e.params) && e.params.name === "boom"

interface Expectations {
  /** Responses expected per id key. */
  readonly perId: Map<string, number>
  /** Id keys that a `notifications/cancelled` in the sequence names (their answer may be dropped). */
  readonly cancelled: Set<string>
  /** Id keys of `boom` calls (the only requests that may get -32603). */
  readonly boom: Set<string>
  /** `id: null` errors expected, by code. */
  readonly nullErrors: Map<number, number>
}

/** What a session must answer to these lines: batches are answered item by item, or refused whole. */
const expectationsOf = (lines: ReadonlyArray<string>, batching: boolean): Expectations => {
  const perId = new Map<string, number>()
  const cancelled = new Set<string>()
  const boom = new Set<string>()
  const nullErrors = new Map<number, number>()
  const bump = <K>(map: Map<K, number>, k: K) => map.set(k, (map.get(k) ?? 0) + 1)
  const one = (e: Expected) => {
    if (e._tag === "Error") e.id === null ? bump(nullErrors, e.code) : bump(perId, key(e.id))
    else if (e._tag === "Request") {
      bump(perId, key(e.id))
      if (isBoomCall(e)) boom.add(key(e.id))
    } else if (e._tag === "Notification" && e.method === "notifications/cancelled") {
      const requestId = isPlainObject(e.params) ? e.params.requestId : undefined
      if (isId(requestId)) cancelled.add(key(requestId))
    }
  }
  for (const line of lines) {
    const e = expectFrame(line)
    if (e._tag !== "Batch") one(e)
    else if (batching) e.items.forEach(one)
    else bump(nullErrors, -32600)
  }
  return { perId, cancelled, boom, nullErrors }
}

interface Tally {
  readonly perId: Map<string, number>
  readonly nullErrors: Map<number, number>
  readonly internal: Array<string>
  readonly duplicates: Array<string>
}

const emptyTally = (): Tally => ({ perId: new Map(), nullErrors: new Map(), internal: [], duplicates: [] })

/** Counts one message the server sent; everything it sends here must be a response. */
const tally = (t: Tally, message: any, context: string) => {
  assert.isTrue(isPlainObject(message), `${context}: not an object: ${show(message)}`)
  assert.strictEqual(message.jsonrpc, "2.0", context)
  assert.isFalse(has(message, "method"), `${context}: the server sent ${show(message)}`)
  assert.isTrue(has(message, "result") !== has(message, "error"), `${context}: result xor error`)
  if (has(message, "error")) {
    assert.isTrue(Number.isInteger(message.error.code), context)
    assert.isString(message.error.message, context)
  }
  if (message.id === null) {
    assert.isTrue(has(message, "error"), `${context}: a null id is only for errors`)
    t.nullErrors.set(message.error.code, (t.nullErrors.get(message.error.code) ?? 0) + 1)
    return
  }
  assert.isTrue(isId(message.id), `${context}: id ${show(message.id)}`)
  const k = key(message.id)
  t.perId.set(k, (t.perId.get(k) ?? 0) + 1)
  if (message.error?.code === -32603) t.internal.push(k)
  if (message.error?.code === -32600 && /already in flight/.test(message.error.message)) t.duplicates.push(k)
}

/** Has everything expected arrived (answers to cancelled ids aside)? */
const satisfied = (e: Expectations, t: Tally) =>
  Array.from(e.perId).every(([k, n]) => e.cancelled.has(k) || (t.perId.get(k) ?? 0) >= n) &&
  Array.from(e.nullErrors).every(([code, n]) => (t.nullErrors.get(code) ?? 0) >= n)

const checkTally = (lines: ReadonlyArray<string>, e: Expectations, t: Tally) => {
  const show = () => `lines:\n${lines.map((l) => `  ${l.slice(0, 300)}`).join("\n")}`
  for (const [k, n] of e.perId) {
    const got = t.perId.get(k) ?? 0
    if (e.cancelled.has(k)) assert.isAtMost(got, n, `answers to ${k} (cancelled)\n${show()}`)
    else assert.strictEqual(got, n, `answers to ${k}\n${show()}`)
  }
  for (const k of t.perId.keys()) assert.isTrue(e.perId.has(k), `an answer to ${k}, which nobody asked\n${show()}`)
  const codes = new Set([...e.nullErrors.keys(), ...t.nullErrors.keys()])
  for (const code of codes) {
    assert.strictEqual(t.nullErrors.get(code) ?? 0, e.nullErrors.get(code) ?? 0, `id-null errors ${code}\n${show()}`)
  }
  for (const k of t.internal) assert.isTrue(e.boom.has(k), `-32603 for ${k}, which is no defect\n${show()}`)
  for (const k of t.duplicates) assert.isAtLeast(e.perId.get(k) ?? 0, 2, `${k} reported in flight\n${show()}`)
}

/** Runs one session: initialize at `revision`, the lines, then pings; checks every answer. */
const session = (revision: "2025-11-25" | "2025-03-26", lines: ReadonlyArray<string>) => {
  const logs = captureLogs()
  return Effect.gen(function*() {
    const server = yield* McpServer.make(serverOptions)
    const { protocol, remote } = yield* MemoryTransport.connection
    yield* Effect.forkScoped(server.serve(protocol))
    const read = Effect.flatMap(
      remote.read.pipe(
        Effect.timeoutFail({ duration: "2 seconds", onTimeout: () => new Error("the server went quiet") })
      ),
      (text) => Effect.try(() => JSON.parse(text))
    )
    yield* remote.write(JSON.stringify({
      jsonrpc: "2.0",
      id: "~init",
      method: "initialize",
      params: { protocolVersion: revision, capabilities: {}, clientInfo }
    }))
    const init = yield* read
    assert.strictEqual(init.result?.protocolVersion, revision)
    yield* remote.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }))

    for (const line of lines) yield* remote.write(line)
    const expected = expectationsOf(lines, revision === "2025-03-26")
    const t = emptyTally()
    const untilPing = (id: string) =>
      Effect.gen(function*() {
        let answered = false
        while (!answered || !satisfied(expected, t)) {
          const message = yield* read.pipe(
            Effect.mapError((error) =>
              new Error(
                `${String(error)} (ping ${id} answered: ${answered}); expected ${
                  JSON.stringify(Array.from(expected.perId))
                }, got ${JSON.stringify(Array.from(t.perId))}\n${lines.join("\n")}`
              )
            )
          )
          if (message?.id === id) {
            assert.deepStrictEqual(message.result, {}, `ping ${id}`)
            answered = true
          } else if (Array.isArray(message)) {
            // A batch's answers: one non-empty array.
            assert.isAbove(message.length, 0, "an empty batch response")
            for (const item of message) tally(t, item, `a batch response after ${lines.length} lines`)
          } else tally(t, message, `after ${lines.length} lines`)
        }
      })
    yield* remote.write(JSON.stringify({ jsonrpc: "2.0", id: "~ping-1", method: "ping" }))
    yield* untilPing("~ping-1")
    // Whatever else was coming has had the time of a round trip to arrive.
    yield* remote.write(JSON.stringify({ jsonrpc: "2.0", id: "~ping-2", method: "ping" }))
    yield* untilPing("~ping-2")
    checkTally(lines, expected, t)
    const unexpected = logs.lines.filter((line) => !expectedLog(line))
    assert.deepStrictEqual(unexpected, [], `error logs\n${lines.join("\n")}`)
    assert.isUndefined(({} as any).polluted, "Object.prototype polluted")
  }).pipe(Effect.scoped, Effect.provide(logs.layer))
}

// ---------------------------------------------------------------------------- 1. Wire.decode

describe("fuzz: Wire.decode", () => {
  it("never throws and classifies arbitrary strings", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.fullUnicodeString(), fc.string({ unit: "binary" })), checkDecode),
      { numRuns: 200 }
    )
  })

  it("never throws and classifies arbitrary JSON", () => {
    fc.assert(fc.property(fc.oneof(fc.json(), fc.jsonValue().map((v) => JSON.stringify(v))), checkDecode), {
      numRuns: 200
    })
  })

  it("classifies mutated, injected, truncated, batched, deep and huge-number messages", () => {
    fc.assert(fc.property(frameArb, checkDecode), { numRuns: 300 })
  })

  it("classifies deep nesting of every kind", () => {
    fc.assert(fc.property(deepMessageArb, checkDecode), { numRuns: 100 })
  })
})

// ---------------------------------------------------------------------------- 2. a session

describe("fuzz: a session on Transport.memory", () => {
  it("2025-11-25: answers every request once, never a notification, refuses batches, and survives", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(frameArb, { minLength: 1, maxLength: 25 }),
        (lines) => Effect.runPromise(session("2025-11-25", lines))
      ),
      { numRuns: 200 }
    )
  }, 60_000)

  it("2025-03-26: the same with batches served item by item", async () => {
    const batched = fc.array(frameArb.filter((line) => !line.startsWith("[")), { minLength: 1, maxLength: 5 }).map((
      items
    ) => `[${items.join(",")}]`)
    const line = fc.oneof(frameArb, batched)
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { minLength: 1, maxLength: 20 }),
        (lines) => Effect.runPromise(session("2025-03-26", lines))
      ),
      { numRuns: 100 }
    )
  }, 60_000)
})

// ---------------------------------------------------------------------------- 3. stdio framing

/** JSON texts with multi-byte characters (2, 3 and 4 bytes in UTF-8), one per line. */
const lineArb = fc.oneof(
  fc.tuple(idArb, fc.fullUnicodeString(), fc.string({ unit: "grapheme" })).map(([id, a, b]) =>
    JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "echo", arguments: { text: a, b } } })
  ),
  fc.constantFrom("é", "€", "😀", "\u2028", "👩‍👩‍👧").map((c) =>
    JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { data: c.repeat(3) } })
  ),
  mutatedArb.map((m) => JSON.stringify(m)),
  injectArb
)

interface Framing {
  /** The lines (JSON texts), in order. */
  readonly lines: ReadonlyArray<string>
  /** The bytes on the wire. */
  readonly bytes: Uint8Array
  /** Chunk boundaries (sorted byte offsets). */
  readonly cuts: ReadonlyArray<number>
}

const framingArb: fc.Arbitrary<Framing> = fc.tuple(
  fc.array(fc.tuple(lineArb, fc.constantFrom("\n", "\r\n", "\n\n", "\n \n")), { minLength: 1, maxLength: 8 }),
  fc.boolean(),
  fc.array(fc.nat(), { maxLength: 40 })
).map(([entries, trailing, raw]) => {
  let text = entries.map(([line, end]) => line + end).join("")
  // Without the final newline, the last line is flushed at the end of input.
  if (!trailing) text = text.replace(/[\r\n ]+$/, "")
  const bytes = new TextEncoder().encode(text)
  const cuts = Array.from(new Set(raw.map((n) => n % (bytes.length + 1)))).sort((a, b) => a - b)
  return { lines: entries.map(([line]) => line), bytes, cuts }
})

const chunksOf = ({ bytes, cuts }: Framing): Array<Uint8Array> => {
  const out: Array<Uint8Array> = []
  let start = 0
  for (const cut of [...cuts, bytes.length]) {
    out.push(bytes.subarray(start, cut))
    start = cut
  }
  return out
}

/** A comparable form of a decoded frame. */
const normalize = (inbound: Wire.Inbound): unknown =>
  inbound._tag === "Single"
    ? { _tag: "Single", message: inbound.message }
    : inbound._tag === "Invalid"
    ? { _tag: "Invalid", id: inbound.id, error: inbound.error._tag, message: inbound.error.message }
    : { _tag: "Batch", items: inbound.items.map(normalize) }

const checkFraming = (framing: Framing, got: ReadonlyArray<Wire.Inbound>, how: string) => {
  const want = framing.lines.map((line) => normalize(Wire.decode(line)))
  assert.deepStrictEqual(got.map(normalize), want, `${how}: cuts ${JSON.stringify(framing.cuts)}`)
}

/** Runs a protocol to its end, collecting what it delivers. */
const receiveAll = (protocol: Transport.Protocol) =>
  Effect.suspend(() => {
    const got: Array<Wire.Inbound> = []
    return Effect.as(
      protocol.run({
        receive: (_client, inbound) => got.push(inbound),
        disconnect: () => {},
        responseClosed: () => {},
        fail: () => {}
      }),
      got
    )
  })

describe("fuzz: newline-delimited framing", () => {
  it("Ndjson.reader behind TextDecoder({ stream: true }) and StringDecoder", () => {
    fc.assert(
      fc.property(framingArb, (framing) => {
        const viaText: Array<Wire.Inbound> = []
        const text = Ndjson.reader((inbound) => viaText.push(inbound))
        const textDecoder = new TextDecoder("utf-8", { fatal: true })
        for (const chunk of chunksOf(framing)) text.push(textDecoder.decode(chunk, { stream: true }))
        text.push(textDecoder.decode())
        text.end()
        checkFraming(framing, viaText, "TextDecoder")

        const viaString: Array<Wire.Inbound> = []
        const string = Ndjson.reader((inbound) => viaString.push(inbound))
        const stringDecoder = new StringDecoder("utf8")
        for (const chunk of chunksOf(framing)) string.push(stringDecoder.write(Buffer.from(chunk)))
        string.push(stringDecoder.end())
        string.end()
        checkFraming(framing, viaString, "StringDecoder")
      }),
      { numRuns: 200 }
    )
  })

  it("Ndjson.fromBytes over a byte stream", async () => {
    await fc.assert(
      fc.asyncProperty(framingArb, (framing) =>
        Effect.gen(function*() {
          const protocol = Ndjson.fromBytes({
            input: Stream.fromIterable(chunksOf(framing)),
            write: () => Effect.void
          })
          const got = yield* receiveAll(protocol)
          checkFraming(framing, got, "ndjson")
        }).pipe(Effect.scoped, Effect.runPromise)),
      { numRuns: 200 }
    )
  })

  it("NodeMcpServer.protocol over a Node stream", async () => {
    await fc.assert(
      fc.asyncProperty(framingArb, (framing) =>
        Effect.gen(function*() {
          const input = new PassThrough()
          // Nobody answers here: the end of input waits for nothing.
          const protocol = NodeMcpServer.protocol(input, new PassThrough(), { endOfInputGrace: 0 })
          for (const chunk of chunksOf(framing)) input.write(Buffer.from(chunk))
          input.end()
          const got = yield* receiveAll(protocol).pipe(Effect.timeout("2 seconds"))
          checkFraming(framing, got, "NodeMcpServer.protocol")
        }).pipe(Effect.scoped, Effect.runPromise)),
      { numRuns: 200 }
    )
  })
})

// ---------------------------------------------------------------------------- 4. Streamable HTTP

const freePort = (): Promise<number> => Effect.runPromise(Services.freePort)

const ACCEPT = "application/json, text/event-stream"

/** Every message of a response body: one JSON value (or a batch), or the data of SSE events. */
const messagesOf = (contentType: string, body: string): Array<any> => {
  if (contentType.startsWith("text/event-stream")) {
    return body.split(/\r?\n\r?\n/).flatMap((frame) => {
      const data = frame.split(/\r?\n/).filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trimStart())
      return data.length === 0 || data.join("\n") === "" ? [] : [JSON.parse(data.join("\n"))]
    })
  }
  if (body === "") return []
  const value = JSON.parse(body)
  return Array.isArray(value) ? value : [value]
}

describe("fuzz: Streamable HTTP", () => {
  const logs = captureLogs()
  let runtime: ManagedRuntime.ManagedRuntime<McpServer.McpServer, unknown>
  let url = ""
  let sessionId = ""
  let pings = 0

  const post = async (body: string, headers: Record<string, string> = {}) => {
    const response = await fetch(url, {
      method: "POST",
      headers: {
        accept: ACCEPT,
        "content-type": "application/json",
        ...(sessionId === "" ? {} : { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" }),
        ...headers
      },
      body,
      // No request may hang: the whole exchange, body included, within this.
      signal: AbortSignal.timeout(3000)
    })
    const text = await response.text()
    return { status: response.status, contentType: response.headers.get("content-type") ?? "", text, response }
  }

  beforeAll(async () => {
    const port = await freePort()
    runtime = ManagedRuntime.make(
      // The logger first: every fiber the server forks (request handlers too) inherits it.
      NodeMcpServer.layerHttp({ port }).pipe(
        Layer.provideMerge(McpServer.layer(serverOptions)),
        Layer.provideMerge(logs.layer)
      )
    )
    await runtime.runPromise(McpServer.McpServer)
    url = `http://127.0.0.1:${port}/mcp`
    const init = await post(JSON.stringify({
      jsonrpc: "2.0",
      id: "~init",
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo }
    }))
    assert.strictEqual(init.status, 200, init.text)
    sessionId = init.response.headers.get("mcp-session-id") ?? ""
    assert.notStrictEqual(sessionId, "")
    const initialized = await post(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }))
    assert.strictEqual(initialized.status, 202)
  })

  afterAll(async () => {
    await runtime?.dispose()
  })

  const ping = async () => {
    const id = `~ping-${++pings}`
    const answer = await post(JSON.stringify({ jsonrpc: "2.0", id, method: "ping" }))
    assert.strictEqual(answer.status, 200, answer.text)
    const messages = messagesOf(answer.contentType, answer.text)
    assert.deepStrictEqual(messages.at(-1), { jsonrpc: "2.0", id, result: {} })
  }

  /** One POST: never 5xx; the status and the answer the oracle says. */
  const check = async (body: string) => {
    const { contentType, status, text } = await post(body)
    const where = `POST ${body.slice(0, 300)} → ${status} ${text.slice(0, 300)}`
    assert.isBelow(status, 500, where)
    const expected = expectFrame(body)
    if (expected._tag === "Request") {
      assert.strictEqual(status, 200, where)
      const answers = messagesOf(contentType, text).filter((m) => !has(m, "method"))
      assert.strictEqual(answers.length, 1, where)
      assert.strictEqual(key(answers[0].id), key(expected.id), where)
      if (answers[0].error?.code === -32603) assert.isTrue(isBoomCall(expected), where)
    } else if (expected._tag === "Notification" || expected._tag === "Response" || expected._tag === "FlawedResponse") {
      assert.strictEqual(status, 202, where)
    } else {
      assert.strictEqual(status, 400, where)
      const error = JSON.parse(text)
      const wantId = expected._tag === "Error" ? expected.id : null
      const wantCode = expected._tag === "Error" ? expected.code : -32600
      assert.deepStrictEqual({ id: error.id, code: error.error?.code }, { id: wantId, code: wantCode }, where)
    }
  }

  it("random POST bodies, one by one then all at once: no 5xx, no hang, the session answers ping", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(frameArb.filter((body) => body.length < 200_000), { minLength: 1, maxLength: 5 }),
        async (bodies) => {
          // One at a time: the exact answer of each.
          for (const body of bodies) await check(body)
          await ping()
          // All at once: ids busy in another POST, cancellations across POSTs; still no 5xx, no hang.
          const statuses = await Promise.all(bodies.map((body) => post(body).then((r) => r.status)))
          for (const status of statuses) assert.isBelow(status, 500, JSON.stringify(bodies).slice(0, 500))
          await ping()
          const unexpected = logs.lines.filter((line) => !expectedLog(line))
          assert.deepStrictEqual(unexpected, [], "error logs")
        }
      ),
      { numRuns: 30 }
    )
  }, 60_000)
})
