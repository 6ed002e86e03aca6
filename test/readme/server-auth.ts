import { NodeMcpServer } from "@effect-mcp/platform-node"
import { McpRequest, McpServer, TokenVerifier, Tool } from "@effect-mcp/server"
import { Effect, Layer, Option, Redacted, Schema } from "effect"

// Who holds the request's access token, as the verifier found it.
const Whoami = Tool.make("whoami", {
  success: Schema.Struct({ subject: Schema.String, scopes: Schema.Array(Schema.String) })
}, () =>
  Effect.map(
    McpRequest.auth,
    Option.match({
      onNone: () => ({ subject: "anonymous", scopes: [] }), // no authorization (stdio, HTTP without auth)
      onSome: ({ scopes, subject }) => ({ subject, scopes })
    })
  ))

// A call with a token without notes:write is answered 403 insufficient_scope: the client steps up.
const DeleteNote = Tool.make("delete_note", {
  parameters: Schema.Struct({ id: Schema.String }),
  scopes: ["notes:write"]
}, ({ id }) => Effect.succeed(`deleted ${id}`))

export const Live = NodeMcpServer.layerHttp({
  port: 3000,
  allowedHosts: ["mcp.example.com"], // the Host clients send (behind a proxy that keeps it)
  auth: {
    resource: "https://mcp.example.com/mcp", // the URL clients reach: the audience its tokens must name
    authorizationServers: ["https://auth.example.com"], // the issuers whose tokens are taken
    scopes: ["notes:read"] // what every request needs (default none: a valid token is enough)
  }
}).pipe(
  Layer.provide(McpServer.layer({
    serverInfo: { name: "notes", version: "1.0.0" },
    tools: [Whoami, DeleteNote],
    hideUnauthorized: true // tools/list leaves delete_note out for a token without notes:write
  }))
)

// Opaque tokens: ask the authorization server (RFC 7662) instead of reading JWTs.
export const LiveIntrospected = Live.pipe(
  Layer.provide(TokenVerifier.layerIntrospection({
    clientId: "notes-api",
    clientSecret: Redacted.make(process.env.INTROSPECTION_SECRET ?? "")
  }))
)
