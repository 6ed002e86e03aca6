#!/usr/bin/env node
/**
 * `mcp`: a command-line MCP client. Every command takes a target (`stdio:<command …>` or an
 * http(s) URL), `--era auto|handshake|stateless` and `--json` (the results as JSON, for
 * scripts; otherwise readable tables). Errors are one line on stderr and a non-zero exit. Where the
 * target is the only argument (discover, tools, resources, prompts, tasks list, skills list) its
 * words may come unquoted: `mcp tools stdio:node dist/server.js`.
 *
 *   mcp discover <target>             the server: era, revision, info, capabilities
 *   mcp tools <target>                its tools
 *   mcp call <target> <tool> [--args '{"a":1}'] [--task [--detach]]
 *                                     --task: as a task (its status on stderr, then its result);
 *                                     --detach: print the task and leave it running
 *   mcp resources <target>            its resources and templates
 *   mcp read <target> <uri>
 *   mcp prompts <target>
 *   mcp get <target> <prompt> [--args '{"name":"x"}']
 *   mcp listen <target> [--tools] [--prompts] [--resources] [--uri <uri>]…
 *   mcp tasks list <target>           this client's tasks (2025-11-25 only)
 *   mcp tasks get|cancel|result <target> <task id>
 *                                     one task: as it stands, cancelled, or its result (waited for)
 *   mcp skills list <target>          its skills (the skills extension), no file read
 *   mcp skills get <target> <uri>     one skill's entry: frontmatter, files, digests
 *   mcp skills pull <target> <dir> [--skill <uri or name>]…
 *                                     skills verified (every file's size and digest, the
 *                                     frontmatter), then written under <dir>/<skill path>/
 *   mcp app <target> <tool> [--args '{"a":1}'] [--port N]
 *                                     calls a tool that has a view (MCP Apps) and serves the view on
 *                                     127.0.0.1: the page's URL is the first line on stdout, then
 *                                     what the view says (ui/message, model context, links, logs),
 *                                     a JSON line each; until interrupted
 *   mcp proxy <target> [--port N [--host H] [--path /mcp]] [--serve dual|handshake|stateless] [--root URI]…
 *                                     the target's features served over stdio (or HTTP with --port);
 *                                     MCP_REQUEST_STATE_KEY: the requestState key proxies share
 *   mcp gateway --config FILE [--port N …]  the upstreams of FILE ({"mcpServers": …}) as one server
 *   mcp agent --prompt <text> <target>… [--model M]
 *                                     an OpenAI-compatible model (OPENAI_BASE_URL, OPENAI_API_KEY,
 *                                     OPENAI_MODEL) with the servers' tools: calls on stderr, answer on stdout
 *
 * With `OTEL_EXPORTER_OTLP_ENDPOINT` set (and the other standard `OTEL_*` variables: protocol
 * http/protobuf or http/json, service name, headers), every command's spans and metrics are
 * exported as OTLP over HTTP; the proxy carries trace context from its clients to its target.
 *
 * With `MCP_CONFORMANCE_SCENARIO` set, `mcp <url>` is the conformance suite's client driver.
 *
 * @since 0.1.0
 */
import { AppView, McpClient, Skills as McpSkills } from "@effect-mcp/client"
import { Revision } from "@effect-mcp/core"
import { NodeMcpServer, NodeTelemetry, NodeTokenStore } from "@effect-mcp/platform-node"
import { Args, Command, Options, ValidationError } from "@effect/cli"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { identity } from "effect/Function"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import { quote } from "shell-quote"
import * as AgentCommand from "./AgentCommand.js"
import * as AppHost from "./AppHost.js"
import * as Conformance from "./Conformance.js"
import * as GatewayCommand from "./GatewayCommand.js"
import * as Proxy from "./Proxy.js"
import * as Skills from "./Skills.js"
import * as Target from "./Target.js"

const target = Args.text({ name: "target" }).pipe(
  Args.withDescription("stdio:<command> <args…> (split as a shell splits words) or an http(s):// URL")
)
/**
 * The target of a command that takes no other argument: its words may also come unquoted (`mcp tools
 * stdio:node dist/server.js`), each taken as one word of the command (a word that starts with `-` is
 * an option of mcp's: quote the whole target for that).
 */
