import { McpError } from "@effect-mcp/core"
import { validate } from "@effect-mcp/test-support/OfficialSchema"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as McpServer from "../src/McpServer.js"
import * as Resource from "../src/Resource.js"
import { attach, connect, flush, handshakeRevisions } from "./utils/TestClient.js"

const serverInfo = { name: "resources-server", version: "1.0.0" }

const Readme = Resource.make("test://static/readme", {
  name: "readme",
  title: "Read me",
  description: "The readme",
  mimeType: "text/plain",
  icons: [{ src: "https://example.com/readme.png" }]
}, Effect.succeed("hello, reader"))

const Logo = Resource.make(
  "test://static/logo.png",
  { name: "logo", mimeType: "image/png" },
  Effect.succeed(new Uint8Array([0, 1, 2, 250, 255]))
)

const Unnamed = Resource.make("test://static/unnamed", {}, Effect.succeed("no name given"))

const Data = Resource.template("test://template/{id}/data", {
  name: "data",
  title: "Data by id",
  mimeType: "application/json"
}, (variables, uri) => {
  if (variables.id === "missing") return Effect.fail(new McpError.ResourceNotFound({ uri }))
  return Effect.succeed(JSON.stringify({ id: variables.id, uri }))
})

const Files = Resource.template(
  "test://files/{+path}",
  { name: "files" },
  (variables) => Effect.succeed(`file at ${variables.path}`)
)

const Search = Resource.template(
  "test://search{?q,limit}",
  { name: "search" },
  (variables) => Effect.succeed(JSON.stringify(variables))
)

const resources = [Readme, Logo, Unnamed, Data, Files, Search]

describe("Resources: lists", () => {
  it.scoped("resources/list: the fixed resources, sorted by URI", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, resources })
      yield* client.initialize("2025-11-25")
      const result = yield* client.result("resources/list")
      assert.deepStrictEqual(result.resources.map((r: any) => r.uri), [
        "test://static/logo.png",
        "test://static/readme",
        "test://static/unnamed"
      ])
      assert.deepStrictEqual(result.resources[1], {
        uri: "test://static/readme",
        name: "readme",
        title: "Read me",
        description: "The readme",
        mimeType: "text/plain",
        icons: [{ src: "https://example.com/readme.png" }]
      })
      assert.strictEqual(result.resources[2].name, "test://static/unnamed")
      assert.isUndefined(validate("2025-11-25", "ListResourcesResult", result))
    }))

  it.scoped("resources/templates/list: the templates", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, resources })
      yield* client.initialize("2025-06-18")
      const result = yield* client.result("resources/templates/list")
      assert.deepStrictEqual(result.resourceTemplates.map((t: any) => t.uriTemplate), [
        "test://files/{+path}",
        "test://search{?q,limit}",
        "test://template/{id}/data"
      ])
      assert.deepStrictEqual(result.resourceTemplates[2], {
        uriTemplate: "test://template/{id}/data",
        name: "data",
        title: "Data by id",
        mimeType: "application/json"
      })
      assert.isUndefined(validate("2025-06-18", "ListResourceTemplatesResult", result))
    }))

  it.scoped("pagination of resources", () =>
    Effect.gen(function*() {
      const many = Array.from({ length: 5 }, (_, i) => Resource.make(`test://many/${i}`, {}, Effect.succeed(`${i}`)))
      const client = yield* connect({ serverInfo, resources: many, pageSize: 2 })
      yield* client.initialize("2025-03-26")
      const uris: Array<string> = []
      let cursor: string | undefined
      let pages = 0
      do {
        const page: any = yield* client.result("resources/list", cursor === undefined ? {} : { cursor })
        uris.push(...page.resources.map((r: any) => r.uri))
        cursor = page.nextCursor
        pages++
      } while (cursor !== undefined && pages < 10)
      assert.strictEqual(pages, 3)
      assert.deepStrictEqual(uris, many.map((r) => r.uri))
      assert.strictEqual((yield* client.error("resources/templates/list", { cursor: "*" })).code, -32602)
    }))

  it.scoped("shaped for each revision and valid against the official schema", () =>
    Effect.gen(function*() {
      for (const revision of handshakeRevisions) {
        const client = yield* connect({ serverInfo, resources })
        yield* client.initialize(revision)
        const list = yield* client.result("resources/list")
        const templates = yield* client.result("resources/templates/list")
        assert.isUndefined(validate(revision, "ListResourcesResult", list), revision)
        assert.isUndefined(validate(revision, "ListResourceTemplatesResult", templates), revision)
        const readme = list.resources.find((r: any) => r.name === "readme")
        assert.strictEqual("title" in readme, revision >= "2025-06-18", revision)
        assert.strictEqual("icons" in readme, revision >= "2025-11-25", revision)
        const data = templates.resourceTemplates.find((t: any) => t.name === "data")
        assert.strictEqual("title" in data, revision >= "2025-06-18", revision)
      }
    }))
})

