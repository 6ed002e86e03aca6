/**
 * The official SDK client (`@modelcontextprotocol/client` 2.x, handshake era, Streamable HTTP)
 * through `mcp gateway --port` in front of `@modelcontextprotocol/server-everything` (from npm) and
 * our demo, both over stdio: a read of a template's instance, prompts, sampling and elicitation asked
 * by an upstream and answered by this client's handlers, a subscription to a template's instance
 * (updated from upstream), and a call cancelled with an AbortSignal while the session goes on.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { assert, describe, it } from "vitest"
import { configOf, demoMain, everythingMain, overHttp } from "./support.js"

const textOf = (result: { readonly content?: unknown }) => JSON.stringify(result.content)

describe("mcp gateway: the official SDK client through it", () => {
  it("reads, prompts, asks answered, a template instance's updates, a call cancelled", async () => {
    const { file } = configOf({
      everything: { command: process.execPath, args: [everythingMain, "stdio"] },
      demo: { command: process.execPath, args: [demoMain, "stdio"] }
    })
    const gateway = await overHttp(file, ["--start-timeout", "60"])
    const client = new Client({ name: "sdk", version: "1.0.0" }, { capabilities: { sampling: {}, elicitation: {} } })
    const asked: Array<string> = []
    client.setRequestHandler("sampling/createMessage", async () => {
      asked.push("sampling/createMessage")
      return {
        role: "assistant",
        content: { type: "text", text: "sampled by the sdk client" },
        model: "test-model",
        stopReason: "endTurn"
      }
    })
    client.setRequestHandler("elicitation/create", async () => {
      asked.push("elicitation/create")
      return { action: "accept", content: { username: "ada", email: "a@b.c" } }
    })
    const updated: Array<string> = []
    let onUpdated: ((uri: string) => void) | undefined
    client.setNotificationHandler("notifications/resources/updated", (notification) => {
      updated.push(notification.params.uri)
      onUpdated?.(notification.params.uri)
    })
    client.onerror = () => undefined
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url)))

      const tools = (await client.listTools()).tools.map((t) => t.name)
      assert.includeMembers(tools, ["demo_add", "demo_longRunning", "everything_trigger-sampling-request"])

      // A template's instance upstream, read under the gateway's URI.
      const { resourceTemplates } = await client.listResourceTemplates()
      assert.include(
        resourceTemplates.map((t) => t.uriTemplate),
        "everything+demo://resource/dynamic/text/{resourceId}"
      )
      const instance = await client.readResource({ uri: "everything+demo://resource/dynamic/text/7" })
      assert.strictEqual(instance.contents[0]!.uri, "everything+demo://resource/dynamic/text/7")

      const prompts = (await client.listPrompts()).prompts.map((p) => p.name)
      assert.include(prompts, "everything_simple-prompt")
      assert.isAbove((await client.getPrompt({ name: "everything_simple-prompt" })).messages.length, 0)

      // Asks of an upstream, answered by this client's handlers.
      const sampled = await client.callTool({
        name: "everything_trigger-sampling-request",
        arguments: { prompt: "hi" }
      })
      assert.include(textOf(sampled), "sampled by the sdk client")
      const elicited = await client.callTool({ name: "demo_test_elicitation", arguments: { message: "Who?" } })
      assert.include(textOf(elicited), "ada")
      assert.deepStrictEqual(asked, ["sampling/createMessage", "elicitation/create"])

      // A subscription to a template's instance: its updates come from upstream, under the gateway's URI.
      const uri = "everything+demo://resource/dynamic/text/1"
      assert.deepStrictEqual(await client.subscribeResource({ uri }), {})
      const notified = new Promise<string>((resolve) => {
        onUpdated = resolve
      })
      await client.callTool({ name: "everything_toggle-subscriber-updates", arguments: {} })
      assert.strictEqual(await notified, uri)

      // A call cancelled with an AbortSignal once it has begun; the session goes on.
      const controller = new AbortController()
      let began: () => void = () => undefined
      const beginning = new Promise<void>((resolve) => {
        began = resolve
      })
      const call = client.callTool({ name: "demo_longRunning", arguments: { duration: 30, steps: 300 } }, {
        signal: controller.signal,
        onprogress: () => began()
      })
      await beginning
      controller.abort("enough")
      let rejected = false
      await call.catch(() => (rejected = true))
      assert.isTrue(rejected)
      const sum = await client.callTool({ name: "demo_add", arguments: { a: 20, b: 22 } })
      assert.deepStrictEqual(sum.structuredContent, { sum: 42 })
    } finally {
      await client.close().catch(() => undefined)
      await gateway.stop()
    }
  }, 90_000)
})
