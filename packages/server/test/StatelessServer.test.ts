/**
 * `StatelessServer` at the wire: a fetch handler of a 2026-07-28 server whose tasks and
 * authorization are values its code names. Without `tasks` a tool that runs as a task is refused
 * when the server is built or added later (`addTool`), and no task exists (-32602 for any id);
 * with `tasks: StatelessServer.tasks` a call that declares the extension gets its task. With `auth`, the resource server of
 * `HttpTransport` (401 and its challenge, the metadata), the verifier the one named.
 */
import { AuthInfo } from "@effect-mcp/core"
import { statelessHeaders } from "@effect-mcp/test-support/HttpWire"
import { describe, expect, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { onTestFinished } from "vitest"
import { McpServer } from "../src/McpServer.js"
import * as StatelessServer from "../src/StatelessServer.js"
import * as TokenVerifier from "../src/TokenVerifier.js"
import * as Tool from "../src/Tool.js"

const TASKS = "io.modelcontextprotocol/tasks"

const Report = Tool.make("report", {
  parameters: Schema.Struct({ topic: Schema.String }),
  task: "optional"
}, ({ topic }) => Effect.succeed(`report on ${topic}`))

const Echo = Tool.make(
  "echo",
  { parameters: Schema.Struct({ text: Schema.String }) },
  ({ text }) => Effect.succeed(`echo: ${text}`)
)

const serverInfo = { name: "stateless-server", version: "1.0.0" }

let ids = 0
const post = (
  method: string,
  params: Record<string, unknown>,
  capabilities: Record<string, unknown> = {},
  headers: Record<string, string> = {}
) =>
  new Request("http://localhost/mcp", {
    method: "POST",
    headers: {
      ...statelessHeaders(method, typeof params.name === "string" ? params.name : undefined),
      ...headers
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: ++ids,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": capabilities
        }
      }
    })
  })

const served = (web: StatelessServer.WebHandler) => {
  onTestFinished(() => web.dispose())
  return web.handler
}

