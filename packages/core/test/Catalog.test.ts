/**
 * For each of the five revisions, every method of the catalog: messages generated from
 * our schemas (Schema `Arbitrary`) encode to JSON that validates against that revision's
 * official schema.json, and decode(encode(m)) equals m.
 */
import { definition, definitions, type SchemaSet, validate } from "@effect-mcp/test-support/OfficialSchema"
import { assert, describe, it } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as Schema from "effect/Schema"
import * as Method from "../src/Method.js"
import * as Revision from "../src/Revision.js"
import { parseOptions } from "../src/Schema/Base.js"
import { extensionId as skillsExtension } from "../src/Schema/Skills.js"
import * as Wire from "../src/Wire.js"

/** The official definitions a method's result may be, by name (looked up in the revision's set, then ext-tasks). */
const resultDefinitions: Record<string, ReadonlyArray<string>> = {
  "initialize": ["InitializeResult"],
  "ping": ["EmptyResult"],
  "server/discover": ["DiscoverResult"],
  "tools/list": ["ListToolsResult"],
  "tools/call": ["CallToolResult", "CreateTaskResult", "InputRequiredResult"],
  "resources/list": ["ListResourcesResult"],
  "resources/templates/list": ["ListResourceTemplatesResult"],
  "resources/read": ["ReadResourceResult", "InputRequiredResult"],
  "resources/subscribe": ["EmptyResult"],
  "resources/unsubscribe": ["EmptyResult"],
  "subscriptions/listen": ["SubscriptionsListenResult"],
  "prompts/list": ["ListPromptsResult"],
  "prompts/get": ["GetPromptResult", "InputRequiredResult"],
  "completion/complete": ["CompleteResult"],
  "logging/setLevel": ["EmptyResult"],
  "sampling/createMessage": ["CreateMessageResult", "CreateTaskResult"],
  "roots/list": ["ListRootsResult"],
  "elicitation/create": ["ElicitResult", "CreateTaskResult"],
  "tasks/get": ["GetTaskResult"],
  "tasks/result": ["GetTaskPayloadResult"],
  "tasks/list": ["ListTasksResult"],
  "tasks/cancel": ["CancelTaskResult"],
  "tasks/update": ["UpdateTaskResult"]
}

/** The `method` constant of a definition (directly, or in an `allOf` member as the ext-tasks schema writes it). */
const methodOf = (d: any): unknown =>
  d?.properties?.method?.const ?? (Array.isArray(d?.allOf) ? d.allOf.map(methodOf).find(Boolean) : undefined)

/** The official definition of a request or notification, found by its `method` constant. */
const messageDefinition = (set: SchemaSet, method: string): string | undefined =>
  definitions(set).find((name) =>
    methodOf(definition(set, name)) === method && (name.endsWith("Request") || name.endsWith("Notification"))
  )

const setsFor = (revision: Revision.Revision, entry: Method.Entry): ReadonlyArray<SchemaSet> =>
  entry.definition.extension !== undefined && revision === "2026-07-28" ? ["ext-tasks-draft"] : [revision]

/** Through the wire as every message goes: JSON text, then `Wire.parse`. */
const wire = (value: unknown) => Wire.parse(JSON.stringify(value))

const samples = 25

/** The skills extension has no official JSON Schema: its methods are checked in SkillsCatalog.test.ts. */
const withOfficialSchema = (entry: Method.Entry) => entry.definition.extension !== skillsExtension

