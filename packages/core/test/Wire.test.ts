import { assert, describe, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Method from "../src/Method.js"
import * as Revision from "../src/Revision.js"
import * as Wire from "../src/Wire.js"

const single = (text: string) => {
  const inbound = Wire.decode(text)
  assert.strictEqual(inbound._tag, "Single")
  return (inbound as Wire.Single).message as any
}

describe("Wire.decode", () => {
  it("keeps the parsed message as it is: _meta, namespaced keys and unknown fields verbatim", () => {
    const text = JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "tools/call",
      params: {
        name: "add",
        arguments: { a: 1, "io.modelcontextprotocol/x": { deep: [{ "com.example/y": 1 }] } },
        _meta: { progressToken: 0, "io.modelcontextprotocol/protocolVersion": "2025-11-25", "dev.mcp/z": null },
        futureField: { nested: { again: true } }
      },
      futureEnvelopeField: 1
    })
    assert.deepStrictEqual(single(text), JSON.parse(text))
    assert.strictEqual(Wire.encode(single(text)), text)
  })

  it("invalid JSON is -32700 with id null", () => {
    const inbound = Wire.decode(`{"jsonrpc":"2.0","id":1,`)
    assert.strictEqual(inbound._tag, "Invalid")
    const invalid = inbound as Wire.Invalid
    assert.strictEqual(invalid.id, null)
    assert.strictEqual(invalid.error.toWire("2025-11-25").code, -32700)
  })

  it("ids are strings or numbers, 0 included; never null, bool or object", () => {
    assert.strictEqual(single(`{"jsonrpc":"2.0","id":0,"method":"ping"}`).id, 0)
    assert.strictEqual(single(`{"jsonrpc":"2.0","id":"","method":"ping"}`).id, "")
    assert.strictEqual(single(`{"jsonrpc":"2.0","id":-1.5,"method":"ping"}`).id, -1.5)
    for (const id of ["null", "true", "{}", "[1]"]) {
      const inbound = Wire.decode(`{"jsonrpc":"2.0","id":${id},"method":"ping"}`) as Wire.Invalid
      assert.strictEqual(inbound._tag, "Invalid", id)
      assert.strictEqual(inbound.error.toWire("2025-11-25").code, -32600)
    }
  })

  it("classifies requests, notifications, results and errors", () => {
    assert.isTrue("id" in single(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
    assert.isFalse("id" in single(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
    assert.deepStrictEqual(single(`{"jsonrpc":"2.0","id":1,"result":{}}`).result, {})
    assert.strictEqual(single(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`).error.code, -32700)
    const badError = Wire.decode(`{"jsonrpc":"2.0","id":4,"error":{"code":"x","message":"m"}}`) as Wire.Invalid
    assert.deepStrictEqual([badError._tag, badError.id], ["Invalid", 4])
  })

  it("a batch is decoded item by item", () => {
    const inbound = Wire.decode(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0"},3]`)
    assert.strictEqual(inbound._tag, "Batch")
    const items = (inbound as Wire.Batch).items
    assert.deepStrictEqual(items.map((i) => i._tag), ["Single", "Invalid", "Invalid"])
    assert.strictEqual((Wire.decode(`[]`) as Wire.Invalid)._tag, "Invalid")
  })

  it("own __proto__ keys are removed at any depth, so no schema sets a prototype", () => {
    const text = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","__proto__":{"polluted":1},` +
      `"arguments":{"a":[{"__proto__":{"polluted":2},"b":1}]},"_meta":{"__proto__":{"polluted":3}}}}`
    const message = single(text)
    const params = Either.getOrThrow(
      Method.lookup("2025-11-25", "tools/call" as string)!.decodeParams(message.params)
    ) as any
    assert.isUndefined(params.polluted)
    assert.isUndefined(params.arguments.a[0].polluted)
    assert.isUndefined(params._meta.polluted)
    assert.deepStrictEqual(params.arguments.a[0], { b: 1 })
    assert.isUndefined(({} as any).polluted)
    const value = JSON.parse(text)
    const classified = Wire.decodeValue(value) as Wire.Single
    assert.isFalse(Object.hasOwn((classified.message as any).params, "__proto__"))
  })
})

/** `{"v":` nested `n` deep around `inner`. */
const nested = (n: number, inner = "1") => "{\"v\":".repeat(n) + inner + "}".repeat(n)
const arrays = (n: number) => "[".repeat(n) + "]".repeat(n)

/** The one invalid frame a text decodes to: its code, message and id. */
const refusal = (text: string, options?: Wire.DecodeOptions) => {
  const inbound = Wire.decode(text, options)
  assert.strictEqual(inbound._tag, "Invalid", text.slice(0, 200))
  const invalid = inbound as Wire.Invalid
  return { code: invalid.error.toWire("2025-11-25").code, message: invalid.error.message, id: invalid.id }
}

describe("Wire.decode: depth and numbers", () => {
  it("nesting up to the bound is served; one level more is refused, -32602 in a request's params, with its id", () => {
    // The message is depth 1, params 2, arguments 3: the innermost value sits at the bound.
    const within = (depth: number) =>
      `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":${nested(depth - 3, "{}")}}}`
    assert.strictEqual(Wire.decode(within(Wire.defaultMaxDepth))._tag, "Single")
    assert.deepStrictEqual(refusal(within(Wire.defaultMaxDepth + 1)), {
      code: -32602,
      message: `Invalid params: nested deeper than ${Wire.defaultMaxDepth} levels`,
      id: 7
    })
    // Thousands deep, arrays or objects: refused, never a stack overflow.
    for (const deep of [nested(100_000), arrays(100_000)]) {
      const r = refusal(`{"jsonrpc":"2.0","id":"d","method":"tools/call","params":{"arguments":${deep}}}`)
      assert.deepStrictEqual([r.code, r.id], [-32602, "d"])
    }
  })

  it("a flawed response is never answered: it becomes an error response for its id", () => {
    for (
      const text of [
        `{"jsonrpc":"2.0","id":3,"result":${nested(200)}}`,
        `{"jsonrpc":"2.0","id":3,"result":{"n":1e309}}`
      ]
    ) {
      const inbound = Wire.decode(text) as Wire.Single
      assert.strictEqual(inbound._tag, "Single")
      const failure = inbound.message as any
      assert.strictEqual(failure.id, 3)
      assert.strictEqual(failure.error.code, -32600)
      assert.match(failure.error.message, /^Invalid Request: the answer is /)
      assert.isUndefined(failure.result)
    }
    const unknown = Wire.decode(`{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"x","data":${nested(200)}}}`)
    assert.strictEqual(((unknown as Wire.Single).message as any).id, null)
  })

  it("too deep outside params is -32600 (an unknown top-level key, a batch item)", () => {
    assert.strictEqual(refusal(`{"jsonrpc":"2.0","id":4,"method":"ping","extra":${arrays(300)}}`).code, -32600)
    const batch = Wire.decode(
      `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"x",` +
        `"params":{"a":${nested(300)}}}]`
    ) as Wire.Batch
    assert.deepStrictEqual(batch.items.map((item) => item._tag), ["Single", "Invalid"])
    assert.strictEqual((batch.items[1] as Wire.Invalid).id, 2)
  })

  it("the bound is an option", () => {
    const text = `{"jsonrpc":"2.0","id":1,"method":"x","params":${nested(10)}}`
    assert.strictEqual(refusal(text, { maxDepth: 8 }).code, -32602)
    assert.strictEqual(Wire.decode(text, { maxDepth: 12 })._tag, "Single")
    assert.strictEqual(
      Wire.decode(`{"jsonrpc":"2.0","id":1,"method":"x","params":${nested(200)}}`, {
        maxDepth: 1000
      })._tag,
      "Single"
    )
  })

  it("a number JSON spells but a double cannot hold (1e309) is refused, short message or long", () => {
    for (const n of ["1e309", "-1E+400", "9".repeat(400)]) {
      assert.deepStrictEqual(
        refusal(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"add","arguments":{"a":${n},"b":1}}}`),
        { code: -32602, message: "Invalid params: a number out of range (JSON numbers must be finite)", id: 5 }
      )
    }
    // In an array, in a long message, in a response.
    const padding = "x".repeat(500)
    assert.strictEqual(
      refusal(`{"jsonrpc":"2.0","id":6,"method":"m","params":{"p":"${padding}","list":[1,2,1e999]}}`).code,
      -32602
    )
    // An id that overflows is no id.
    assert.strictEqual(refusal(`{"jsonrpc":"2.0","id":1e309,"method":"ping"}`).id, null)
    // What is not out of range is served: big but finite, tiny (rounds to 0), exponents in strings.
    for (const ok of ["1e308", "1.7976931348623157e308", "1e-400", "\"1e999\""]) {
      assert.strictEqual(Wire.decode(`{"jsonrpc":"2.0","id":1,"method":"m","params":{"n":${ok}}}`)._tag, "Single", ok)
    }
  })

  it("decodeValue checks a value parsed elsewhere the same way", () => {
    const value = JSON.parse(`{"jsonrpc":"2.0","id":9,"method":"m","params":${nested(200)}}`)
    assert.strictEqual((Wire.decodeValue(value) as Wire.Invalid).error.toWire("2025-11-25").code, -32602)
    assert.strictEqual(
      Wire.decodeValue({ jsonrpc: "2.0", id: 1, method: "m", params: { n: Infinity } })._tag,
      "Invalid"
    )
    assert.strictEqual(Wire.decodeValue({ jsonrpc: "2.0", id: 1, method: "m", params: { n: 1 } })._tag, "Single")
  })
})

describe("Wire: one decode and one encode keep unknown fields through the catalog's schemas", () => {
  const result = {
    content: [
      {
        type: "text",
        text: "hi",
        annotations: { audience: ["user"], futureAnnotation: 1 },
        _meta: { "io.modelcontextprotocol/a": { "com.example/b": [1, { c: "d" }] } },
        futureBlockField: { x: [1, 2] }
      },
      {
        type: "resource",
        resource: { uri: "test://r", text: "t", futureResourceField: true, _meta: { "x.y/z": 1 } }
      }
    ],
    structuredContent: { sum: 3, "io.modelcontextprotocol/k": "v" },
    _meta: { "io.modelcontextprotocol/related-task": { taskId: "t" }, traceparent: "00-abc" },
    futureResultField: "kept"
  }

  for (const revision of Revision.range("2025-06-18")) {
    it(`tools/call result at ${revision}`, () => {
      const entry = Method.lookup(revision, "tools/call" as string)!
      const withEnvelope = revision === "2026-07-28" ? { ...result, resultType: "complete" } : result
      const text = Wire.encode({ jsonrpc: "2.0", id: 1, result: Either.getOrThrow(entry.encodeResult!(withEnvelope)) })
      const back = single(text)
      assert.deepStrictEqual(Either.getOrThrow(entry.decodeResult!(back.result)), withEnvelope)
      assert.deepStrictEqual(JSON.parse(text).result, withEnvelope)
    })
  }

  it("request params keep unknown fields at several depths", () => {
    const params = {
      name: "t",
      arguments: { x: { y: { z: [1, { "io.modelcontextprotocol/w": true }] } } },
      _meta: { progressToken: "p", "io.modelcontextprotocol/clientInfo": { name: "c", version: "1" } },
      futureParam: { deeper: { deepest: "still here" } }
    }
    for (const revision of Revision.handshake) {
      const entry = Method.lookup(revision, "tools/call" as string)!
      const text = Wire.encode({ jsonrpc: "2.0", id: "x", method: "tools/call", params })
      assert.deepStrictEqual(Either.getOrThrow(entry.decodeParams(single(text).params)), params)
    }
  })
})
