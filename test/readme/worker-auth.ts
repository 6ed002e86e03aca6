// A Worker whose code names authorization and tasks: each is a value it imports, so its bundle
// carries the resource server, the JWT verifier (jose) and the tasks runtime, and still no
// handshake era.
import * as StatelessServer from "@effect-mcp/server/StatelessServer"
import * as TokenVerifier from "@effect-mcp/server/TokenVerifier"
import * as Tool from "@effect-mcp/server/Tool"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

const Report = Tool.make("report", {
  description: "A long report, run as a task when the client takes one",
  parameters: Schema.Struct({ topic: Schema.String }),
  task: "optional"
}, ({ topic }) => Effect.succeed(`report on ${topic}`))

export default StatelessServer.toWorkerHandler(
  StatelessServer.layer({
    serverInfo: { name: "reports", version: "1.0.0" },
    requestStateKey: Config.redacted("MCP_REQUEST_STATE_KEY"),
    tools: [Report],
    tasks: StatelessServer.tasks
  }),
  (env) => ({
    allowedHosts: [String(env.MCP_HOST ?? "reports.example.workers.dev")],
    auth: StatelessServer.auth({
      resource: `https://${String(env.MCP_HOST ?? "reports.example.workers.dev")}/mcp`,
      authorizationServers: ["https://auth.example.com"],
      verifier: TokenVerifier.jwt()
    })
  })
)
