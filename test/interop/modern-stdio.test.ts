/**
 * Interop in the modern era over stdio: the official TypeScript SDK client
 * (`@modelcontextprotocol/client` 2.4.0, `versionNegotiation` pinned to 2026-07-28 and `auto`)
 * spawning `apps/everything` (dual era by default): discovery instead of a handshake, progress,
 * logs for the request that asked, multi-round trips fulfilled by the client's handlers.
 *
 * And a multi-round trip whose first round goes to one server process and whose retry goes to
 * another, sharing nothing but `MCP_REQUEST_STATE_KEY`.
 */
import { Client, type VersionNegotiationMode } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import * as readline from "node:readline"
import { fileURLToPath } from "node:url"
import { afterEach, assert, describe, it } from "vitest"
import * as Programs from "../support/Programs.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const main = Programs.demoMain

const textOf = (result: any): string => result.content[0].text

const newClient = (mode: VersionNegotiationMode) => {
  const client = new Client({ name: "modern-stdio-interop", version: "1.0.0" }, {
    capabilities: { sampling: {}, elicitation: { form: {} }, roots: {} },
    versionNegotiation: { mode }
  })
  client.setRequestHandler("elicitation/create", async () => ({ action: "accept" as const, content: { name: "Ada" } }))
  client.setRequestHandler("sampling/createMessage", async () => ({
    model: "test-model",
    role: "assistant" as const,
    content: { type: "text" as const, text: "Paris" }
  }))
  client.setRequestHandler("roots/list", async () => ({ roots: [{ uri: "file:///work", name: "work" }] }))
  return client
}

const closing: Array<() => Promise<unknown>> = []
afterEach(async () => {
  for (const close of closing.splice(0)) await close().catch(() => undefined)
})

describe("official client, modern era, over stdio", () => {
  for (const mode of [{ pin: "2026-07-28" }, "auto"] as const) {
    it(`versionNegotiation ${JSON.stringify(mode)}: every feature, statelessly`, async () => {
      if (!fs.existsSync(main)) throw new Error(`${main} is missing: run "tsc -b tsconfig.json" first`)
      const transport = new StdioClientTransport({ command: process.execPath, args: [main, "stdio"], cwd: root })
      const sent: Array<any> = []
      const client = newClient(mode)
      closing.push(() => client.close())
      await client.connect(transport)
      const received: Array<any> = []
      const send = transport.send.bind(transport)
      transport.send = (message) => {
        sent.push(message)
        return send(message)
      }
      const deliver = transport.onmessage!
      transport.onmessage = (message) => {
        received.push(message)
        deliver(message)
      }
      assert.strictEqual(client.getNegotiatedProtocolVersion(), "2026-07-28")
      assert.strictEqual(client.getServerVersion()?.name, "effect-mcp-everything")
      assert.includeMembers(client.getDiscoverResult()?.supportedVersions ?? [], ["2025-11-25", "2026-07-28"])

      const tools = await client.listTools()
      assert.includeMembers(tools.tools.map((t) => t.name), [
        "test_simple_text",
        "test_input_required_result_elicitation",
        "test_input_required_result_multiple_inputs"
      ])
      assert.strictEqual(
        textOf(await client.callTool({ name: "test_simple_text", arguments: {} })),
        "This is a simple text response for testing."
      )

      const progress: Array<number> = []
      received.length = 0
      await client.callTool({ name: "test_tool_with_progress", arguments: {} }, {
        onprogress: (p) => void progress.push(p.progress)
      })
      // All three arrive before the response; the SDK runs notification handlers a microtask late and
      // responses at once, so a progress read in the same chunk as the response reaches no handler.
      const wire = received.filter((m) => m.method === "notifications/progress" || "result" in m)
      assert.deepStrictEqual(wire.map((m) => m.params?.progress ?? "response"), [0, 50, 100, "response"])
      assert.isAtLeast(progress.length, 2)
      assert.deepStrictEqual(progress, [0, 50, 100].slice(0, progress.length))

      // Multi-round trips, fulfilled by the client's own handlers: one ask, then three at once.
      assert.strictEqual(
        textOf(await client.callTool({ name: "test_input_required_result_elicitation", arguments: {} })),
        "Hello, Ada!"
      )
      const multiple = textOf(await client.callTool({ name: "test_input_required_result_multiple_inputs" }))
      assert.include(multiple, "Ada")
      assert.include(multiple, "file:///work")

      // Every request carried the envelope; there was no initialize.
      assert.isFalse(sent.some((m) => m.method === "initialize"))
      for (const message of sent.filter((m) => "id" in m && "method" in m)) {
        assert.strictEqual(message.params?._meta?.["io.modelcontextprotocol/protocolVersion"], "2026-07-28")
      }
    })
  }
})