describe.each(Revision.all)("catalog at %s", (revision) => {
  const table = new Map(Array.from(Method.table(revision)).filter(([, entry]) => withOfficialSchema(entry)))

  it("has the methods of the revision", () => {
    const set: SchemaSet = revision
    // Every request/notification method that the official schema defines for this revision is in the catalog,
    // except the 2026 input requests, which are not JSON-RPC methods there (they ride in `inputRequests`).
    const official = definitions(set)
      .map((name) => ({ name, method: definition(set, name)?.properties?.method?.const }))
      .filter((d) => typeof d.method === "string" && (d.name.endsWith("Request") || d.name.endsWith("Notification")))
      .map((d) => d.method as string)
      .filter((m) =>
        !(revision === "2026-07-28" && ["sampling/createMessage", "elicitation/create", "roots/list"].includes(m))
      )
    for (const method of new Set(official)) assert.isTrue(table.has(method), `${method} missing at ${revision}`)
    for (const [method, entry] of table) {
      if (entry.definition.extension !== undefined && revision === "2026-07-28") continue
      assert.isTrue(official.includes(method), `${method} is not a ${revision} method`)
    }
  })

  for (const [method, entry] of table) {
    const sets = setsFor(revision, entry)
    const kind = entry.definition.kind

    it(`${method}: generated params validate and round-trip`, () => {
      const encode = Schema.encodeSync(entry.shape.params, parseOptions)
      FastCheck.assert(
        FastCheck.property(Arbitrary.make(entry.shape.params), (params) => {
          const encoded = wire(encode(params))
          const message = kind === "request"
            ? { jsonrpc: "2.0", id: 1, method, params: encoded }
            : { jsonrpc: "2.0", method, params: encoded }
          for (const set of sets) {
            const name = messageDefinition(set, method)
            assert.isDefined(name, `no official definition of ${method} in ${set}`)
            const error = validate(set, name!, message)
            if (error !== undefined) throw new Error(`${method} @ ${set}: ${error}\n${JSON.stringify(message)}`)
          }
          assert.deepStrictEqual(Either.getOrThrow(entry.decodeParams(encoded)), wire(params))
        }),
        { numRuns: samples }
      )
      if (entry.shape.paramsOptional) {
        for (const set of sets) {
          const without = kind === "request" ? { jsonrpc: "2.0", id: 1, method } : { jsonrpc: "2.0", method }
          assert.isUndefined(validate(set, messageDefinition(set, method)!, without))
        }
        assert.deepStrictEqual(Either.getOrThrow(entry.decodeParams(undefined)), {})
      }
    })

    if (entry.shape.result !== undefined) {
      it(`${method}: generated results validate and round-trip`, () => {
        const candidates = resultDefinitions[method]
        assert.isDefined(candidates, `no result definitions listed for ${method}`)
        const lookIn: ReadonlyArray<SchemaSet> = revision === "2026-07-28" ? [revision, "ext-tasks-draft"] : [revision]
        const named = lookIn.flatMap((set) =>
          candidates.filter((name) => definitions(set).includes(name)).map((name) => ({ set, name }))
        )
        assert.isNotEmpty(named)
        FastCheck.assert(
          FastCheck.property(Arbitrary.make(entry.shape.result!), (result) => {
            const encoded = wire(Either.getOrThrow(entry.encodeResult!(result)))
            const errors = named.map(({ name, set }) => validate(set, name, encoded))
            if (errors.every((e) => e !== undefined)) {
              throw new Error(`${method} result @ ${revision}: ${errors.join("\n")}\n${JSON.stringify(encoded)}`)
            }
            assert.deepStrictEqual(Either.getOrThrow(entry.decodeResult!(encoded)), wire(result))
          }),
          { numRuns: samples }
        )
      })
    }
  }
})

describe("catalog facts", () => {
  it("only tools/call, prompts/get and resources/read may answer input_required", () => {
    const names = Method.definitions.filter((d) => d.inputRequired).map((d) => d.name).sort()
    assert.deepStrictEqual(names, ["prompts/get", "resources/read", "tools/call"])
  })

  it("the six cacheable results of 2026-07-28 carry ttlMs and cacheScope", () => {
    const names = Method.definitions.filter((d) => d.cacheable && d.extension !== skillsExtension).map((d) => d.name)
      .sort()
    assert.deepStrictEqual(names, [
      "prompts/list",
      "resources/list",
      "resources/read",
      "resources/templates/list",
      "server/discover",
      "tools/list"
    ])
    for (const name of names) {
      const fields = definition("2026-07-28", resultDefinitions[name][0]).required
      assert.includeMembers(fields, ["ttlMs", "cacheScope", "resultType"], name)
    }
  })

  it("before initialization only initialize, ping and notifications are served", () => {
    const requests = Method.definitions.filter((d) => d.beforeInitialized && d.kind === "request").map((d) => d.name)
    assert.deepStrictEqual(requests.sort(), ["initialize", "ping"])
  })

  it("every revision's table is derived from the catalog", () => {
    for (const revision of Revision.all) {
      for (const [name, entry] of Method.table(revision)) {
        assert.strictEqual(entry.definition.name, name)
        assert.include(entry.definition.revisions, revision)
      }
    }
    assert.isUndefined(Method.lookup("2026-07-28", "initialize"))
    assert.isUndefined(Method.lookup("2024-11-05", "server/discover"))
    assert.isUndefined(Method.lookup("2025-06-18", "tasks/get"))
    assert.isDefined(Method.lookup("2025-11-25", "tasks/result"))
  })
})
