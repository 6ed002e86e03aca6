/**
 * Multi-round-trip requests (2026-07-28) at the wire: asks answered from the retry or turned into
 * one `input_required` result; the sealed `requestState` (answers of earlier rounds, the
 * handler's own state; tampered, expired and foreign states refused); capabilities; a retry that
 * reaches another server with the same key.
 */
import { McpError } from "@effect-mcp/core"
import { validate } from "@effect-mcp/test-support/OfficialSchema"
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Config from "effect/Config"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/TestClock"
import * as McpRequest from "../src/McpRequest.js"
import * as McpServer from "../src/McpServer.js"
import * as Prompt from "../src/Prompt.js"
import * as Resource from "../src/Resource.js"
import * as Tool from "../src/Tool.js"
import { attach, connect, meta } from "./utils/TestClient.js"

const serverInfo = { name: "mrtr-test", version: "1.0.0" }

const form = (message: string) => ({
  message,
  requestedSchema: { type: "object" as const, properties: { name: { type: "string" as const } } }
})

/** A failed ask becomes the tool's own failure (its isError result): its message. */
const failure = Schema.String
const told = <A, E extends { readonly message: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.mapError(effect, (error) => error.message)

const Greet = Tool.make(
  "greet",
  { parameters: Schema.Struct({ greeting: Schema.String }), failure },
  ({ greeting }) =>
    told(
      Effect.map(McpRequest.elicit("name", form("Who are you?")), (answer) => `${greeting}, ${answer.content?.name}`)
    )
)

const Both = Tool.make("both", { failure }, () =>
  told(Effect.map(
    Effect.all([McpRequest.elicit("name", form("Name?")), McpRequest.roots("roots")], { concurrency: "unbounded" }),
    ([answer, roots]) => `${answer.content?.name} has ${roots.length} roots`
  )))

const Steps = Tool.make("steps", { failure }, () =>
  told(Effect.gen(function*() {
    const first = yield* McpRequest.elicit("first", form("First?"))
    const second = yield* McpRequest.elicit("second", form("Second?"))
    return `${first.content?.name} then ${second.content?.name}`
  })))

/** The low-level API: its own requestState, and the answer read back on the retry. */
const Manual = Tool.make("manual", {}, () =>
  Effect.gen(function*() {
    const answer = yield* McpRequest.inputResponse("ok")
    if (Option.isNone(answer)) {
      return yield* McpServer.inputRequired({
        inputRequests: { ok: McpServer.elicitForm(form("Sure?")) },
        requestState: "step-1"
      })
    }
    const state = yield* McpRequest.requestState
    return `confirmed at ${Option.getOrElse(state, () => "?")}`
  }))

/** The low-level API with typed state: a Schema value sealed in round 1, read back on the retry. */
const Draft = Schema.Struct({ step: Schema.Int, draft: Schema.String })
const Typed = Tool.make("typed", {}, () =>
  Effect.gen(function*() {
    const state = yield* McpRequest.requestStateAs(Draft)
    if (Option.isNone(state)) {
      return yield* McpServer.inputRequiredWith(Draft)({
        inputRequests: { ok: McpServer.elicitForm(form("Send the draft?")) },
        state: { step: 1, draft: "hello" }
      })
    }
    return `step ${state.value.step}: ${state.value.draft}`
  }))

/** Seals a Draft, reads back something else (a schema changed between deployments). */
const Changed = Tool.make("changed", {}, () =>
  Effect.gen(function*() {
    const state = yield* McpRequest.requestStateAs(Schema.Struct({ page: Schema.Number }))
    if (Option.isNone(state)) {
      return yield* McpServer.inputRequiredWith(Draft)({ state: { step: 1, draft: "hello" } })
    }
    return `page ${state.value.page}`
  }))

/** Seals its own state of `size` characters, then completes on the retry. */
const Bulky = Tool.make(
  "bulky",
  { parameters: Schema.Struct({ size: Schema.Int }) },
  ({ size }) =>
    Effect.gen(function*() {
      const state = yield* McpRequest.requestState
      if (Option.isNone(state)) return yield* McpServer.inputRequired({ requestState: "x".repeat(size) })
      return `state of ${state.value.length}`
    })
)

/** Asks for sampling in its low-level form, whatever the request declares. */
const Sampler = Tool.make("sampler", {}, () =>
  McpServer.inputRequired({
    inputRequests: { s: McpServer.samplingRequest({ messages: [], maxTokens: 1 }) }
  }))

/** Asks for sampling with tools in its low-level form: the request must declare `sampling.tools`. */
const ToolSampler = Tool.make("tool-sampler", {}, () =>
  McpServer.inputRequired({
    inputRequests: {
      s: {
        method: "sampling/createMessage",
        params: { messages: [], maxTokens: 1, tools: [{ name: "t", inputSchema: { type: "object" } }] }
      }
    }
  }))

/** An ask's wire errors left to reach the client as themselves (a timeout or a closed connection is a defect). */
const asIs = <A, R>(ask: Effect.Effect<A, McpRequest.ClientRequestError, R>) =>
  Effect.catchIf(ask, (error) => !McpError.isMcpError(error), Effect.die)

/** A URL elicitation as a handler asks it in either era: with the elicitationId 2025-11-25 needs. */
const SignIn = Tool.make("sign-in", {}, () =>
  Effect.as(
    asIs(McpRequest.elicit("login", {
      mode: "url",
      message: "Sign in, please",
      url: "https://example.com/sign-in",
      elicitationId: "el-1"
    })),
    "signed in"
  ))

/** An ask whose refusal the tool does not handle: it reaches the client as itself. */
const Unhandled = Tool.make("unhandled", {}, () => Effect.as(asIs(McpRequest.roots("roots")), "rooted"))

const Paged = Prompt.make(
  "paged",
  {},
  () => Effect.map(Effect.orDie(McpRequest.elicit("page", form("Which page?"))), (a) => `page ${a.content?.name}`)
)

const Secret = Resource.make(
  "test://secret",
  { name: "secret" },
  Effect.map(Effect.orDie(McpRequest.elicit("pin", form("PIN?"))), (a) => `secret for ${a.content?.name}`)
)

const options = {
  serverInfo,
  tools: [Greet, Both, Steps, Manual, Sampler, ToolSampler, Typed, Changed, SignIn, Unhandled, Bulky],
  prompts: [Paged],
  resources: [Secret],
  revisions: ["2026-07-28"],
  requestStateKey: Redacted.make("a key shared by every process of this server")
} as const

const caps = { elicitation: {}, roots: {}, sampling: {} }

const accept = (name: string) => ({ action: "accept", content: { name } })

describe("Multi-round trips: asks in a stateless request", () => {
  it.scoped("round 1 is input_required with a sealed state; the retry with the answer completes", () =>
    Effect.gen(function*() {
      const client = yield* connect(options)
      const params = { name: "greet", arguments: { greeting: "hi" }, _meta: meta({}, caps) }
      const first = yield* client.result("tools/call", params)
      assert.strictEqual(first.resultType, "input_required")
      assert.deepStrictEqual(first.inputRequests, {
        name: { method: "elicitation/create", params: form("Who are you?") }
      })
      assert.isString(first.requestState)
      assert.isUndefined(first.ttlMs)
      assert.isUndefined(validate("2026-07-28", "InputRequiredResult", first))
      const done = yield* client.result("tools/call", {
        ...params,
        inputResponses: { name: accept("Ann") },
        requestState: first.requestState
      })
      assert.strictEqual(done.resultType, "complete")
      assert.deepStrictEqual(done.content, [{ type: "text", text: "hi, Ann" }])
    }))

  it.scoped("an answer of another kind (a roots result to an elicitation): the ask fails, naming the key", () =>
    Effect.gen(function*() {
      const client = yield* connect(options)
      const params = { name: "greet", arguments: { greeting: "hi" }, _meta: meta({}, caps) }
      const first = yield* client.result("tools/call", params)
      const done = yield* client.result("tools/call", {
        ...params,
        // Well-formed as an input response (the params decode), not as an elicitation's answer.
        inputResponses: { name: { roots: [] } },
        requestState: first.requestState
      })
      // `greet` turns its failed ask into its own failure: an isError result with the ask's message.
      assert.strictEqual(done.isError, true)
      assert.match(done.content[0].text, /^Invalid answer to elicitation\/create \(inputResponses\.name\): /)
    }))

  it.scoped("parallel asks of one run come back together in one input_required result", () =>
    Effect.gen(function*() {
      const client = yield* connect(options)
      const params = { name: "both", arguments: {}, _meta: meta({}, caps) }
      const first = yield* client.result("tools/call", params)
      assert.deepStrictEqual(Object.keys(first.inputRequests).sort(), ["name", "roots"])
      const done = yield* client.result("tools/call", {
        ...params,
        inputResponses: { name: accept("Bo"), roots: { roots: [{ uri: "file:///a" }] } },
        requestState: first.requestState
      })
      assert.deepStrictEqual(done.content, [{ type: "text", text: "Bo has 1 roots" }])
    }))

  it.scoped("multi-round: earlier answers ride in the state; a missing answer is asked again; extra keys are ignored", () =>
    Effect.gen(function*() {
      const client = yield* connect(options)
      const params = { name: "steps", arguments: {}, _meta: meta({}, caps) }
      const round1 = yield* client.result("tools/call", params)
      assert.deepStrictEqual(Object.keys(round1.inputRequests), ["first"])
      // The wrong key: the server asks again for what it needs, it is no error.
      const again = yield* client.result("tools/call", {
        ...params,
        inputResponses: { other: accept("x") },
        requestState: round1.requestState
      })
      assert.strictEqual(again.resultType, "input_required")
      assert.deepStrictEqual(Object.keys(again.inputRequests), ["first"])
      const round2 = yield* client.result("tools/call", {
        ...params,
        inputResponses: { first: accept("one"), extra: accept("ignored") },
        requestState: again.requestState
      })
      assert.deepStrictEqual(Object.keys(round2.inputRequests), ["second"])
      // Only the answers the handler read ride on: an extra key cannot grow the state.
      const payload = (state: string) => atob(state.split(".")[0].replace(/-/g, "+").replace(/_/g, "/"))
      assert.include(payload(round2.requestState), "one")
      assert.notInclude(payload(round2.requestState), "ignored")
      assert.notInclude(payload(again.requestState), "\"other\"")
      // Round 3 carries only the second answer: the first comes from the state.
      const done = yield* client.result("tools/call", {
        ...params,
        inputResponses: { second: accept("two") },
        requestState: round2.requestState
      })
      assert.deepStrictEqual(done.content, [{ type: "text", text: "one then two" }])
    }))

  it.scoped("prompts/get and resources/read may answer input_required too", () =>
    Effect.gen(function*() {
      const client = yield* connect(options)
      const prompt = yield* client.result("prompts/get", { name: "paged", _meta: meta({}, caps) })
      assert.strictEqual(prompt.resultType, "input_required")
      const page = yield* client.result("prompts/get", {
        name: "paged",
        _meta: meta({}, caps),
        inputResponses: { page: accept("2") },
        requestState: prompt.requestState
      })
      assert.strictEqual(page.messages[0].content.text, "page 2")
      const read = yield* client.result("resources/read", { uri: "test://secret", _meta: meta({}, caps) })
      assert.strictEqual(read.resultType, "input_required")
      const secret = yield* client.result("resources/read", {
        uri: "test://secret",
        _meta: meta({}, caps),
        inputResponses: { pin: accept("1234") },
        requestState: read.requestState
      })
      assert.strictEqual(secret.contents[0].text, "secret for 1234")
      // The result of a retry is never cached.
      assert.strictEqual(secret.ttlMs, 0)
    }))

  it.scoped("the low-level API: the handler's own requestState and the answer read back", () =>
    Effect.gen(function*() {
      const client = yield* connect(options)
      const params = { name: "manual", arguments: {}, _meta: meta({}, caps) }
      const first = yield* client.result("tools/call", params)
      assert.deepStrictEqual(Object.keys(first.inputRequests), ["ok"])
      assert.notInclude(first.requestState, "step-1", "the handler's state is sealed, not shown")
      const done = yield* client.result("tools/call", {
        ...params,
        inputResponses: { ok: { action: "accept", content: {} } },
        requestState: first.requestState
      })
      assert.deepStrictEqual(done.content, [{ type: "text", text: "confirmed at step-1" }])
    }))

  it.scoped("typed state: a Schema value rides sealed in requestState and decodes on the retry", () =>
    Effect.gen(function*() {
      const client = yield* connect(options)
      const params = { name: "typed", arguments: {}, _meta: meta({}, caps) }
      const first = yield* client.result("tools/call", params)
      assert.strictEqual(first.resultType, "input_required")
      assert.notInclude(first.requestState, "hello", "the state is sealed, not shown")
      const done = yield* client.result("tools/call", {
        ...params,
        inputResponses: { ok: { action: "accept", content: {} } },
        requestState: first.requestState
      })
      assert.deepStrictEqual(done.content, [{ type: "text", text: "step 1: hello" }])
      // State that no longer decodes is the request's error, not the tool's.
      const changed = { name: "changed", arguments: {}, _meta: meta({}, caps) }
      const sealed = yield* client.result("tools/call", changed)
      const error = yield* client.error("tools/call", { ...changed, requestState: sealed.requestState })
      assert.strictEqual(error.code, -32602)
      assert.include(error.message, "Invalid requestState")
      assert.notMatch(error.message, /[└├─]|\n/, "one line per problem, not Effect's tree")
    }))
})

describe("Multi-round trips: the sealed state", () => {
  const roundOne = Effect.gen(function*() {
    const client = yield* connect(options)
    const params = { name: "greet", arguments: { greeting: "hi" }, _meta: meta({}, caps) }
    const first = yield* client.result("tools/call", params)
    return { client, params, state: first.requestState as string }
  })

  it.scoped("a tampered state is a JSON-RPC error (-32602)", () =>
    Effect.gen(function*() {
      const { client, params, state } = yield* roundOne
      for (const tampered of [`${state}-TAMPERED`, `x${state}`, "nope", state.replace(/\./, ".x")]) {
        const error = yield* client.error("tools/call", {
          ...params,
          inputResponses: { name: accept("Ann") },
          requestState: tampered
        })
        assert.strictEqual(error.code, -32602, tampered)
      }
    }))

  it.scoped("a state for another request (other tool, other arguments) is refused", () =>
    Effect.gen(function*() {
      const { client, params, state } = yield* roundOne
      const otherArguments = yield* client.error("tools/call", {
        ...params,
        arguments: { greeting: "bye" },
        inputResponses: { name: accept("Ann") },
        requestState: state
      })
      assert.strictEqual(otherArguments.code, -32602)
      assert.match(otherArguments.message, /another request/)
      const otherTool = yield* client.error("tools/call", {
        name: "steps",
        arguments: {},
        _meta: meta({}, caps),
        inputResponses: { first: accept("x") },
        requestState: state
      })
      assert.strictEqual(otherTool.code, -32602)
    }))

  it.scoped("an expired state is refused", () =>
    Effect.gen(function*() {
      const { client, params, state } = yield* roundOne
      yield* TestClock.adjust("11 minutes")
      const error = yield* client.error("tools/call", {
        ...params,
        inputResponses: { name: accept("Ann") },
        requestState: state
      })
      assert.strictEqual(error.code, -32602)
      assert.match(error.message, /expired/)
    }))

  it.scoped("malformed inputResponses are an error", () =>
    Effect.gen(function*() {
      const { client, params, state } = yield* roundOne
      const error = yield* client.error("tools/call", { ...params, inputResponses: "not a map", requestState: state })
      assert.strictEqual(error.code, -32602)
    }))

  it.scoped("a retry may reach another server that has the same key", () =>
    Effect.gen(function*() {
      const { params, state } = yield* roundOne
      const other = yield* attach(yield* McpServer.make(options))
      const done = yield* other.result("tools/call", {
        ...params,
        inputResponses: { name: accept("Ann") },
        requestState: state
      })
      assert.deepStrictEqual(done.content, [{ type: "text", text: "hi, Ann" }])
      // A server with another key refuses it.
      const stranger = yield* attach(
        yield* McpServer.make({
          ...options,
          requestStateKey: Redacted.make("another key, not the one the others share")
        })
      )
      const error = yield* stranger.error("tools/call", {
        ...params,
        inputResponses: { name: accept("Ann") },
        requestState: state
      })
      assert.strictEqual(error.code, -32602)
    }))

  it.scoped("a key shorter than 32 bytes (an empty variable included) fails a 2026-07-28 server, in one line", () =>
    Effect.gen(function*() {
      const refusal = (key: Redacted.Redacted<string> | Config.Config<Redacted.Redacted<string>>) =>
        Effect.map(Effect.exit(McpServer.make({ ...options, requestStateKey: key })), (exit) => {
          const defect = Exit.isFailure(exit) ? Cause.dieOption(exit.cause) : Option.none()
          return Option.isSome(defect) ? McpError.messageOf(defect.value) : "built"
        })
      assert.strictEqual(
        yield* refusal(Redacted.make("")),
        "requestStateKey must be at least 32 bytes (got 0): make one with openssl rand -base64 32"
      )
      assert.match(
        yield* refusal(Redacted.make("x".repeat(31))),
        /^requestStateKey must be at least 32 bytes \(got 31\)/
      )
      // Counted in UTF-8 bytes: what the HMAC is keyed with.
      assert.strictEqual(yield* refusal(Redacted.make("é".repeat(16))), "built")
      // Read from a config: an empty variable is refused the same way.
      const fromEnv = Config.redacted("MCP_REQUEST_STATE_KEY")
      assert.match(
        yield* Effect.withConfigProvider(
          refusal(fromEnv),
          ConfigProvider.fromMap(new Map([["MCP_REQUEST_STATE_KEY", ""]]))
        ),
        /^requestStateKey must be at least 32 bytes \(got 0\)/
      )
      assert.strictEqual(yield* refusal(Redacted.make("x".repeat(32))), "built")
      // A server that seals nothing (the handshake era only) does not judge the key it is given.
      const handshakeOnly = yield* Effect.exit(
        McpServer.make({ serverInfo, revisions: ["2025-11-25"], requestStateKey: Redacted.make("") })
      )
      assert.isTrue(Exit.isSuccess(handshakeOnly))
    }))
})

describe("Multi-round trips: a hostile client", () => {
  const steps = { name: "steps", arguments: {}, _meta: meta({}, caps) }

  it.scoped("an earlier round's answer cannot be changed by a later retry: the sealed one wins", () =>
    Effect.gen(function*() {
      const client = yield* connect(options)
      const round1 = yield* client.result("tools/call", steps)
      const round2 = yield* client.result("tools/call", {
        ...steps,
        inputResponses: { first: accept("Alice") },
        requestState: round1.requestState
      })
      assert.deepStrictEqual(Object.keys(round2.inputRequests), ["second"])
      const done = yield* client.result("tools/call", {
        ...steps,
        inputResponses: { first: accept("Mallory"), second: accept("two") },
        requestState: round2.requestState
      })
      assert.deepStrictEqual(done.content, [{ type: "text", text: "Alice then two" }])
    }))

  it.scoped("with a state, a round cannot be skipped: an answer to what was not asked yet is ignored", () =>
    Effect.gen(function*() {
      const client = yield* connect(options)
      const first = yield* client.result("tools/call", steps)
      assert.strictEqual(first.resultType, "input_required")
      assert.deepStrictEqual(Object.keys(first.inputRequests), ["first"])
      // Only the answer to what its round asked ("first"); "second" waits for its own round.
      const round2 = yield* client.result("tools/call", {
        ...steps,
        inputResponses: { first: accept("one"), second: accept("early") },
        requestState: first.requestState
      })
      assert.strictEqual(round2.resultType, "input_required")
      assert.deepStrictEqual(Object.keys(round2.inputRequests), ["second"])
      const done = yield* client.result("tools/call", {
        ...steps,
        inputResponses: { second: accept("two") },
        requestState: round2.requestState
      })
      assert.deepStrictEqual(done.content, [{ type: "text", text: "one then two" }])
    }))

  it.scoped("without a state (the first call), answers count for the first round only: a later round is asked (issue 35)", () =>
    Effect.gen(function*() {
      const client = yield* connect(options)
      // Every round's answer at once, on a first call: only the first round's is taken.
      const round2 = yield* client.result("tools/call", {
        ...steps,
        inputResponses: { first: accept("NoState"), second: accept("blue"), unknown_extra_key: accept("x") }
      })
      assert.strictEqual(round2.resultType, "input_required")
      assert.deepStrictEqual(Object.keys(round2.inputRequests), ["second"])
      // The first answer is sealed now: the retry cannot change it; the second counts now it was asked.
      const done = yield* client.result("tools/call", {
        ...steps,
        inputResponses: { first: accept("Mallory"), second: accept("two") },
        requestState: round2.requestState
      })
      assert.deepStrictEqual(done.content, [{ type: "text", text: "NoState then two" }])
    }))

  it.scoped("without a state, an answer to the first round's ask is taken, other keys ignored (prompts/get, resources/read alike)", () =>
    Effect.gen(function*() {
      const client = yield* connect(options)
      // The conformance suite's input-required-result-ignore-extra-params: the answer, and keys nobody asks.
      const done = yield* client.result("tools/call", {
        name: "greet",
        arguments: { greeting: "Hi" },
        inputResponses: { name: accept("Eve"), unknown_extra_key: accept("x") },
        _meta: meta({}, caps)
      })
      assert.strictEqual(done.resultType, "complete")
      assert.deepStrictEqual(done.content, [{ type: "text", text: "Hi, Eve" }])
      const prompt = yield* client.result("prompts/get", {
        name: "paged",
        inputResponses: { page: accept("9") },
        _meta: meta({}, caps)
      })
      assert.deepStrictEqual(prompt.messages[0].content, { type: "text", text: "page 9" })
      const read = yield* client.result("resources/read", {
        uri: "test://secret",
        inputResponses: { pin: accept("0000") },
        _meta: meta({}, caps)
      })
      assert.strictEqual(read.contents[0].text, "secret for 0000")
      // Answers that are not the first round's are nobody's: the round is asked.
      const asked = yield* client.result("tools/call", {
        name: "greet",
        arguments: { greeting: "Hi" },
        inputResponses: { nom: accept("Eve") },
        _meta: meta({}, caps)
      })
      assert.deepStrictEqual(Object.keys(asked.inputRequests), ["name"])
    }))

  it.scoped("only canonical base64url is taken: no padding, whitespace, +/ alphabet or spare bits", () =>
    Effect.gen(function*() {
      const client = yield* connect(options)
      const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
      // A state whose MAC spells at least one of - and _ (the MAC is deterministic: fixed key, clock at 0).
      let params: Record<string, unknown> = {}
      let state = ""
      for (let i = 0; i < 40 && !/[-_]/.test(state.split(".")[1] ?? ""); i++) {
        params = { name: "greet", arguments: { greeting: `hi ${i}` }, _meta: meta({}, caps) }
        state = (yield* client.result("tools/call", params)).requestState
      }
      const [body, mac] = state.split(".")
      assert.match(mac, /[-_]/)
      assert.strictEqual(mac.length, 43)
      const last = alphabet.indexOf(mac[42])
      const spellings = [
        `${mac}=`,
        `${mac}==`,
        ` ${mac}`,
        `${mac}\n`,
        `${mac.slice(0, 20)} ${mac.slice(20)}`,
        `${mac.slice(0, 20)}\t${mac.slice(20)}`,
        mac.replace(/-/g, "+").replace(/_/g, "/"),
        // The last character carries 2 bits the 32 bytes do not use: the same MAC, spelt 3 more ways.
        ...[1, 2, 3].map((bits) => mac.slice(0, 42) + alphabet[last ^ bits])
      ]
      for (const spelling of spellings) {
        const error = yield* client.error("tools/call", {
          ...params,
          inputResponses: { name: accept("Ann") },
          requestState: `${body}.${spelling}`
        })
        assert.strictEqual(error.code, -32602, JSON.stringify(spelling))
      }
      // Nor is a body padded or with whitespace.
      for (const spelling of [`${body}=`, ` ${body}`]) {
        const error = yield* client.error("tools/call", {
          ...params,
          inputResponses: { name: accept("Ann") },
          requestState: `${spelling}.${mac}`
        })
        assert.strictEqual(error.code, -32602, JSON.stringify(spelling))
      }
      const done = yield* client.result("tools/call", {
        ...params,
        inputResponses: { name: accept("Ann") },
        requestState: state
      })
      assert.strictEqual(done.resultType, "complete")
    }))

  it.scoped("a requestState longer than the cap (64 KiB by default) is -32602 with the request's id, unread", () =>
    Effect.gen(function*() {
      const client = yield* connect(options)
      const params = { name: "greet", arguments: { greeting: "hi" }, _meta: meta({}, caps) }
      const first = yield* client.result("tools/call", params)
      // A real state, lengthened past the cap: refused for its length, before its signature is read.
      yield* client.send({
        jsonrpc: "2.0",
        id: "long-1",
        method: "tools/call",
        params: {
          ...params,
          inputResponses: { name: accept("Ann") },
          requestState: first.requestState + "A".repeat(65_536)
        }
      })
      const response = yield* client.next
      assert.strictEqual(response.id, "long-1")
      assert.strictEqual(response.error.code, -32602)
      assert.strictEqual(response.error.message, "Invalid requestState: longer than 65536 characters")
      // A cap of the server's own choosing.
      const small = yield* connect({ ...options, requestStateMaxLength: 1000 })
      const refused = yield* small.error("tools/call", { ...params, requestState: "A".repeat(1001) })
      assert.strictEqual(refused.code, -32602)
      assert.strictEqual(refused.message, "Invalid requestState: longer than 1000 characters")
    }))

  it.scoped("a state the server would seal over the cap is the request's error (-32603), never sent", () =>
    Effect.gen(function*() {
      const client = yield* connect(options)
      const bulky = (size: number) => ({ name: "bulky", arguments: { size }, _meta: meta({}, caps) })
      // Under the cap: sealed, and read back on the retry.
      const fits = yield* client.result("tools/call", bulky(10_000))
      assert.strictEqual(fits.resultType, "input_required")
      assert.isAtMost(fits.requestState.length, 65_536)
      const done = yield* client.result("tools/call", { ...bulky(10_000), requestState: fits.requestState })
      assert.deepStrictEqual(done.content, [{ type: "text", text: "state of 10000" }])
      // The handler's own state over the cap.
      const over = yield* client.error("tools/call", bulky(70_000))
      assert.strictEqual(over.code, -32603)
      assert.match(over.message, /^The requestState of this round would be \d+ characters, over the cap of 65536/)
      // Answers that would carry the state over the cap (a big first answer, then round 2).
      const round1 = yield* client.result("tools/call", steps)
      const heavy = yield* client.error("tools/call", {
        ...steps,
        inputResponses: { first: accept("x".repeat(70_000)) },
        requestState: round1.requestState
      })
      assert.strictEqual(heavy.code, -32603)
      // With a cap of the server's own choosing.
      const small = yield* connect({ ...options, requestStateMaxLength: 2000 })
      assert.strictEqual((yield* small.result("tools/call", bulky(100))).resultType, "input_required")
      assert.strictEqual((yield* small.error("tools/call", bulky(2000))).code, -32603)
    }))

  it.scoped("a state of another format version, signed with the same key, is refused (-32602), not misread", () =>
    Effect.gen(function*() {
      const client = yield* connect(options)
      const params = { name: "greet", arguments: { greeting: "hi" }, _meta: meta({}, caps) }
      const first = yield* client.result("tools/call", params)
      const encode = (bytes: Uint8Array) =>
        btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
      const payload = JSON.parse(atob(first.requestState.split(".")[0].replace(/-/g, "+").replace(/_/g, "/")))
      // What the server sealed before the version that records the round's keys: no `q`.
      const { q: _asked, ...older } = { ...payload, v: 1 }
      const body = encode(new TextEncoder().encode(JSON.stringify(older)))
      const mac = yield* Effect.promise(async () => {
        const key = await crypto.subtle.importKey(
          "raw",
          new TextEncoder().encode(Redacted.value(options.requestStateKey)),
          { name: "HMAC", hash: "SHA-256" },
          false,
          ["sign"]
        )
        return new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(body)))
      })
      const error = yield* client.error("tools/call", {
        ...params,
        inputResponses: { name: accept("Ann") },
        requestState: `${body}.${encode(mac)}`
      })
      assert.strictEqual(error.code, -32602)
      assert.strictEqual(error.message, "Invalid requestState: it was sealed by another version of this server")
    }))

  it.scoped("a cap that is not a positive integer fails the server when it is built, in one line", () =>
    Effect.gen(function*() {
      for (const cap of [0, -1, 1.5, Number.NaN]) {
        const exit = yield* Effect.exit(McpServer.make({ ...options, requestStateMaxLength: cap }))
        const defect = Exit.isFailure(exit) ? Cause.dieOption(exit.cause) : Option.none()
        assert.strictEqual(
          Option.isSome(defect) ? McpError.messageOf(defect.value) : "built",
          `requestStateMaxLength must be a positive integer (got ${cap})`
        )
      }
    }))
})

