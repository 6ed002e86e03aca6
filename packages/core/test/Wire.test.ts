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