const lastTarget = Args.text({ name: "target" }).pipe(
  Args.atLeast(1),
  Args.map(([first, ...rest]) => rest.length === 0 ? first : `${first} ${quote(rest)}`),
  Args.withDescription(
    "stdio:<command> <args…> (quoted as one argument and split as a shell splits words, or unquoted) or an http(s):// URL"
  )
)
const json = Options.boolean("json").pipe(Options.withDescription("print the results as JSON"))
const era = Options.choice("era", ["auto", "handshake", "stateless"]).pipe(
  Options.withDefault("auto" as const),
  Options.withDescription("the era to speak (auto: probe with server/discover, then fall back)")
)
const timeout = Options.integer("timeout").pipe(
  Options.withDefault(60),
  Options.withDescription("seconds one request may take, its progress notwithstanding")
)

/** How an HTTP target is authorized (the environment's `MCP_CLIENT_*` fill in what is not given). */
const auth = {
  clientId: Options.text("client-id").pipe(
    Options.optional,
    Options.withDescription("a pre-registered OAuth client id (else MCP_CLIENT_ID; else dynamic registration)")
  ),
  clientSecret: Options.redacted("client-secret").pipe(
    Options.optional,
    Options.withDescription("its secret (else MCP_CLIENT_SECRET)")
  ),
  clientMetadataUrl: Options.text("client-metadata-url").pipe(
    Options.optional,
    Options.withDescription("the URL of this client's ID metadata document (else MCP_CLIENT_METADATA_URL)")
  ),
  clientCredentials: Options.boolean("client-credentials").pipe(
    Options.withDescription(
      "authorize as the client itself (client credentials grant, no user; MCP_CLIENT_CREDENTIALS=1)"
    )
  ),
  tokenStore: Options.text("token-store").pipe(
    Options.optional,
    Options.withDescription("the token file (else MCP_TOKEN_STORE, else ~/.config/effect-mcp/tokens.json)")
  ),
  allowInsecure: Options.boolean("allow-insecure").pipe(
    Options.withDescription(
      "OAuth endpoints over plain HTTP to hosts that are not loopback hosts (a LAN's authorization server); " +
        "never another scheme"
    )
  )
}

/** The authorization of a command's options. */
const authOf = (o: {
  readonly clientId: Option.Option<string>
  readonly clientSecret: Option.Option<Redacted.Redacted<string>>
  readonly clientMetadataUrl: Option.Option<string>
  readonly clientCredentials: boolean
  readonly tokenStore: Option.Option<string>
  readonly allowInsecure: boolean
}, openBrowser = false): Target.Auth =>
  Target.withEnvironment({
    clientId: Option.getOrUndefined(o.clientId),
    clientSecret: Option.getOrUndefined(o.clientSecret),
    clientMetadataUrl: Option.getOrUndefined(o.clientMetadataUrl),
    clientCredentials: o.clientCredentials,
    tokenStore: Option.getOrUndefined(o.tokenStore),
    allowInsecure: o.allowInsecure,
    openBrowser
  })

/** Runs `use` with a client of `target`. */
const withClient = <A, E>(
  where: string,
  connection: {
    readonly era: McpClient.EraChoice
    readonly timeout: number
    readonly auth: Target.Auth
    /** Declare the MCP Apps extension (a host of views: `mcp app`). */
    readonly apps?: boolean
  },
  use: (client: McpClient.Service) => Effect.Effect<A, E>
) =>
  connection.timeout < 1 ?
    Effect.fail(new Error(`--timeout is in whole seconds, at least 1 (got ${connection.timeout})`)) :
    Effect.flatMap(
      // Every OAuth request gets the command's timeout too.
      Target.transport(where, { ...connection.auth, timeout: Duration.seconds(connection.timeout) }),
      (transport) =>
        Effect.flatMap(McpClient.McpClient, use).pipe(
          Effect.provide(
            McpClient.layer(
              (connection.apps === true ? AppView.declare : identity)({
                clientInfo: { name: "mcp", version: "0.1.0" },
                era: connection.era,
                // The whole of one request: progress restarts its timeout, never past this.
                timeout: Duration.seconds(connection.timeout),
                maxTimeout: Duration.seconds(connection.timeout),
                probeTimeout: Duration.seconds(Math.min(5, connection.timeout))
              })
            ).pipe(Layer.provide(transport))
          )
        )
    )

/** Aligned columns, the first padded. */
const columns = (rows: ReadonlyArray<readonly [string, string]>) => {
  const width = Math.max(0, ...rows.map(([a]) => a.length))
  return rows.map(([a, b]) => `${a.padEnd(width)}  ${b}`).join("\n")
}

