/**
 * `mcp <url>` with `MCP_CONFORMANCE_SCENARIO` set: the conformance suite's client driver. The
 * revision is `MCP_CONFORMANCE_PROTOCOL_VERSION` (2026-07-28: the stateless era; earlier: a
 * session). It connects over Streamable HTTP, lists the tools and calls each one with arguments
 * made from its schema (the echo tool of the JSON Schema scenarios gets the other tool's schema
 * as listed; tools that mirror arguments in headers are called again with values only Base64
 * can carry), answering elicitation with the schema's defaults. The skills extension's scenarios
 * (`sep-2640-client-*`) list the server's skills and, but in `no-prefetch`, load each one and read
 * its files (every one verified; a skill that fails verification is read no further).
 *
 * @since 0.1.0
 */
import { AuthorizationCode, McpAuth, McpClient, McpClientTransport, Skills } from "@effect-mcp/client"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"

type JsonSchema = {
  readonly type?: unknown
  readonly default?: unknown
  readonly properties?: Record<string, JsonSchema>
  readonly required?: ReadonlyArray<string>
  readonly enum?: ReadonlyArray<unknown>
}

/** A value for a schema: its default, else something of its type (`unsafe`: a string only Base64 can carry in a header). */
const sample = (schema: JsonSchema, unsafe = false): unknown => {
  if (schema.default !== undefined) return schema.default
  if (schema.enum !== undefined && schema.enum.length > 0) return schema.enum[0]
  switch (schema.type) {
    case "string":
      return unsafe ? "Zürich ✓" : "test"
    case "number":
    case "integer":
      return 1
    case "boolean":
      return true
    case "array":
      return []
    case "object":
      return argumentsFor(schema, unsafe)
    default:
      return "test"
  }
}
const argumentsFor = (schema: JsonSchema, unsafe = false): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(schema.properties ?? {})
      .filter(([name, s]) => (schema.required ?? []).includes(name) || s.default !== undefined)
      .map(([name, s]) => [name, sample(s, unsafe)])
  )

/** Does a tool mirror an argument in a header (`x-mcp-header`)? */
const mirrors = (schema: JsonSchema): boolean =>
  Object.values(schema.properties ?? {}).some((s) => "x-mcp-header" in s || mirrors(s))

const program = (scenario: string) =>
  Effect.gen(function*() {
    const client = yield* McpClient.McpClient
    const tools = yield* client.listTools
    process.stderr.write(
      `${scenario}: ${client.era} ${client.revision}; tools ${tools.map((t) => t.name).join(", ")}\n`
    )
    if (scenario === "initialize") return
    // json-schema-*: the echo tool is given another tool's inputSchema exactly as it was listed.
    const focal = tools.find((t) => t.name === "json_schema_2020_12_tool" || t.name === "json_schema_ref_tool")
    for (const tool of tools) {
      const args = tool.name === "json_schema_echo" && focal !== undefined
        ? { schema: focal.inputSchema }
        : argumentsFor(tool.inputSchema as JsonSchema)
      const result = yield* Effect.either(client.callTool(tool.name, args))
      process.stderr.write(`${tool.name}: ${JSON.stringify(result).slice(0, 300)}\n`)
      // http-custom-headers: values only Base64 can carry in a header, too.
      if (mirrors(tool.inputSchema as JsonSchema)) {
        yield* Effect.either(client.callTool(tool.name, argumentsFor(tool.inputSchema as JsonSchema, true)))
      }
    }
  })

/**
 * `sep-2640-client-*`: the skills listed (no file read); but in `no-prefetch`, which loads nothing,
 * each skill loaded (its SKILL.md verified) and its files read, each verified.
 */
const skills = (scenario: string) =>
  Effect.gen(function*() {
    const client = yield* McpClient.McpClient
    const listed = yield* Skills.list(client)
    process.stderr.write(
      `${scenario}: ${client.era} ${client.revision}; skills ${listed.map((s) => s.uri).join(", ")}\n`
    )
    if (scenario === "sep-2640-client-no-prefetch") return
    for (const entry of listed) {
      const skill = yield* Skills.load(client, entry)
      const files = yield* skill.readAll
      process.stderr.write(`${entry.uri}: ${files.length} files verified\n`)
    }
  })