describe("Resources: resources/read", () => {
  it.scoped("text, with the resource's mimeType", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, resources })
      yield* client.initialize("2024-11-05")
      const result = yield* client.result("resources/read", { uri: "test://static/readme" })
      assert.deepStrictEqual(result, {
        contents: [{ uri: "test://static/readme", mimeType: "text/plain", text: "hello, reader" }]
      })
      assert.isUndefined(validate("2024-11-05", "ReadResourceResult", result))
    }))

  it.scoped("bytes as a base64 blob", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, resources })
      yield* client.initialize("2025-11-25")
      const result = yield* client.result("resources/read", { uri: "test://static/logo.png" })
      assert.deepStrictEqual(result, {
        contents: [{ uri: "test://static/logo.png", mimeType: "image/png", blob: "AAEC+v8=" }]
      })
      assert.deepStrictEqual([...Buffer.from(result.contents[0].blob, "base64")], [0, 1, 2, 250, 255])
      assert.isUndefined(validate("2025-11-25", "ReadResourceResult", result))
    }))

  it.scoped("a large blob is encoded whole", () =>
    Effect.gen(function*() {
      const bytes = new Uint8Array(100_000).map((_, i) => (i * 7) % 256)
      const client = yield* connect({
        serverInfo,
        resources: [Resource.make("test://big", {}, Effect.succeed(bytes))]
      })
      yield* client.initialize("2025-11-25")
      const result = yield* client.result("resources/read", { uri: "test://big" })
      assert.isTrue(Buffer.from(result.contents[0].blob, "base64").equals(Buffer.from(bytes)))
    }))

  it.scoped("a template gets the variables of the requested URI", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, resources })
      yield* client.initialize("2025-06-18")
      const result = yield* client.result("resources/read", { uri: "test://template/42/data" })
      assert.deepStrictEqual(result, {
        contents: [{
          uri: "test://template/42/data",
          mimeType: "application/json",
          text: JSON.stringify({ id: "42", uri: "test://template/42/data" })
        }]
      })
      const encoded = yield* client.result("resources/read", { uri: "test://template/a%20b/data" })
      assert.strictEqual(JSON.parse(encoded.contents[0].text).id, "a b")
      const files = yield* client.result("resources/read", { uri: "test://files/docs/guide/intro.md" })
      assert.strictEqual(files.contents[0].text, "file at docs/guide/intro.md")
      const search = yield* client.result("resources/read", { uri: "test://search?q=effect&limit=5" })
      assert.deepStrictEqual(JSON.parse(search.contents[0].text), { q: "effect", limit: "5" })
    }))

  for (const revision of handshakeRevisions) {
    it.scoped(`not found at ${revision}: -32002 with data.uri, never empty contents`, () =>
      Effect.gen(function*() {
        const client = yield* connect({ serverInfo, resources })
        yield* client.initialize(revision)
        for (const uri of ["test://nowhere", "test://template/42/other", "test://template/missing/data"]) {
          const response = yield* client.call("resources/read", { uri })
          assert.isUndefined(response.result, uri)
          assert.strictEqual(response.error.code, -32002, uri)
          assert.deepStrictEqual(response.error.data, { uri }, uri)
        }
      }))
  }
})