describe("Multi-round trips: capabilities", () => {
  it.scoped("a URL elicitation is asked in the 2026-07-28 shape: no elicitationId", () =>
    Effect.gen(function*() {
      const client = yield* connect(options)
      const first = yield* client.result("tools/call", {
        name: "sign-in",
        arguments: {},
        _meta: meta({}, { elicitation: { url: {} } })
      })
      assert.strictEqual(first.resultType, "input_required")
      assert.deepStrictEqual(first.inputRequests, {
        login: {
          method: "elicitation/create",
          params: { mode: "url", message: "Sign in, please", url: "https://example.com/sign-in" }
        }
      })
      assert.isUndefined(validate("2026-07-28", "InputRequiredResult", first))
    }))

  it.scoped("an undeclared ask the tool does not handle: -32021 naming what to declare", () =>
    Effect.gen(function*() {
      const client = yield* connect(options)
      const error = yield* client.error("tools/call", {
        name: "unhandled",
        arguments: {},
        _meta: meta({}, { elicitation: {} })
      })
      assert.strictEqual(error.code, -32021)
      assert.strictEqual(error.message, "The client did not declare the roots capability")
      assert.deepStrictEqual(error.data, { requiredCapabilities: { roots: {} } })
    }))

  it.scoped("an ask the request's capabilities do not declare is refused without asking", () =>
    Effect.gen(function*() {
      const client = yield* connect(options)
      // The tool does not handle the failure: it becomes its isError result, no input is asked.
      const result = yield* client.result("tools/call", {
        name: "greet",
        arguments: { greeting: "hi" },
        _meta: meta({}, { sampling: {} })
      })
      assert.strictEqual(result.resultType, "complete")
      assert.strictEqual(result.isError, true)
      assert.isUndefined(result.inputRequests)
    }))

  it.scoped("a low-level input request of an undeclared kind: -32021 with requiredCapabilities", () =>
    Effect.gen(function*() {
      const client = yield* connect(options)
      const error = yield* client.error("tools/call", {
        name: "sampler",
        arguments: {},
        _meta: meta({}, { elicitation: {} })
      })
      assert.strictEqual(error.code, -32021)
      assert.deepStrictEqual(error.data, { requiredCapabilities: { sampling: {} } })
    }))

  it.scoped("a low-level sampling request with tools needs sampling.tools, as McpRequest.sample's does", () =>
    Effect.gen(function*() {
      const client = yield* connect(options)
      const call = (sampling: object) =>
        ({ name: "tool-sampler", arguments: {}, _meta: meta({}, { sampling }) }) as const
      const error = yield* client.error("tools/call", call({}))
      assert.strictEqual(error.code, -32021)
      assert.deepStrictEqual(error.data, { requiredCapabilities: { sampling: { tools: {} } } })
      const asked = yield* client.result("tools/call", call({ tools: {} }))
      assert.strictEqual(asked.resultType, "input_required")
      assert.strictEqual(asked.inputRequests.s.method, "sampling/createMessage")
    }))
})
