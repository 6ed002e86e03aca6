/**
 * The files of a new project, as text, from the choices made: a pure function, so that the tests
 * can write and compile every combination.
 *
 * @since 0.1.0
 */
import * as Versions from "./Versions.js"

/**
 * How the server is reached: stdio (a host spawns it), Streamable HTTP, or both (`node
 * dist/server.js` for stdio, `node dist/server.js http` for HTTP).
 *
 * @since 0.1.0
 * @category models
 */
export type Transport = "stdio" | "http" | "both"

/**
 * The eras served: both on one endpoint (the default), the handshake revisions alone, or the
 * stateless 2026-07-28 revision alone.
 *
 * @since 0.1.0
 * @category models
 */
export type Era = "dual" | "handshake" | "stateless"

/**
 * What comes beside the server: its tests on the test kit, an OAuth resource server on its HTTP
 * endpoint, shared state on Redis, OpenTelemetry export.
 *
 * @since 0.1.0
 * @category models
 */
export type Extra = "tests" | "auth" | "redis" | "telemetry"

/**
 * Every choice of each kind, in the order they are offered.
 *
 * @since 0.1.0
 * @category choices
 */
export const transports: ReadonlyArray<Transport> = ["stdio", "http", "both"]
/**
 * @since 0.1.0
 * @category choices
 */
export const eras: ReadonlyArray<Era> = ["dual", "handshake", "stateless"]
/**
 * @since 0.1.0
 * @category choices
 */
export const extras: ReadonlyArray<Extra> = ["tests", "auth", "redis", "telemetry"]

/**
 * The choices a project is made from.
 *
 * @since 0.1.0
 * @category models
 */
export interface Choices {
  /** The package's name (and the server's, in `serverInfo`). */
  readonly name: string
  readonly transport: Transport
  readonly era: Era
  readonly extras: ReadonlyArray<Extra>
}

/**
 * Why a combination is refused, or undefined when it is not: authorization protects an HTTP
 * endpoint (over stdio the host that spawns the server is its user).
 *
 * @since 0.1.0
 * @category choices
 */
export const refusal = (choices: Choices): string | undefined =>
  choices.extras.includes("auth") && choices.transport === "stdio"
    ? "auth protects the HTTP endpoint: choose --transport http or both with it"
    : undefined

/**
 * A package name npm takes, made of a directory's name: lower case, `-` for what it does not take.
 *
 * @since 0.1.0
 * @category choices
 */
export const packageName = (directory: string): string => {
  const name = directory.toLowerCase().replace(/[^a-z0-9._~-]+/g, "-").replace(/^[._-]+/, "").replace(/-+$/, "")
  return name.length === 0 ? "mcp-server" : name.slice(0, 214)
}

/**
 * One file of the project: its path (with `/`) and its text.
 *
 * @since 0.1.0
 * @category models
 */
