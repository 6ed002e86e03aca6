import { Dispatch, Peer, Transport } from "@effect-mcp/core"
import { Effect } from "effect"

// A server peer answering tools/call, a client peer calling it, linked in memory.
export const program = Effect.scoped(Effect.gen(function*() {
  const [clientSide, serverSide] = yield* Transport.memoryPair
  yield* Peer.make({
    transport: serverSide,
    revision: Effect.succeed("2025-11-25"),
    onRequest: Dispatch.make({
      revision: Effect.succeed("2025-11-25"),
      handlers: {
        "tools/call": ({ arguments: args }) =>
          Effect.succeed({ content: [{ type: "text", text: `hello ${String(args?.name)}` }] })
      }
    })
  })
  const client = yield* Peer.make({ transport: clientSide, onRequest: () => Effect.never })
  return yield* client.request("tools/call", { name: "greet", arguments: { name: "Ada" } })
}))
// Effect.runPromise(program) resolves to { content: [{ type: "text", text: "hello Ada" }] }
