import { assert, describe, it } from "@effect/vitest"
import * as Option from "effect/Option"
import * as JsonRpc from "../src/JsonRpc.js"
import * as McpError from "../src/McpError.js"
import * as Meta from "../src/Meta.js"
import * as Revision from "../src/Revision.js"

describe("Revision", () => {
  it("lists the five revisions in order, with the eras split", () => {
    assert.deepStrictEqual(Revision.all, ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"])
    assert.deepStrictEqual(Revision.handshake, ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"])
    assert.deepStrictEqual(Revision.stateless, ["2026-07-28"])
    assert.strictEqual(Revision.latest, "2026-07-28")
    assert.strictEqual(Revision.latestHandshake, "2025-11-25")
    assert.isTrue(Revision.compare("2024-11-05", "2025-03-26") < 0)
    assert.isTrue(Revision.atLeast("2025-11-25", "2025-06-18"))
    assert.deepStrictEqual(Revision.range("2025-06-18", "2025-11-25"), ["2025-06-18", "2025-11-25"])
  })

  it("negotiates like the handshake: echo a supported version, else offer the newest", () => {
    assert.strictEqual(Revision.negotiate("2025-03-26"), "2025-03-26")
    assert.strictEqual(Revision.negotiate("1999-01-01"), "2025-11-25")
    assert.strictEqual(Revision.negotiate("2026-07-28"), "2025-11-25")
    assert.strictEqual(Revision.negotiate("2025-06-18", ["2024-11-05", "2025-03-26"]), "2025-03-26")
  })

  it("knows every difference as data", () => {
    const f = Revision.features
    assert.deepStrictEqual(Revision.all.filter(Revision.allowsBatching), ["2025-03-26"])
    assert.deepStrictEqual(Revision.all.filter(Revision.hasElicitation), ["2025-06-18", "2025-11-25", "2026-07-28"])
    assert.deepStrictEqual(Revision.all.filter(Revision.hasUrlElicitation), ["2025-11-25", "2026-07-28"])
    assert.deepStrictEqual(Revision.all.map((r) => f(r).tasks), ["none", "none", "none", "core", "extension"])
    assert.deepStrictEqual(Revision.all.map(Revision.structuredOutput), ["none", "none", "object", "object", "any"])
    assert.deepStrictEqual(Revision.all.map(Revision.resourceNotFoundCode), [-32002, -32002, -32002, -32002, -32602])
    assert.deepStrictEqual(Revision.all.filter((r) => f(r).urlElicitationRequiredError), ["2025-11-25"])
    assert.deepStrictEqual(Revision.all.filter((r) => f(r).toolInputErrorsAsResults), ["2025-11-25", "2026-07-28"])
    assert.deepStrictEqual(Revision.all.filter((r) => f(r).protocolVersionHeader), [
      "2025-06-18",
      "2025-11-25",
      "2026-07-28"
    ])
    assert.deepStrictEqual(Revision.all.filter((r) => f(r).cancelRequestIdOptional), ["2025-11-25"])
    assert.deepStrictEqual(Revision.all.filter((r) => f(r).ssePolling), ["2025-11-25"])
    assert.deepStrictEqual(
      Revision.all.filter((r) => f(r).serverCapabilities.includes("completions")),
      ["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]
    )
    assert.deepStrictEqual(Revision.all.filter((r) => f(r).serverCapabilities.includes("tasks")), ["2025-11-25"])
    assert.isFalse(f("2026-07-28").serverRequests)
    assert.strictEqual(f("2026-07-28").logLevelIn, "meta")
    assert.isTrue(Revision.isRevision("2025-06-18"))
    assert.isFalse(Revision.isRevision("2025-06-19"))
    assert.isFalse(Revision.isRevision("toString"))
  })
})

describe("Meta", () => {
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": { elicitation: {}, futureCapability: { x: 1 } },
    "io.modelcontextprotocol/clientInfo": { name: "c", version: "1" },
    "io.modelcontextprotocol/logLevel": "warning",
    "io.modelcontextprotocol/subscriptionId": 0,
    progressToken: "tok",
    traceparent: "00-1-2-01"
  }

  it("reads the reserved keys with their schemas", () => {
    assert.deepStrictEqual(Meta.getProtocolVersion(meta), Option.some("2026-07-28"))
    assert.deepStrictEqual(
      Meta.getClientCapabilities(meta),
      Option.some({ elicitation: {}, futureCapability: { x: 1 } } as any)
    )
    assert.deepStrictEqual(Meta.getClientInfo(meta), Option.some({ name: "c", version: "1" }))
    assert.deepStrictEqual(Meta.getLogLevel(meta), Option.some("warning" as const))
    assert.deepStrictEqual(Meta.getProgressToken(meta), Option.some("tok"))
    assert.deepStrictEqual(Meta.getSubscriptionId(meta), Option.some(0))
    assert.isTrue(Option.isNone(Meta.getServerInfo(meta)))
    assert.isTrue(Option.isNone(Meta.getLogLevel({ "io.modelcontextprotocol/logLevel": "loud" })))
    assert.isTrue(Option.isNone(Meta.getProtocolVersion(undefined)))
    assert.deepStrictEqual(Meta.of({ _meta: meta }), meta)
    assert.isUndefined(Meta.of({ _meta: [1] }))
  })

  it("checks key syntax and reserved prefixes", () => {
    for (const key of ["progressToken", "io.modelcontextprotocol/protocolVersion", "com.example/a-b_c.d", "x"]) {
      assert.isTrue(Meta.isValidKey(key), key)
    }
    for (const key of ["", "/x", "1a.b/x", "a./x", "a/-x", "a/x-", "a b/x"]) assert.isFalse(Meta.isValidKey(key), key)
    assert.isTrue(Meta.isReserved("io.modelcontextprotocol/x"))
    assert.isTrue(Meta.isReserved("dev.mcp/x"))
    assert.isFalse(Meta.isReserved("com.example.mcp/x"))
    assert.isFalse(Meta.isReserved("progressToken"))
  })

  it("merges left to right and never mutates its inputs", () => {
    const a = { x: 1, "io.modelcontextprotocol/a": true }
    const b = { x: 2, y: 3 }
    assert.deepStrictEqual(Meta.merge(a, undefined, b), { x: 2, y: 3, "io.modelcontextprotocol/a": true })
    assert.deepStrictEqual(a, { x: 1, "io.modelcontextprotocol/a": true })
    assert.isUndefined(Meta.merge(undefined, undefined))
    const params = { name: "t", _meta: { progressToken: 1 } }
    assert.deepStrictEqual(Meta.withMeta(params, { traceparent: "t" }), {
      name: "t",
      _meta: { progressToken: 1, traceparent: "t" }
    })
    assert.deepStrictEqual(params, { name: "t", _meta: { progressToken: 1 } })
    assert.deepStrictEqual(Meta.withMeta(undefined, { progressToken: 0 }), { _meta: { progressToken: 0 } })
  })
})

describe("McpError", () => {
  it("renders resource-not-found per revision", () => {
    const error = new McpError.ResourceNotFound({ uri: "test://x" })
    assert.deepStrictEqual(error.toWire("2025-11-25"), {
      code: -32002,
      message: "Resource not found: test://x",
      data: { uri: "test://x" }
    })
    assert.strictEqual(error.toWire("2026-07-28").code, -32602)
  })

  it("renders the 2026 codes with their data", () => {
    assert.deepStrictEqual(
      new McpError.UnsupportedProtocolVersion({ supported: ["2026-07-28"], requested: "1" }).toWire("2026-07-28"),
      { code: -32022, message: "Unsupported protocol version: 1", data: { supported: ["2026-07-28"], requested: "1" } }
    )
    assert.deepStrictEqual(
      new McpError.MissingRequiredClientCapability({ requiredCapabilities: { sampling: {} } }).toWire("2026-07-28"),
      { code: -32021, message: "Missing required client capability", data: { requiredCapabilities: { sampling: {} } } }
    )
    assert.strictEqual(new McpError.HeaderMismatch({ message: "Mcp-Method" }).toWire("2026-07-28").code, -32020)
    const url = new McpError.UrlElicitationRequired({ elicitations: [{ mode: "url" }] })
    assert.strictEqual(url.toWire("2025-11-25").code, -32042)
    assert.strictEqual(url.toWire("2025-06-18").code, -32602)
  })

  it("reads peer errors back into the matching class", () => {
    const cases: Array<[JsonRpc.ErrorObject, string]> = [
      [{ code: -32700, message: "p" }, "ParseError"],
      [{ code: -32600, message: "r" }, "InvalidRequest"],
      [{ code: -32601, message: "m" }, "MethodNotFound"],
      [{ code: -32602, message: "i", data: { uri: "u" } }, "InvalidParams"],
      [{ code: -32603, message: "x" }, "InternalError"],
      [{ code: -32002, message: "nf", data: { uri: "u" } }, "ResourceNotFound"],
      [{ code: -32042, message: "u", data: { elicitations: [] } }, "UrlElicitationRequired"],
      [{ code: -32020, message: "h" }, "HeaderMismatch"],
      [{ code: -32021, message: "c", data: { requiredCapabilities: {} } }, "MissingRequiredClientCapability"],
      [{ code: -32022, message: "v", data: { supported: ["a"], requested: "b" } }, "UnsupportedProtocolVersion"],
      [{ code: -32022, message: "no data" }, "RpcError"],
      [{ code: 42, message: "app" }, "RpcError"]
    ]
    for (const [wire, tag] of cases) {
      const error = McpError.fromWire(wire)
      assert.strictEqual(error._tag, tag, JSON.stringify(wire))
      assert.isTrue(McpError.isMcpError(error))
    }
    const app = McpError.fromWire({ code: 42, message: "app", data: [1] })
    assert.deepStrictEqual(app.toWire("2025-11-25"), { code: 42, message: "app", data: [1] })
    assert.strictEqual(McpError.fromWire({ code: -32601, message: "nope" }).message, "nope")
  })
})