describe("StatelessServer", () => {
  it("refuses, when built, a tool that runs as a task without the tasks named", async () => {
    const exit = await Effect.runPromiseExit(
      Effect.scoped(StatelessServer.make({ serverInfo, tools: [Report] }))
    )
    expect(Exit.isFailure(exit) && Cause.pretty(exit.cause)).toContain(
      `the tool "report" runs as a task, which needs the tasks code`
    )
  })

  it.each(
    [
      ["addTool", (server: McpServer["Type"]) => server.addTool(Report)],
      ["update", (server: McpServer["Type"]) => server.update({ tools: [Report, Echo], removeTools: ["echo"] })]
    ] as const
  )(
    "refuses a tool that runs as a task added later (%s) without the tasks named: nothing changed, unknown at the wire",
    async (_, add) => {
      let added: Exit.Exit<void> | undefined
      const addReport = Layer.effectDiscard(
        Effect.flatMap(McpServer, (server) => Effect.exit(add(server))).pipe(
          Effect.map((exit) => (added = exit))
        )
      )
      const handler = served(StatelessServer.toWebHandler(
        Layer.provideMerge(addReport, StatelessServer.layer({ serverInfo, tools: [Echo] }))
      ))
      const listed = await (await handler(post("tools/list", {}))).json()
      expect(listed.result.tools.map((tool: { readonly name: string }) => tool.name)).toEqual(["echo"])
      expect(added !== undefined && Exit.isFailure(added) && Cause.pretty(added.cause)).toContain(
        `the tool "report" runs as a task, which needs the tasks code: give the server tasks: StatelessServer.tasks`
      )
      const call = await (await handler(post("tools/call", { name: "report", arguments: { topic: "x" } }, {
        extensions: { [TASKS]: {} }
      }))).json()
      expect(call.error.code).toBe(-32602)
      expect(call.error.message).toContain("report")
    }
  )

  it("takes the 2026-07-28 revision alone in its options' type", () => {
    const options = (revisions: StatelessServer.Options<never>["revisions"]) => revisions
    expect(options(["2026-07-28"])).toEqual(["2026-07-28"])
    // @ts-expect-error a handshake revision: a StatelessServer serves 2026-07-28 alone
    StatelessServer.layer({ serverInfo, tools: [Echo], revisions: ["2025-11-25", "2026-07-28"] })
  })

  it("runs no task without tasks named: tasks/get of any id is -32602, a call declaring the extension is a plain call", async () => {
    const handler = served(StatelessServer.toWebHandler(StatelessServer.layer({ serverInfo, tools: [Echo] })))
    const call = await (await handler(post("tools/call", { name: "echo", arguments: { text: "hi" } }, {
      extensions: { [TASKS]: {} }
    }))).json()
    expect(call.result.content).toEqual([{ type: "text", text: "echo: hi" }])
    const get = await (await handler(post("tasks/get", { taskId: "a-task-nobody-made" }, {
      extensions: { [TASKS]: {} }
    }, { "mcp-name": "a-task-nobody-made" }))).json()
    expect(get.error.code).toBe(-32602)
  })

  it("answers a call past maxRequestDuration with -32603 (the handler's sweep), and serves the next", async () => {
    const Stuck = Tool.make("stuck", {}, () => Effect.never)
    const handler = served(
      StatelessServer.toWebHandler(StatelessServer.layer({ serverInfo, tools: [Echo, Stuck] }), {
        maxRequestDuration: "40 millis"
      })
    )
    const stuck = await (await handler(post("tools/call", { name: "stuck", arguments: {} }))).json()
    expect(stuck.error).toMatchObject({ code: -32603, message: "Request exceeded the server's maximum duration" })
    const call = await (await handler(post("tools/call", { name: "echo", arguments: { text: "hi" } }))).json()
    expect(call.result.content).toEqual([{ type: "text", text: "echo: hi" }])
  })

  it("runs a task with tasks: StatelessServer.tasks", async () => {
    const handler = served(
      StatelessServer.toWebHandler(
        StatelessServer.layer({ serverInfo, tools: [Report], tasks: StatelessServer.tasks })
      )
    )
    const created = await (await handler(post("tools/call", { name: "report", arguments: { topic: "x" } }, {
      extensions: { [TASKS]: {} }
    }))).json()
    expect(created.result.resultType).toBe("task")
    expect(typeof created.result.taskId).toBe("string")
  })

  it("is a resource server with auth: StatelessServer.auth, its verifier the one named", async () => {
    const verified: Array<string> = []
    const handler = served(StatelessServer.toWebHandler(StatelessServer.layer({ serverInfo, tools: [Echo] }), {
      auth: StatelessServer.auth({
        resource: "http://localhost/mcp",
        authorizationServers: ["https://auth.example.com"],
        verifier: TokenVerifier.make((token) => {
          verified.push(token)
          return Effect.succeed(
            new AuthInfo.AuthInfo({
              subject: "ada",
              clientId: Option.none(),
              scopes: [],
              expiresAt: Option.none(),
              audience: ["http://localhost/mcp"],
              issuer: Option.some("https://auth.example.com"),
              claims: {},
              token: Redacted.make(token)
            })
          )
        })
      })
    }))
    const refused = await handler(post("tools/call", { name: "echo", arguments: { text: "hi" } }))
    expect(refused.status).toBe(401)
    expect(refused.headers.get("www-authenticate")).toContain(
      `resource_metadata="http://localhost/.well-known/oauth-protected-resource/mcp"`
    )
    await refused.body?.cancel()
    const metadata = await (await handler(
      new Request("http://localhost/.well-known/oauth-protected-resource/mcp")
    )).json()
    expect(metadata.resource).toBe("http://localhost/mcp")
    const call = await (await handler(
      post("tools/call", { name: "echo", arguments: { text: "hi" } }, {}, { authorization: "Bearer a-token" })
    )).json()
    expect(call.result.content).toEqual([{ type: "text", text: "echo: hi" }])
    expect(verified).toEqual(["a-token"])
  })
})
