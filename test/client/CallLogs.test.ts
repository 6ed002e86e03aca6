/**
 * Our client over Streamable HTTP against our server, in both eras: the log messages the server
 * sends on a call's own response stream reach that call's `onLog`, in order, and are not published
 * on `notifications` (a call without `onLog` still has them published there); a 2026-07-28 call
 * asks for the level it was given (`logLevel` in its `_meta`), a handshake one is logged at the
 * session's level. `notificationsReceived` tells such a published message with the request it came
 * on (`related`). Failed before: `onLog` was never called, and `logLevel` was not sent (and
 * `notificationsReceived` did not exist).
 */
import { McpClient, McpClientTransport } from "@effect-mcp/client"
import { type Peer, Revision } from "@effect-mcp/core"
import { NodeMcpServer } from "@effect-mcp/platform-node"
import { McpRequest, McpServer, Tool } from "@effect-mcp/server"
import { Services } from "@effect-mcp/test-support"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"

/** Logs `tag` at info and at debug while it runs. */
const Chatty = Tool.make(
  "chatty",
  { parameters: Schema.Struct({ tag: Schema.String }) },
  ({ tag }) =>
    Effect.gen(function*() {
      yield* McpRequest.log("info", `${tag}: step one`, "work")
      yield* McpRequest.log("debug", `${tag}: detail`, "work")
      return "done"
    })
)

/** A server speaking `revisions` on a free port, and our client of it. */
const connect = (revisions: ReadonlyArray<Revision.Revision>) =>
  Effect.gen(function*() {
    const port = yield* Services.freePort
    yield* Layer.build(
      NodeMcpServer.layerHttp({ port }).pipe(
        Layer.provideMerge(
          McpServer.layer({ serverInfo: { name: "logs", version: "1.0.0" }, revisions, tools: [Chatty] })
        )
      )
    )
    const context = yield* Layer.build(
      McpClient.layer({ clientInfo: { name: "call-logs-test", version: "1.0.0" } }).pipe(
        Layer.provide(McpClientTransport.layerHttp({ url: `http://127.0.0.1:${port}/mcp` })),
        Layer.provide(FetchHttpClient.layer)
      )
    )
    return yield* Effect.provide(McpClient.McpClient, context)
  })

describe("McpClient: a call's log messages to its onLog", () => {
  for (const [era, revisions] of [["stateless", ["2026-07-28"]], ["handshake", Revision.handshake]] as const) {
    it.scopedLive(`${era}: onLog hears its call's messages, which are not published; a call without it publishes`, () =>
      Effect.gen(function*() {
        const client = yield* connect(revisions)
        assert.strictEqual(client.era, era)
        if (era === "handshake") yield* client.setLogLevel("debug")
        // Listening from its first step (the fiber subscribes at this one's first wait, before any answer).
        const published = yield* Effect.fork(Stream.runHead(
          Stream.filter(client.notifications, (n) => n.method === "notifications/message")
        ))
        const received = yield* Effect.fork(Stream.runHead(
          Stream.filter(client.notificationsReceived, (r) => r.notification.method === "notifications/message")
        ))
        const heard = yield* Ref.make<ReadonlyArray<Peer.LogMessage>>([])
        const onLog = (message: Peer.LogMessage) => Ref.update(heard, (all) => [...all, message])
        yield* client.callTool("chatty", { tag: "first" }, { onLog, logLevel: "debug" })
        assert.deepStrictEqual(yield* Ref.get(heard), [
          { level: "info", logger: "work", data: "first: step one" },
          { level: "debug", logger: "work", data: "first: detail" }
        ])
        // Without onLog: published (2026-07-28: at the call's level, info). The first published is this call's.
        yield* client.callTool("chatty", { tag: "second" }, { logLevel: "info" })
        const first = Option.getOrThrow(yield* Fiber.join(published))
        assert.deepStrictEqual(first.params, { level: "info", logger: "work", data: "second: step one" })
        // Told with the request it came on (a gateway broadcasts none of these to other clients).
        const told = Option.getOrThrow(yield* Fiber.join(received))
        assert.strictEqual(told.notification, first)
        assert.isDefined(told.related)
      }))
  }
})