export interface File {
  readonly path: string
  readonly text: string
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`

const has = (choices: Choices, extra: Extra) => choices.extras.includes(extra)
const servesStdio = (choices: Choices) => choices.transport !== "http"
const servesHttp = (choices: Choices) => choices.transport !== "stdio"

const ranged = (names: ReadonlyArray<Versions.Known>): Record<string, string> =>
  Object.fromEntries(names.map((name) => [name, Versions.ranges[name]]))

const ours = (names: ReadonlyArray<string>): Record<string, string> =>
  Object.fromEntries(names.map((name) => [`@effect-mcp/${name}`, `^${Versions.effectMcp}`]))

const sorted = (record: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)))

/** The telemetry packages: what `NodeTelemetry` loads to export spans over OTLP/protobuf (and metrics). */
const telemetryPackages: ReadonlyArray<Versions.Known> = [
  "@effect/opentelemetry",
  "@opentelemetry/api",
  "@opentelemetry/resources",
  "@opentelemetry/sdk-trace-base",
  "@opentelemetry/sdk-trace-node",
  "@opentelemetry/exporter-trace-otlp-proto"
]

const packageJson = (choices: Choices): string => {
  const tests = has(choices, "tests")
  const scripts: Record<string, string> = {
    build: "tsc",
    start: choices.transport === "http" ? "node dist/server.js http" : "node dist/server.js"
  }
  if (choices.transport === "both") scripts["start:http"] = "node dist/server.js http"
  if (tests) {
    scripts.test = "vitest run"
    scripts.typecheck = "tsc -p test"
  }
  if (servesStdio(choices)) scripts.inspect = "mcp tools stdio:node dist/server.js"
  return json({
    name: choices.name,
    version: "0.1.0",
    private: true,
    type: "module",
    engines: { node: ">=20.19" },
    scripts,
    dependencies: sorted({
      ...ours([
        "server",
        "platform-node",
        ...(choices.era === "dual" ? [] : ["core"]),
        ...(has(choices, "redis") ? ["redis"] : [])
      ]),
      ...ranged(["effect", "@effect/platform", "@effect/platform-node"]),
      ...(has(choices, "telemetry") ? ranged(telemetryPackages) : {})
    }),
    devDependencies: sorted({
      ...ours(["cli", ...(tests ? ["client"] : [])]),
      ...ranged(["typescript", "@types/node", ...(tests ? ["@effect/vitest", "vitest"] as const : [])])
    })
  })
}

const tsconfig = json({
  compilerOptions: {
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    strict: true,
    skipLibCheck: true,
    rootDir: "src",
    outDir: "dist",
    types: ["node"]
  },
  include: ["src"]
})

/** The tests' own: checked with the sources (`npm run typecheck`), never emitted (vitest runs them). */
const testTsconfig = json({
  extends: "../tsconfig.json",
  compilerOptions: { rootDir: "..", noEmit: true },
  include: ["../src", "."]
})

const revisions = (era: Era): string =>
  era === "dual"
    ? ""
    : era === "handshake"
    ? "\n  // the handshake revisions alone (2024-11-05 to 2025-11-25): `initialize`, then a session\n" +
      "  revisions: Revision.handshake,"
    : "\n  // the stateless revision alone (2026-07-28): every request carries its revision in `_meta`\n" +
      "  revisions: Revision.stateless,"

const app = (choices: Choices): string =>
  `/**
 * The server: a tool, a resource and a prompt. \`server.ts\` serves it; the tests call it in memory.
 */
${
    choices.era === "dual"
      ? ""
      : `import { Revision } from "@effect-mcp/core"\n`
  }import { McpServer, Prompt, Resource, Tool } from "@effect-mcp/server"
import { Effect, Schema } from "effect"

// A tool: its arguments and its result are Schemas (its inputSchema and outputSchema).
export const Add = Tool.make("add", {
  description: "Adds two numbers",
  parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
  success: Schema.Struct({ sum: Schema.Number }),
  annotations: { readOnlyHint: true }
}, ({ a, b }) => Effect.succeed({ sum: a + b }))

// A resource: a fixed URI, read by an Effect.
export const About = Resource.make(
  "about://server",
  { name: "about", description: "What this server is", mimeType: "text/plain" },
  Effect.succeed("${choices.name}: an MCP server on effect-mcp")
)

// A prompt: string arguments in, a message out.
export const Review = Prompt.make("review", {
  description: "Asks for a review of a piece of code",
  arguments: Schema.Struct({ code: Schema.String.annotations({ description: "The code to review" }) })
}, ({ code }) => Effect.succeed(\`Please review this code:\\n\\n\${code}\`))

export const ServerLive = McpServer.layer({
  serverInfo: { name: ${JSON.stringify(choices.name)}, version: "0.1.0" },${revisions(choices.era)}
  tools: [Add],
  resources: [About],
  prompts: [Review]
})
`

const server = (choices: Choices): string => {
  const auth = has(choices, "auth")
  const redis = has(choices, "redis")
  const telemetry = has(choices, "telemetry")
  const both = choices.transport === "both"
  const usage = both ? "node dist/server.js [stdio|http]" : undefined
  const platform = ["NodeMcpServer", ...(telemetry ? ["NodeTelemetry"] : [])].join(", ")
  const lines: Array<string> = [
    "/**",
    ...(servesStdio(choices)
      ? [` * The server over stdio: \`node dist/server.js\` (what a host spawns: only protocol messages on stdout).`]
      : []),
    ...(servesHttp(choices)
      ? [
        ` * The server over Streamable HTTP: \`node dist/server.js http\`, on http://localhost:$PORT/mcp (PORT: 3000).`
      ]
      : []),
    ...(auth
      ? [
        " * Over HTTP every request needs a bearer token of MCP_AUTH_ISSUER (an OAuth authorization server's issuer)",
        " * for MCP_RESOURCE (the URL clients reach; default http://localhost:$PORT/mcp), verified by its key set.",
        " * Opaque tokens: TokenVerifier.layerIntrospection({ clientId, clientSecret }) instead of layerJwt()."
      ]
      : []),
    ...(redis
      ? [
        " * Sessions, tasks, stored events and notifications live on the Redis at REDIS_URL (default",
        " * redis://127.0.0.1:6379): instances behind one load balancer share them. Several instances serving",
        " * 2026-07-28 share a requestStateKey too (McpServer.layer, in app.ts): see @effect-mcp/server's README."
      ]
      : []),
    ...(telemetry
      ? [
        " * With OTEL_EXPORTER_OTLP_ENDPOINT set (and the other standard OTEL_* variables), its spans and metrics",
        " * are exported over OTLP; with none set nothing is loaded."
      ]
      : []),
    " */",
    `import { ${platform} } from "@effect-mcp/platform-node"`,
    ...(redis ? [`import { RedisState } from "@effect-mcp/redis"`] : []),
    ...(auth ? [`import { TokenVerifier } from "@effect-mcp/server"`] : []),
    `import { ${servesHttp(choices) || redis ? "Config, " : ""}Effect${
      servesHttp(choices) || redis ? ", Layer" : ""
    } } from "effect"`,
    `import { ServerLive } from "./app.js"`,
    ""
  ]
  if (redis) {
    lines.push(
      "// Shared state: provided under the server (tasks, notifications) and its HTTP endpoint (sessions, events).",
      "const Shared = Layer.unwrapEffect(",
      `  Effect.map(Config.string("REDIS_URL").pipe(Config.withDefault("redis://127.0.0.1:6379")), (url) =>`,
      "    RedisState.layer({ url }))",
      ")",
      ""
    )
  }
  if (telemetry) {
    lines.push(
      "// Outermost: the tracer is in place before the server is built.",
      `const Telemetry = NodeTelemetry.layerFromEnv({ serviceName: ${JSON.stringify(choices.name)} })`,
      ""
    )
  }
  const wrap = (
    effect: string
  ) => [effect, ...(redis ? ["Effect.provide(Shared)"] : []), ...(telemetry ? ["Effect.provide(Telemetry)"] : [])]
  if (servesStdio(choices)) {
    const [head, ...rest] = wrap("NodeMcpServer.serveStdio")
    lines.push(
      "// Ends when stdin closes.",
      `const Stdio = ${head}.pipe(${
        rest.length === 0
          ? "Effect.provide(ServerLive)"
          : `\n  ${["Effect.provide(ServerLive)", ...rest].join(",\n  ")}\n`
      })`,
      ""
    )
  }
  if (servesHttp(choices)) {
    lines.push(
      "// Runs until SIGINT or SIGTERM; bound to 127.0.0.1 (`host` to change it).",
      "const Http = Layer.unwrapEffect(Effect.gen(function*() {",
      `  const port = yield* Config.integer("PORT").pipe(Config.withDefault(3000))`
    )
    if (auth) {
      lines.push(
        `  const issuer = yield* Config.string("MCP_AUTH_ISSUER")`,
        `  const resource = yield* Config.string("MCP_RESOURCE").pipe(Config.withDefault(\`http://localhost:\${port}/mcp\`))`,
        "  return NodeMcpServer.layerHttp({",
        "    port,",
        "    announce: true,",
        "    // the resource's host name (behind a proxy that keeps it) beside loopback",
        `    allowedHosts: ["localhost", "127.0.0.1", "[::1]", new URL(resource).hostname],`,
        "    auth: { resource, authorizationServers: [issuer] }",
        "  }).pipe(Layer.provide(TokenVerifier.layerJwt()))"
      )
    } else {
      lines.push("  return NodeMcpServer.layerHttp({ port, announce: true })")
    }
    lines.push(
      `})).pipe(${["Layer.provide(ServerLive)", ...(redis ? ["Layer.provide(Shared)"] : [])].join(", ")})`,
      ""
    )
    lines.push(
      `const Serving = ${
        ["Layer.launch(Http)", ...(telemetry ? ["Effect.provide(Telemetry)"] : [])].join(".pipe(") +
        (telemetry ? ")" : "")
      }`,
      ""
    )
  }
  const name = JSON.stringify(choices.name)
  if (usage !== undefined) {
    lines.push(
      `const transport = process.argv[2] ?? "stdio"`,
      `if (transport === "stdio") NodeMcpServer.runMain(Stdio, { name: ${name} })`,
      `else if (transport === "http") NodeMcpServer.runMain(Serving, { name: ${name} })`,
      "else {",
      `  process.stderr.write("usage: ${usage}\\n")`,
      "  process.exitCode = 2",
      "}"
    )
  } else if (servesStdio(choices)) {
    lines.push(`NodeMcpServer.runMain(Stdio, { name: ${name} })`)
  } else {
    lines.push(`NodeMcpServer.runMain(Serving, { name: ${name} })`)
  }
  return lines.join("\n") + "\n"
}

const test = (choices: Choices): string =>
  `import { McpClient, McpClientTransport } from "@effect-mcp/client"
import { McpServer } from "@effect-mcp/server"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { ServerLive } from "../src/app.js"

// The server and a client of it in one process: no ports, no child processes.
const TestClient = McpClient.layer({ clientInfo: { name: "test", version: "1.0.0" } }).pipe(
  Layer.provide(McpClientTransport.layerMemory((protocol) => McpServer.serve(protocol).pipe(Effect.provide(ServerLive))))
)

describe(${JSON.stringify(choices.name)}, () => {
  it.effect("adds", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const result = yield* client.callTool("add", { a: 20, b: 22 })
      assert.deepStrictEqual(result.structuredContent, { sum: 42 })
    }).pipe(Effect.provide(TestClient)))

  it.effect("refuses arguments that are not numbers, saying why", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const result = yield* client.callTool("add", { a: "20", b: 22 })
      assert.isTrue(result.isError)
    }).pipe(Effect.provide(TestClient)))

  it.effect("reads its resource", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const read = yield* client.readResource("about://server")
      assert.deepStrictEqual(read.contents, [{
        uri: "about://server",
        mimeType: "text/plain",
        text: ${JSON.stringify(`${choices.name}: an MCP server on effect-mcp`)}
      }])
    }).pipe(Effect.provide(TestClient)))

  it.effect("gets its prompt", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const prompt = yield* client.getPrompt("review", { code: "1 + 1" })
      assert.deepStrictEqual(prompt.messages, [{
        role: "user",
        content: { type: "text", text: "Please review this code:\\n\\n1 + 1" }
      }])
    }).pipe(Effect.provide(TestClient)))
})
`

const hostEntry = (choices: Choices, cwd: string): string =>
  json({
    mcpServers: {
      [choices.name]: { command: "node", args: [`${cwd}/dist/server.js`] }
    }
  })

const readme = (choices: Choices): string => {
  const tests = has(choices, "tests")
  const out: Array<string> = [
    `# ${choices.name}`,
    "",
    `An MCP server on [effect-mcp](https://github.com/effect-mcp/effect-mcp): a tool (\`add\`), a resource`,
    "(`about://server`) and a prompt (`review`) in `src/app.ts`, served by `src/server.ts`" +
    (choices.era === "dual"
      ? " in both eras (the handshake revisions and the stateless 2026-07-28 one)."
      : choices.era === "handshake"
      ? " in the handshake era."
      : " in the stateless era (2026-07-28)."),
    "",
    "```sh",
    "npm install",
    "npm run build          # tsc: src/ into dist/",
    ...(tests ? ["npm test               # vitest: test/server.test.ts, a client of the server in memory"] : []),
    ...(servesStdio(choices) ? ["node dist/server.js    # over stdio (Ctrl-D ends it)"] : []),
    ...(servesHttp(choices) ? ["node dist/server.js http   # over HTTP: http://localhost:3000/mcp (PORT)"] : []),
    "```",
    "",
    "Inspect it with `mcp`, effect-mcp's command-line client (`discover`, `tools`, `call`, `resources`, `read`,",
    "`prompts`, `get`, …):",
    "",
    "```sh",
    ...(servesStdio(choices)
      ? [
        "npx @effect-mcp/cli tools stdio:node dist/server.js",
        `npx @effect-mcp/cli call stdio:node dist/server.js add --args '{"a":20,"b":22}'`
      ]
      : []),
    ...(servesHttp(choices)
      ? ["npx @effect-mcp/cli tools http://localhost:3000/mcp   # with the server running"]
      : []),
    "```",
    ""
  ]
  if (servesStdio(choices)) {
    out.push(
      "Add it to a host: Claude Desktop (`claude_desktop_config.json`), Cursor (`.cursor/mcp.json`) and others take",
      "`mcpServers`; VS Code's `.vscode/mcp.json` takes the same entry under `servers`. The path is this folder's:",
      "",
      "```json",
      hostEntry(choices, "/absolute/path/to/" + choices.name).trimEnd(),
      "```",
      ""
    )
  }
  if (servesHttp(choices)) {
    out.push(
      "Over HTTP a host takes the URL: `{ \"mcpServers\": { " + JSON.stringify(choices.name) +
        ": { \"url\": \"http://localhost:3000/mcp\" } } }` (VS Code: `\"type\": \"http\"` under `servers`).",
      ""
    )
  }
  if (has(choices, "auth")) {
    out.push(
      "## Authorization",
      "",
      "Over HTTP the server is an OAuth 2.1 resource server: every request needs a bearer token issued by",
      "`MCP_AUTH_ISSUER` for `MCP_RESOURCE` (the URL clients reach, default `http://localhost:$PORT/mcp`), a JWT",
      "verified against the issuer's key set. Clients find the issuer in its protected resource metadata",
      "(`/.well-known/oauth-protected-resource/mcp`). Over stdio there is none: the host that spawns it is its user.",
      "",
      "```sh",
      "MCP_AUTH_ISSUER=https://auth.example.com MCP_RESOURCE=https://mcp.example.com/mcp node dist/server.js http",
      "npx @effect-mcp/cli login https://mcp.example.com/mcp   # signs in (OAuth), then `tools` etc. use the token",
      "```",
      ""
    )
  }
  if (has(choices, "redis")) {
    out.push(
      "## Redis",
      "",
      "Sessions, tasks, stored events and notifications live on the Redis at `REDIS_URL` (default",
      "`redis://127.0.0.1:6379`; the server waits for it when it starts). Instances behind one load balancer then",
      "serve every client with no sticky sessions. Give them one `requestStateKey` (`McpServer.layer`) when they",
      "serve 2026-07-28.",
      "",
      "```sh",
      "REDIS_URL=redis://127.0.0.1:6379 node dist/server.js" +
        (servesHttp(choices) && !servesStdio(choices) ? " http" : ""),
      "```",
      ""
    )
  }
  if (has(choices, "telemetry")) {
    out.push(
      "## Telemetry",
      "",
      "With `OTEL_EXPORTER_OTLP_ENDPOINT` set (and `OTEL_SERVICE_NAME`, `OTEL_EXPORTER_OTLP_PROTOCOL`, … as",
      "OpenTelemetry defines them), every request's spans and metrics are exported over OTLP:",
      "",
      "```sh",
      "OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 node dist/server.js" +
        (servesHttp(choices) && !servesStdio(choices) ? " http" : ""),
      "```",
      ""
    )
  }
  return out.join("\n")
}

/**
 * The project's files.
 *
 * @since 0.1.0
 * @category files
 */
export const files = (choices: Choices): ReadonlyArray<File> => [
  { path: "package.json", text: packageJson(choices) },
  { path: "tsconfig.json", text: tsconfig },
  { path: ".gitignore", text: "node_modules/\ndist/\n" },
  { path: "README.md", text: readme(choices) },
  { path: "src/app.ts", text: app(choices) },
  { path: "src/server.ts", text: server(choices) },
  ...(has(choices, "tests")
    ? [{ path: "test/tsconfig.json", text: testTsconfig }, { path: "test/server.test.ts", text: test(choices) }]
    : [])
]