/** What the suite gives an auth scenario (`MCP_CONFORMANCE_CONTEXT`). */
interface Context {
  readonly client_id?: string
  readonly client_secret?: string
  readonly issuer?: string
  readonly private_key_pem?: string
  readonly signing_algorithm?: string
  readonly valid_jwt?: string
  readonly idp_client_id?: string
  readonly idp_id_token?: string
  readonly idp_issuer?: string
  readonly idp_token_endpoint?: string
}

/** The client ID metadata document the suite expects a CIMD client to be (`auth/basic-cimd`). */
const clientMetadataUrl = "https://conformance-test.local/client-metadata.json"

/**
 * The authorization of an `auth/*` scenario: the flow of `McpAuth`, configured from the
 * scenario's context, its authorization code read from the authorization endpoint's redirect.
 */
const authOptions = (scenario: string, context: Context): McpAuth.Options => {
  const secret = context.client_secret === undefined ? undefined : Redacted.make(context.client_secret)
  switch (scenario) {
    case "auth/client-credentials-basic":
      return { grant: { type: "client_credentials", clientId: context.client_id!, clientSecret: secret } }
    case "auth/client-credentials-jwt":
      return {
        grant: {
          type: "client_credentials",
          clientId: context.client_id!,
          privateKey: { pem: Redacted.make(context.private_key_pem!), algorithm: context.signing_algorithm }
        }
      }
    case "auth/enterprise-managed-authorization":
      return {
        grant: {
          type: "enterprise",
          clientId: context.client_id!,
          clientSecret: secret,
          idToken: Effect.succeed(Redacted.make(context.idp_id_token!)),
          identityProvider: {
            issuer: context.idp_issuer!,
            tokenEndpoint: context.idp_token_endpoint,
            clientId: context.idp_client_id!
          }
        }
      }
    case "auth/wif-jwt-bearer":
      return {
        grant: {
          type: "jwt_bearer",
          clientId: context.client_id,
          assertion: Effect.succeed(Redacted.make(context.valid_jwt!))
        }
      }
    default:
      return {
        ...(scenario.startsWith("auth/dpop") ? { dpop: true } : {}),
        clientMetadataUrl,
        clientName: "effect-mcp-conformance",
        ...(context.client_id !== undefined ? { clientId: context.client_id } : {}),
        ...(secret !== undefined ? { clientSecret: secret } : {}),
        ...(context.issuer !== undefined ? { issuer: context.issuer } : {})
      }
  }
}

/** The HTTP client of a scenario: authorized for `auth/*`. */
const httpClientFor = (scenario: string) => {
  if (!scenario.startsWith("auth/")) return FetchHttpClient.layer
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}") as Context
  return McpAuth.layer(authOptions(scenario, context)).pipe(
    Layer.provide(FetchHttpClient.layer),
    Layer.provide(AuthorizationCode.layerFollowRedirect("http://localhost:3000/callback"))
  )
}

/**
 * Runs one scenario against `url`.
 *
 * @since 0.1.0
 * @category conformance
 */
export const run = (url: string, scenario: string, version: string) =>
  (scenario.startsWith("sep-2640-client-") ? skills(scenario) : program(scenario)).pipe(
    Effect.provide(
      McpClient.layer({
        clientInfo: { name: "effect-mcp-conformance", version: "0.1.0" },
        era: version === "2026-07-28" ? "stateless" : "handshake",
        handlers: {
          elicitation: (params) =>
            Effect.succeed({
              action: "accept" as const,
              content: "requestedSchema" in params
                ? argumentsFor(params.requestedSchema as JsonSchema) as Record<string, string>
                : {}
            }),
          sampling: () =>
            Effect.succeed({
              role: "assistant" as const,
              model: "conformance",
              content: { type: "text" as const, text: "ok" }
            }),
          roots: Effect.succeed([])
        }
      }).pipe(Layer.provide(McpClientTransport.layerHttp({ url })), Layer.provide(httpClientFor(scenario)))
    )
  )