const oneLine = (text: string | undefined, max = 100) => {
  const flat = (text ?? "").replace(/\s+/g, " ").trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

const print = (asJson: boolean, value: unknown, readable: () => string) =>
  Console.log(asJson ? JSON.stringify(value, null, 2) : readable())

/** The three server capabilities a command lists or uses. */
type Feature = "tools" | "resources" | "prompts"

/** What is said of `feature` when the server did not declare it (only what was negotiated is used). */
const noneOf = (feature: Feature) => `the server has no ${feature} (it declares no ${feature} capability)`

/**
 * A listing of `feature`: `list` when the server declared it; otherwise nothing is asked, one line
 * on stderr says so, and `--json` prints `empty` (exit 0: an empty list is the answer).
 */
const listing = <A, E>(
  client: McpClient.Service,
  feature: Feature,
  json: boolean,
  empty: unknown,
  list: Effect.Effect<A, E>
): Effect.Effect<A | void, E> =>
  client.serverCapabilities[feature] !== undefined
    ? list
    : Effect.zipRight(Console.error(`mcp: ${noneOf(feature)}`), json ? print(true, empty, () => "") : Effect.void)

/** A use of `feature` (a call, a read, a prompt): refused, without asking, when the server did not declare it. */
const declared = (client: McpClient.Service, feature: Feature): Effect.Effect<void, Error> =>
  client.serverCapabilities[feature] !== undefined ? Effect.void : Effect.fail(new Error(noneOf(feature)))

/** `--args`: a JSON object. */
const parseArgs = (given: Option.Option<string>) =>
  Effect.try({
    try: () => {
      if (Option.isNone(given)) return undefined
      const value = JSON.parse(given.value)
      if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error("not an object")
      return value as Record<string, unknown>
    },
    catch: () => new Error(`--args must be a JSON object, got ${Option.getOrElse(given, () => "")}`)
  })

/** The text of content blocks, as a terminal shows it. */
const contentText = (content: ReadonlyArray<{ readonly type: string; readonly text?: string }>) =>
  content.map((block) => block.type === "text" ? block.text ?? "" : `[${block.type}]`).join("\n")

const spinner = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

/**
 * A call's progress on stderr: on a terminal, a bar when the total is known and a spinner when
 * it is not, redrawn in place and cleared at the end; elsewhere, one line per report.
 */
const progressMeter = (tool: string) => {
  const tty = process.stderr.isTTY === true
  let drawn = false
  let frame = 0
  const update = (p: { readonly progress: number; readonly total?: number; readonly message?: string }) =>
    Effect.sync(() => {
      const message = p.message !== undefined ? ` ${oneLine(p.message, 40)}` : ""
      if (!tty) {
        process.stderr.write(`${tool}: ${p.progress}${p.total !== undefined ? `/${p.total}` : ""}${message}\n`)
        return
      }
      const width = Math.max(10, Math.min(30, (process.stderr.columns ?? 80) - 60))
      const line = p.total !== undefined && p.total > 0
        ? (() => {
          const ratio = Math.max(0, Math.min(1, p.progress / p.total))
          const filled = Math.round(ratio * width)
          return `${tool} [${"█".repeat(filled)}${"░".repeat(width - filled)}] ${Math.round(ratio * 100)}%${message}`
        })()
        : `${spinner[frame++ % spinner.length]} ${tool} ${p.progress}${message}`
      process.stderr.write(`\r\x1b[K${line}`)
      drawn = true
    })
  const done = Effect.sync(() => {
    if (drawn) process.stderr.write("\r\x1b[K")
  })
  return { update, done }
}

const discover = Command.make(
  "discover",
  { target: lastTarget, json, era, timeout, ...auth },
  ({ era, json, target, timeout, ...o }) =>
    withClient(target, { era, timeout, auth: authOf(o) }, (client) =>
      print(json, {
        era: client.era,
        revision: client.revision,
        serverInfo: Option.getOrUndefined(client.serverInfo),
        capabilities: client.serverCapabilities,
        instructions: Option.getOrUndefined(client.instructions)
      }, () =>
        columns([
          ["server", Option.match(client.serverInfo, { onNone: () => "?", onSome: (i) => `${i.name} ${i.version}` })],
          ["era", `${client.era} (${client.revision})`],
          ["capabilities", Object.keys(client.serverCapabilities).join(", ") || "none"],
          ...Option.match(client.instructions, {
            onNone: () => [],
            onSome: (text) => [["instructions", oneLine(text)] as const]
          })
        ])))
).pipe(Command.withDescription("What the server is and what it serves"))

const tools = Command.make(
  "tools",
  { target: lastTarget, json, era, timeout, ...auth },
  ({ era, json, target, timeout, ...o }) =>
    withClient(
      target,
      { era, timeout, auth: authOf(o) },
      (client) =>
        listing(
          client,
          "tools",
          json,
          [],
          Effect.flatMap(client.listTools, (listed) =>
            print(
              json,
              listed,
              () => columns(listed.map((tool) => [tool.name, oneLine(tool.description)] as const)) || "(no tools)"
            ))
        )
    )
).pipe(Command.withDescription("The server's tools"))

/** A task's fields, as `mcp tasks get` shows them. */
const taskRows = (task: McpClient.TaskInfo): ReadonlyArray<readonly [string, string]> => [
  ["task", task.taskId],
  ["status", task.status],
  ...(task.statusMessage !== undefined ? [["message", oneLine(task.statusMessage)] as const] : []),
  ["created", task.createdAt],
  ["updated", task.lastUpdatedAt],
  ["ttl", task.ttlMs === null ? "unlimited" : `${task.ttlMs} ms`],
  ...(task.pollIntervalMs !== undefined ? [["poll interval", `${task.pollIntervalMs} ms`] as const] : []),
  ...(task.inputRequests !== undefined ? [["waiting for", Object.keys(task.inputRequests).join(", ")] as const] : []),
  ...(task.error !== undefined ? [["error", `${task.error.code} ${oneLine(task.error.message)}`] as const] : [])
]

/** One line of a task's status, on stderr. */
const statusLine = (task: McpClient.TaskInfo) =>
  Effect.sync(() =>
    process.stderr.write(
      `task ${task.taskId}: ${task.status}${
        task.statusMessage !== undefined ? ` ${oneLine(task.statusMessage, 60)}` : ""
      }\n`
    )
  )

/** A tool's result on stdout (a tool error exits 1). */
const printResult = (json: boolean, result: McpClient.RequestResult<"tools/call">) =>
  Effect.zipRight(
    print(json, result, () => contentText(result.content)),
    result.isError === true ? Effect.sync(() => process.exitCode = 1) : Effect.void
  )

/** A task followed to its end: its status on stderr as it changes, then its result. */
const followTask = (json: boolean, task: McpClient.Task) =>
  Effect.gen(function*() {
    yield* Stream.runForEach(task.status, statusLine)
    yield* printResult(json, yield* task.result)
  })

const call = Command.make(
  "call",
  {
    target,
    json,
    era,
    timeout,
    ...auth,
    tool: Args.text({ name: "tool" }),
    args: Options.text("args").pipe(Options.optional),
    task: Options.boolean("task").pipe(
      Options.withDescription("call it as a task, where the server can run it as one: its status, then its result")
    ),
    detach: Options.boolean("detach").pipe(
      Options.withDescription("with --task: print the task and leave it running (mcp tasks get|result|cancel)")
    )
  },
  ({ args, detach, era, json, target, task, tool, timeout, ...o }) =>
    withClient(target, { era, timeout, auth: authOf(o) }, (client) =>
      Effect.gen(function*() {
        yield* declared(client, "tools")
        const given = yield* parseArgs(args)
        if (detach && !task) return yield* Effect.fail(new Error("--detach goes with --task"))
        const meter = progressMeter(tool)
        if (task) {
          const handle = yield* client.callTool(tool, given, { task: true, onProgress: meter.update }).pipe(
            Effect.ensuring(meter.done)
          )
          if (Option.isNone(handle.created)) return yield* printResult(json, yield* handle.result)
          const created = handle.created.value
          if (detach) return yield* print(json, created, () => columns(taskRows(created)))
          yield* Effect.sync(() => process.stderr.write(`mcp: task ${created.taskId} (${created.status})\n`))
          return yield* followTask(json, handle)
        }
        const result = yield* client.callTool(tool, given, { onProgress: meter.update }).pipe(
          Effect.ensuring(meter.done)
        )
        yield* printResult(json, result)
      }))
).pipe(Command.withDescription("Calls a tool (arguments as a JSON object), or runs it as a task (--task)"))

const app = Command.make(
  "app",
  {
    target,
    era,
    timeout,
    ...auth,
    tool: Args.text({ name: "tool" }),
    args: Options.text("args").pipe(Options.optional, Options.withDescription("the tool's arguments, a JSON object")),
    port: Options.integer("port").pipe(
      Options.withDefault(0),
      Options.withDescription("the host page's port on 127.0.0.1 (default: any free one)")
    )
  },
  ({ args, era, port, target, timeout, tool, ...o }) =>
    withClient(target, { era, timeout, auth: authOf(o), apps: true }, (client) =>
      Effect.scoped(Effect.gen(function*() {
        yield* declared(client, "tools")
        const given = yield* parseArgs(args)
        const running = yield* AppHost.serve(client, {
          tool,
          arguments: given,
          port,
          onSaid: (said) => Console.log(JSON.stringify(said)),
          onTeardown: (answered) =>
            Console.error(`mcp app: ${answered ? "the view was torn down" : "the view did not answer its teardown"}`)
        })
        yield* Console.log(running.url)
        yield* Console.error(
          `mcp app: ${tool}'s view at ${running.url} (sandbox ${running.sandboxOrigin}); Ctrl-C to stop`
        )
        return yield* Effect.never
      })))
).pipe(
  Command.withDescription("Calls a tool that has a view (MCP Apps) and serves the view on 127.0.0.1 until interrupted")
)

const taskId = Args.text({ name: "task id" })

const tasksList = Command.make(
  "list",
  { target: lastTarget, json, era, timeout, ...auth },
  ({ era, json, target, timeout, ...o }) =>
    withClient(
      target,
      { era, timeout, auth: authOf(o) },
      (client) =>
        Effect.flatMap(client.tasks.list, (listed) =>
          print(
            json,
            listed,
            () =>
              columns(
                listed.map((t) => [t.taskId, `${t.status}${t.statusMessage ? ` ${oneLine(t.statusMessage)}` : ""}`])
              ) ||
              "(no tasks)"
          ))
    )
).pipe(Command.withDescription("This client's tasks on the server (2025-11-25; a session's own)"))

const tasksGet = Command.make(
  "get",
  { target, json, era, timeout, ...auth, taskId },
  ({ era, json, target, taskId, timeout, ...o }) =>
    withClient(
      target,
      { era, timeout, auth: authOf(o) },
      (client) => Effect.flatMap(client.tasks.get(taskId), (task) => print(json, task, () => columns(taskRows(task))))
    )
).pipe(Command.withDescription("One task as it stands"))

const tasksCancel = Command.make(
  "cancel",
  { target, era, timeout, ...auth, taskId },
  ({ era, target, taskId, timeout, ...o }) =>
    withClient(
      target,
      { era, timeout, auth: authOf(o) },
      (client) => Effect.zipRight(client.tasks.cancel(taskId), Console.error(`mcp: asked to cancel task ${taskId}`))
    )
).pipe(Command.withDescription("Asks the server to cancel a task"))

const tasksResult = Command.make(
  "result",
  { target, json, era, timeout, ...auth, taskId },
  ({ era, json, target, taskId, timeout, ...o }) =>
    withClient(
      target,
      { era, timeout, auth: authOf(o) },
      (client) => Effect.flatMap(client.tasks.handle(taskId), (task) => followTask(json, task))
    )
).pipe(Command.withDescription("A task's result, waited for (its status on stderr meanwhile)"))

const tasks = Command.make("tasks").pipe(
  Command.withDescription("The server's tasks of this client: list, get, cancel, result"),
  Command.withSubcommands([tasksList, tasksGet, tasksCancel, tasksResult])
)

const resources = Command.make(
  "resources",
  { target: lastTarget, json, era, timeout, ...auth },
  ({ era, json, target, timeout, ...o }) =>
    withClient(target, { era, timeout, auth: authOf(o) }, (client) =>
      listing(
        client,
        "resources",
        json,
        { resources: [], resourceTemplates: [] },
        Effect.gen(function*() {
          const listed = yield* client.listResources
          const templates = yield* Effect.orElseSucceed(client.listResourceTemplates, () => [])
          yield* print(json, { resources: listed, resourceTemplates: templates }, () =>
            columns([
              ...listed.map((r) => [r.uri, oneLine(r.name)] as const),
              ...templates.map((t) => [t.uriTemplate, oneLine(t.name)] as const)
            ]) || "(no resources)")
        })
      ))
).pipe(Command.withDescription("The server's resources and resource templates"))

const read = Command.make(
  "read",
  { target, json, era, timeout, ...auth, uri: Args.text({ name: "uri" }) },
  ({ era, json, target, uri, timeout, ...o }) =>
    withClient(
      target,
      { era, timeout, auth: authOf(o) },
      (client) =>
        Effect.flatMap(Effect.zipRight(declared(client, "resources"), client.readResource(uri)), (result) =>
          print(json, result, () =>
            result.contents.map((c) =>
              "text" in c ? c.text : `[${c.mimeType ?? "binary"}, base64]`
            ).join("\n")))
    )
).pipe(
  Command.withDescription("Reads a resource")
)

const prompts = Command.make(
  "prompts",
  { target: lastTarget, json, era, timeout, ...auth },
  ({ era, json, target, timeout, ...o }) =>
    withClient(
      target,
      { era, timeout, auth: authOf(o) },
      (client) =>
        listing(
          client,
          "prompts",
          json,
          [],
          Effect.flatMap(client.listPrompts, (listed) =>
            print(
              json,
              listed,
              () => columns(listed.map((p) => [p.name, oneLine(p.description)] as const)) || "(no prompts)"
            ))
        )
    )
).pipe(Command.withDescription("The server's prompts"))

const get = Command.make(
  "get",
  {
    target,
    json,
    era,
    timeout,
    ...auth,
    prompt: Args.text({ name: "prompt" }),
    args: Options.text("args").pipe(Options.optional)
  },
  ({ args, era, json, prompt, target, timeout, ...o }) =>
    withClient(target, { era, timeout, auth: authOf(o) }, (client) =>
      Effect.gen(function*() {
        yield* declared(client, "prompts")
        const given = (yield* parseArgs(args)) as Record<string, string> | undefined
        const result = yield* client.getPrompt(prompt, given)
        yield* print(
          json,
          result,
          () =>
            result.messages.map((m) => `${m.role}: ${contentText([m.content as { type: string; text?: string }])}`)
              .join("\n")
        )
      }))
).pipe(Command.withDescription("Gets a prompt (arguments as a JSON object)"))

const listen = Command.make(
  "listen",
  {
    target,
    json,
    era,
    timeout,
    ...auth,
    tools: Options.boolean("tools").pipe(Options.withDescription("tools/list_changed")),
    prompts: Options.boolean("prompts").pipe(Options.withDescription("prompts/list_changed")),
    resources: Options.boolean("resources").pipe(Options.withDescription("resources/list_changed")),
    uri: Options.text("uri").pipe(Options.repeated, Options.withDescription("resources/updated of a URI (repeatable)"))
  },
  (o) =>
    withClient(
      o.target,
      { era: o.era, timeout: o.timeout, auth: authOf(o) },
      (client) =>
        Effect.scoped(Effect.gen(function*() {
          // A server that offers no stream outside requests (a GET answered 405) fails the subscribe
          // (NoEventStream): nothing could ever arrive, so the command says so and fails (a script
          // waiting on it would otherwise wait forever), never "listening".
          const subscription = yield* client.subscribe({
            ...(o.tools ? { toolsListChanged: true } : {}),
            ...(o.prompts ? { promptsListChanged: true } : {}),
            ...(o.resources ? { resourcesListChanged: true } : {}),
            ...(o.uri.length > 0 ? { resourceSubscriptions: o.uri } : {})
          }).pipe(
            Effect.catchTag("NoEventStream", (error) => Effect.fail(new Error(`cannot listen: ${error.message}`)))
          )
          yield* Effect.sync(() =>
            process.stderr.write(`listening: ${JSON.stringify(subscription.acknowledged)} (Ctrl-C to stop)\n`)
          )
          yield* Stream.runForEach(subscription.notifications, (n) =>
            Console.log(
              o.json ?
                JSON.stringify(n) :
                `${n.method}${
                  (n.params as { readonly uri?: string } | undefined)?.uri !== undefined
                    ? ` ${(n.params as { readonly uri: string }).uri}`
                    : ""
                }`
            ))
        }))
    )
).pipe(Command.withDescription("Prints list changes and resource updates as they come"))

const proxy = Command.make("proxy", {
  target,
  era,
  ...auth,
  serve: Options.choice("serve", ["dual", "handshake", "stateless"]).pipe(
    Options.withDefault("dual" as const),
    Options.withDescription("the era(s) served to the proxy's clients")
  ),
  port: Options.integer("port").pipe(
    Options.optional,
    Options.withDescription("serve Streamable HTTP on this port (default: serve stdio)")
  ),
  host: Options.text("host").pipe(Options.withDefault("127.0.0.1")),
  path: Options.text("path").pipe(Options.withDefault("/mcp")),
  root: Options.text("root").pipe(
    Options.repeated,
    Options.withDescription("a root (URI) told to the target when it asks with no client's request in flight")
  )
}, (o) =>
  Effect.flatMap(Target.transport(o.target, authOf(o)), (transport) => {
    const revisions = o.serve === "stateless"
      ? Revision.stateless
      : o.serve === "handshake"
      ? Revision.handshake
      : [...Revision.handshake, ...Revision.stateless]
    // Proxies behind one balancer share the key that seals 2026-07-28 requestState (a set one, even
    // empty, goes to the server, which refuses one too short).
    const key = process.env.MCP_REQUEST_STATE_KEY
    const server = Proxy.layerFrom({ clientInfo: { name: "mcp-proxy", version: "0.1.0" }, era: o.era }, {
      revisions,
      ...(key !== undefined ? { requestStateKey: Redacted.make(key) } : {}),
      ...(o.root.length > 0 ? { roots: o.root.map((uri) => ({ uri })) } : {})
    }).pipe(Layer.provide(transport))
    const serving = Option.match(o.port, {
      // Nothing but protocol bytes on stdout: logs go to stderr.
      onNone: () => NodeMcpServer.serveStdio,
      onSome: (port) =>
        Layer.launch(
          Layer.effectDiscard(
            Effect.sync(() =>
              process.stderr.write(`mcp proxy: serving ${o.target} at http://${o.host}:${port}${o.path}\n`)
            )
          ).pipe(
            Layer.provideMerge(
              NodeMcpServer.layerHttp({ port, host: o.host, path: o.path as `/${string}` })
            )
          )
        )
    })
    return serving.pipe(Effect.provide(server), Effect.provide(NodeMcpServer.layerStderrLogger))
  })).pipe(Command.withDescription("Serves the target's features to clients of either era, over stdio or HTTP"))

const skillsList = Command.make(
  "list",
  { target: lastTarget, json, era, timeout, ...auth },
  ({ era, json, target, timeout, ...o }) =>
    withClient(
      target,
      { era, timeout, auth: authOf(o) },
      (client) =>
        Effect.flatMap(McpSkills.list(client), (listed) =>
          print(
            json,
            listed,
            () =>
              columns(listed.map((s) => Skills.row(s)).map(([uri, text]) => [uri, oneLine(text)] as const)) ||
              "(no skills listed)"
          ))
    )
).pipe(Command.withDescription("The server's skills (no file is read)"))

const skillsGet = Command.make(
  "get",
  { target, json, era, timeout, ...auth, uri: Args.text({ name: "uri" }) },
  ({ era, json, target, timeout, uri, ...o }) =>
    withClient(
      target,
      { era, timeout, auth: authOf(o) },
      (client) =>
        Effect.flatMap(McpSkills.get(client, uri), (entry) => print(json, entry, () => columns(Skills.describe(entry))))
    )
).pipe(Command.withDescription("One skill's entry, by the URI of its SKILL.md (no file is read)"))

const skillsPull = Command.make(
  "pull",
  {
    target,
    json,
    era,
    timeout,
    ...auth,
    dir: Args.directory({ name: "dir", exists: "either" }),
    skill: Options.text("skill").pipe(
      Options.repeated,
      Options.withDescription("a skill to pull, by SKILL.md URI or name (repeatable; default: every listed one)")
    )
  },
  ({ dir, era, json, skill, target, timeout, ...o }) =>
    // The files are written with the command's own FileSystem (NodeContext's).
    Effect.flatMap(Effect.context<FileSystem.FileSystem | Path.Path>(), (platform) =>
      withClient(target, { era, timeout, auth: authOf(o) }, (client) =>
        Effect.gen(function*() {
          const entries = yield* Skills.select(client, skill)
          const pulled = yield* Effect.forEach(entries, (entry) =>
            Skills.pull(client, entry, dir))
          yield* print(
            json,
            pulled,
            () => columns(pulled.map((p) => [p.uri, `${p.folder} (${p.files.length} files)`] as const)) || "(no skills)"
          )
        }).pipe(Effect.provide(platform))))
).pipe(Command.withDescription("Pulls skills into a folder, every file verified before any is written"))

const skills = Command.make("skills").pipe(
  Command.withDescription("The server's skills (the skills extension): list, get, pull"),
  Command.withSubcommands([skillsList, skillsGet, skillsPull])
)

const login = Command.make("login", {
  url: Args.text({ name: "url" }).pipe(Args.withDescription("the server's http(s):// URL")),
  open: Options.boolean("open").pipe(Options.withDescription("open the authorization URL in a browser")),
  era,
  timeout,
  ...auth
}, (o) =>
  withClient(o.url, { era: o.era, timeout: o.timeout, auth: authOf(o, o.open) }, (client) =>
    // Any request the server protects starts the authorization; tools/list is one every server has.
    Effect.zipRight(
      client.serverCapabilities.tools !== undefined ? client.listTools : Effect.void,
      Console.error(`mcp: authorized for ${o.url} (tokens in ${Target.tokenStorePath(authOf(o))})`)
    ))).pipe(Command.withDescription("Authorizes with a server's OAuth authorization server and keeps the tokens"))

const logout = Command.make("logout", {
  url: Args.text({ name: "url" }).pipe(Args.withDescription("the server's http(s):// URL")),
  ...auth
}, (o) => {
  const path = Target.tokenStorePath(authOf(o))
  return Effect.flatMap(
    NodeTokenStore.makeFile(path, Target.tokenStoreOptions),
    (store) =>
      Effect.flatMap(store.load(o.url), (found) =>
        Option.isNone(found)
          ? Console.error(`mcp: nothing kept for ${o.url}`)
          : Effect.zipRight(store.remove(o.url), Console.error(`mcp: forgot the tokens of ${found.value.resource}`)))
  )
}).pipe(Command.withDescription("Forgets the tokens and registrations kept for a server"))

const mcp = Command.make("mcp").pipe(
  Command.withDescription(
    "A Model Context Protocol client for servers over stdio or HTTP, in either era. With OTEL_EXPORTER_OTLP_ENDPOINT set (and OTEL_EXPORTER_OTLP_PROTOCOL, OTEL_SERVICE_NAME, …), its traces and metrics are exported as OTLP over HTTP"
  ),
  Command.withSubcommands([
    discover,
    tools,
    call,
    app,
    resources,
    read,
    prompts,
    get,
    listen,
    tasks,
    skills,
    proxy,
    GatewayCommand.command,
    login,
    logout,
    AgentCommand.command
  ])
)

const cli = Command.run(mcp, { name: "mcp", version: "0.1.0" })

/** One readable line for any failure. */
const describe = (error: unknown): string =>
  error instanceof Error ? error.message : typeof error === "object" && error !== null && "message" in error
    ? String((error as { readonly message: unknown }).message)
    : String(error)

/** Colour only for a person at a terminal who has not asked for none (https://no-color.org). */
const colour = process.stdout.isTTY === true && (process.env.NO_COLOR ?? "") === ""
// deno-lint-ignore no-control-regex
const sgr = /\x1b\[[0-9;]*m/g
const uncolour = (arg: unknown) => typeof arg === "string" ? arg.replace(sgr, "") : arg

/** @effect/cli colours its help and usage always: its lines, plain where colour is not wanted. */
const plain = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  colour ? effect : Effect.flatMap(Effect.console, (console) =>
    Effect.withConsole(effect, {
      ...console,
      log: (...args) => console.log(...args.map(uncolour)),
      error: (...args) => console.error(...args.map(uncolour)),
      unsafe: {
        ...console.unsafe,
        log: (...args) => console.unsafe.log(...args.map(uncolour)),
        error: (...args) => console.unsafe.error(...args.map(uncolour))
      }
    }))

const scenario = process.env.MCP_CONFORMANCE_SCENARIO
const program = scenario !== undefined
  ? Conformance.run(process.argv[2] ?? "", scenario, process.env.MCP_CONFORMANCE_PROTOCOL_VERSION ?? "2025-11-25")
  : plain(cli(process.argv))

program.pipe(
  Effect.catchAll((error: unknown) =>
    // @effect/cli has already shown its own usage errors (a missing argument, an unknown option, …).
    ValidationError.isValidationError(error)
      ? Effect.sync(() => process.exitCode = 1)
      : Effect.sync(() => {
        process.stderr.write(`mcp: ${describe(error)}\n`)
        process.exitCode = 1
      })
  ),
  // OTLP export when the environment asks for it (OTEL_EXPORTER_OTLP_ENDPOINT, …), flushed on exit.
  Effect.provide(NodeTelemetry.layerFromEnv({ serviceName: "mcp", serviceVersion: "0.1.0" })),
  Effect.provide(NodeContext.layer),
  // Logs go to stderr, always (runMain's default logger writes to stdout, before a --json answer):
  // outermost, so that every layer and fiber of every command logs through it.
  Effect.provide(NodeMcpServer.layerStderrLogger),
  NodeRuntime.runMain({ disableErrorReporting: true, disablePrettyLogger: true })
)