// ---------------------------------------------------------------------------- across processes

interface Server {
  readonly request: (message: object) => Promise<any>
  readonly stderr: () => string
}

/** `apps/everything` over stdio, spoken at the wire, with this environment. */
const serverProcess = (env: Record<string, string | undefined>): Server => {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [main, "stdio"], {
    cwd: root,
    env: { ...process.env, ...env }
  })
  closing.push(async () => {
    child.stdin.end()
    child.kill()
  })
  let stderr = ""
  child.stderr.on("data", (chunk) => (stderr += String(chunk)))
  const waiting = new Map<unknown, (message: any) => void>()
  readline.createInterface({ input: child.stdout }).on("line", (line) => {
    const message = JSON.parse(line)
    waiting.get(message.id)?.(message)
  })
  return {
    request: (message: any) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no answer to ${message.id}; stderr: ${stderr}`)), 10_000)
        waiting.set(message.id, (answer) => {
          clearTimeout(timer)
          resolve(answer)
        })
        child.stdin.write(`${JSON.stringify(message)}\n`)
      }),
    stderr: () => stderr
  }
}

const meta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
  "io.modelcontextprotocol/clientInfo": { name: "hop", version: "1.0.0" }
}

/** Round 1 of `test_input_required_result_multi_round` on `first`, round 2 on `second`, round 3 on `first`. */
const hop = async (first: Server, second: Server) => {
  const call = (id: number, extra: object = {}) => ({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "test_input_required_result_multi_round", arguments: {}, _meta: meta, ...extra }
  })
  const round1 = await first.request(call(1))
  assert.strictEqual(round1.result?.resultType, "input_required", JSON.stringify(round1))
  const [step1] = Object.keys(round1.result.inputRequests)
  const round2 = await second.request(call(2, {
    inputResponses: { [step1]: { action: "accept", content: { name: "Ada" } } },
    requestState: round1.result.requestState
  }))
  return { round1, round2 }
}

describe("a multi-round trip across processes", () => {
  it("round 1 on one process, the retries on another with the same key: it completes", async () => {
    const key = "a-key-both-processes-share-and-nothing-else"
    const a = serverProcess({ MCP_REQUEST_STATE_KEY: key })
    const b = serverProcess({ MCP_REQUEST_STATE_KEY: key })
    const { round2 } = await hop(a, b)
    assert.strictEqual(round2.result?.resultType, "input_required", JSON.stringify(round2))
    const [step2] = Object.keys(round2.result.inputRequests)
    const round3 = await a.request({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: {
        name: "test_input_required_result_multi_round",
        arguments: {},
        _meta: meta,
        inputResponses: { [step2]: { action: "accept", content: { color: "blue" } } },
        requestState: round2.result.requestState
      }
    })
    assert.strictEqual(round3.result?.resultType, "complete", JSON.stringify(round3))
    assert.include(textOf(round3.result), "Ada")
    assert.notInclude(a.stderr() + b.stderr(), "MCP_REQUEST_STATE_KEY is not set")
  })

  it("without a shared key the other process refuses the state (-32602), and each says so on stderr", async () => {
    const a = serverProcess({ MCP_REQUEST_STATE_KEY: undefined })
    const b = serverProcess({ MCP_REQUEST_STATE_KEY: undefined })
    const { round2 } = await hop(a, b)
    assert.strictEqual(round2.error?.code, -32602, JSON.stringify(round2))
    assert.strictEqual(round2.id, 2)
    assert.include(a.stderr(), "MCP_REQUEST_STATE_KEY is not set")
  })
})