describe("Resources: subscriptions", () => {
  it.scoped("a session's subscriptions are bounded: by count (maxSubscriptionUris) and by length (subscriptionMaxLength)", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, resources, maxSubscriptionUris: 3, subscriptionMaxLength: 100 })
      yield* client.initialize("2025-11-25")
      for (const n of [1, 2, 3]) yield* client.result("resources/subscribe", { uri: `test://static/${n}` })
      // Again: held already, not counted twice.
      yield* client.result("resources/subscribe", { uri: "test://static/1" })
      const fourth = yield* client.error("resources/subscribe", { uri: "test://static/4" })
      assert.strictEqual(fourth.code, -32602)
      assert.deepStrictEqual(fourth.data, { limit: "maxSubscriptionUris", max: 3 })
      // One given back: room for one, but not for a URI that makes them longer than 100 characters.
      yield* client.result("resources/unsubscribe", { uri: "test://static/3" })
      const long = yield* client.error("resources/subscribe", { uri: `test://${"x".repeat(80)}` })
      assert.strictEqual(long.code, -32602)
      assert.deepStrictEqual(long.data, { limit: "subscriptionMaxLength", max: 100 })
      yield* client.result("resources/subscribe", { uri: "test://static/readme" })
      // The subscriptions held still work.
      yield* client.server.resourceUpdated("test://static/readme")
      yield* flush
      assert.deepStrictEqual((yield* client.next).params, { uri: "test://static/readme" })
    }))

  it.scoped("notifications/resources/updated only for subscribed URIs, until unsubscribed", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, resources })
      yield* client.initialize("2025-06-18")
      assert.deepStrictEqual(yield* client.result("resources/subscribe", { uri: "test://static/readme" }), {})
      yield* client.server.resourceUpdated("test://static/logo.png")
      // Without a trailing "/" a subscription covers that URI only.
      yield* client.server.resourceUpdated("test://static/readme2")
      yield* client.server.resourceUpdated("test://static/readme/child")
      yield* client.server.resourceUpdated("test://static/readme")
      yield* flush
      const updated = yield* client.next
      assert.deepStrictEqual(updated, {
        jsonrpc: "2.0",
        method: "notifications/resources/updated",
        params: { uri: "test://static/readme" }
      })
      assert.isUndefined(validate("2025-06-18", "ResourceUpdatedNotification", updated))
      yield* client.quiet
      assert.deepStrictEqual(yield* client.result("resources/unsubscribe", { uri: "test://static/readme" }), {})
      yield* client.server.resourceUpdated("test://static/readme")
      yield* flush
      yield* client.quiet
    }))

  it.scoped("a subscription to a URI ending with / covers everything beneath it", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, resources })
      yield* client.initialize("2025-11-25")
      yield* client.result("resources/subscribe", { uri: "test://template/" })
      for (
        const uri of [
          "test://template",
          "test://templates/1",
          "test://template/1/data",
          "test://other/x",
          "test://template/2/data/deeper"
        ]
      ) {
        yield* client.server.resourceUpdated(uri)
      }
      yield* flush
      const first = yield* client.next
      const second = yield* client.next
      assert.deepStrictEqual([first.params.uri, second.params.uri], [
        "test://template/1/data",
        "test://template/2/data/deeper"
      ])
      yield* client.quiet
    }))

  it.scoped("updates reach the sessions that subscribed, not the others", () =>
    Effect.gen(function*() {
      const server = yield* McpServer.make({ serverInfo, resources })
      const a = yield* attach(server)
      const b = yield* attach(server)
      yield* a.initialize("2025-06-18")
      yield* b.initialize("2024-11-05")
      yield* b.result("resources/subscribe", { uri: "test://static/logo.png" })
      yield* server.resourceUpdated("test://static/logo.png")
      yield* flush
      assert.deepStrictEqual((yield* b.next).params, { uri: "test://static/logo.png" })
      yield* a.quiet
      yield* b.quiet
    }))

  it.scoped("the same URI updated several times in one window: one notification", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, resources })
      yield* client.initialize("2025-06-18")
      yield* client.result("resources/subscribe", { uri: "test://static/readme" })
      yield* client.server.resourceUpdated("test://static/readme")
      yield* client.server.resourceUpdated("test://static/readme")
      yield* flush
      assert.strictEqual((yield* client.next).method, "notifications/resources/updated")
      yield* client.quiet
    }))
})
