/**
 * `mcp gateway --config FILE` (apps/cli, built) in front of servers nobody here wrote, started from
 * npm: `@modelcontextprotocol/server-everything` and `@modelcontextprotocol/server-filesystem`, and
 * our demo (apps/everything), each under its name; our client through it over stdio.
 *
 * - list, call, read, prompts of each upstream, namespaced; sampling and elicitation of an upstream
 *   answered by the client whose call raised them; a subscription to a template's instance; the
 *   filesystem server's startup roots answered from `--root`;
 * - an upstream SIGKILLed mid-call: that call errors at once, the others go on, its tools go with a
 *   list change and come back with another once it is started again;
 * - an upstream that stops answering (SIGSTOP): down once a ping goes unanswered, the same.
 */
import { McpClient } from "@effect-mcp/client"
import { assert, describe, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { configOf, demoMain, everythingMain, mainOf, mcpOverStdio } from "./support.js"

const filesystemMain = mainOf("@modelcontextprotocol/server-filesystem", "dist/index.js")

/**
 * Our client of `mcp gateway --config FILE ...extra` over stdio (the gateway is its child process).
 * The gateway serves once its upstreams are up (`--start-timeout` a guard, not its 10 seconds, which
 * a loaded machine can spend starting three Node processes).
 */
const gatewayClient = (file: string, extra: ReadonlyArray<string> = [], handlers: McpClient.Options["handlers"] = {}) =>
  mcpOverStdio(["gateway", "--config", file, "--start-timeout", "60", ...extra], { handlers })

const text = (result: { readonly content: ReadonlyArray<unknown> }) => JSON.stringify(result.content)

describe("mcp gateway: server-everything, server-filesystem and our demo behind one server", () => {
  it.scopedLive(
    "namespaced lists, calls, reads, prompts, asks and a template's subscription",
    () =>
      Effect.gen(function*() {
        const { dir, file } = configOf({
          everything: { command: process.execPath, args: [everythingMain, "stdio"] },
          fs: { command: process.execPath, args: [filesystemMain] },
          demo: { command: process.execPath, args: [demoMain, "stdio"] }
        })
        writeFileSync(path.join(dir, "hello.txt"), "hello from the gateway")
        const client = yield* gatewayClient(file, ["--root", `file://${dir}`], {
          sampling: () =>
            Effect.succeed({
              role: "assistant" as const,
              model: "gateway-model",
              content: { type: "text", text: "ok" }
            }),
          elicitation: () => Effect.succeed({ action: "accept" as const, content: { username: "ada", email: "a@b.c" } })
        })
        const names = (yield* client.listTools).map((t) => t.name)
        assert.includeMembers(names, [
          "everything_get-sum",
          "everything_trigger-sampling-request",
          "fs_read_text_file",
          "fs_list_allowed_directories",
          "demo_add",
          "demo_test_elicitation"
        ])
        assert.notInclude(names, "add")
        assert.include(text(yield* client.callTool("everything_get-sum", { a: 1, b: 2 })), "3")
        assert.deepStrictEqual((yield* client.callTool("demo_add", { a: 20, b: 22 })).structuredContent, { sum: 42 })
        // The filesystem server asked for roots when it started, with no client's request in flight.
        assert.include(text(yield* client.callTool("fs_list_allowed_directories", {})), dir)
        const read = yield* client.callTool("fs_read_text_file", { path: path.join(dir, "hello.txt") })
        assert.include(text(read), "hello from the gateway")
        // The upstream's asks, answered by this client.
        assert.include(
          text(yield* client.callTool("everything_trigger-sampling-request", { prompt: "hi" })),
          "gateway-model"
        )
        assert.include(text(yield* client.callTool("demo_test_elicitation", { message: "Who?" })), "ada")
        // Progress reaches the call it belongs to; a call cancelled downstream leaves the gateway serving.
        const progress: Array<number> = []
        yield* client.callTool("demo_longRunning", { duration: 0.2, steps: 4 }, {
          onProgress: (p) => Effect.sync(() => progress.push(p.progress))
        })
        assert.deepStrictEqual(progress, [1, 2, 3, 4])
        const running = yield* Deferred.make<void>()
        const long = yield* Effect.fork(client.callTool("demo_longRunning", { duration: 30, steps: 300 }, {
          onProgress: () => Deferred.succeed(running, void 0)
        }))
        yield* Deferred.await(running)
        yield* Fiber.interrupt(long)
        assert.deepStrictEqual((yield* client.callTool("demo_add", { a: 1, b: 1 })).structuredContent, { sum: 2 })

        const resources = (yield* client.listResources).map((r) => r.uri)
        const document = resources.find((uri) => uri.startsWith("everything+demo://resource/static/document/"))
        assert.isDefined(document)
        const contents = yield* client.readResource(document!)
        assert.strictEqual(contents.contents[0]!.uri, document)
        const templates = (yield* client.listResourceTemplates).map((t) => t.uriTemplate)
        assert.include(templates, "everything+demo://resource/dynamic/text/{resourceId}")
        const completed = yield* client.complete({
          ref: { type: "ref/resource", uri: "everything+demo://resource/dynamic/text/{resourceId}" },
          argument: { name: "resourceId", value: "7" }
        })
        assert.deepStrictEqual(completed.completion.values, ["7"])
        const instance = yield* client.readResource("everything+demo://resource/dynamic/text/7")
        assert.strictEqual(instance.contents[0]!.uri, "everything+demo://resource/dynamic/text/7")
        // The links of an upstream's results are under its name, and read through the gateway.
        const linked = (yield* client.callTool("everything_get-resource-links", { count: 2 })).content
          .flatMap((block) => block.type === "resource_link" ? [block.uri] : [])
        assert.deepStrictEqual(linked, [
          "everything+demo://resource/dynamic/blob/1",
          "everything+demo://resource/dynamic/text/2"
        ])
        assert.strictEqual((yield* client.readResource(linked[1]!)).contents[0]!.uri, linked[1])
        const prompts = (yield* client.listPrompts).map((p) => p.name)
        assert.includeMembers(prompts, ["everything_simple-prompt"])
        const prompt = yield* client.getPrompt("everything_simple-prompt", {})
        assert.isAbove(prompt.messages.length, 0)

        // A subscription to an instance of a template upstream, under the gateway's URI.
        const uri = "everything+demo://resource/dynamic/text/1"
        const subscription = yield* client.subscribe({ resourceSubscriptions: [uri] })
        const next = yield* Stream.toPull(subscription.notifications)
        yield* client.callTool("everything_toggle-subscriber-updates", {})
        // (A pull may give an empty chunk: what the subscription's filter left of the upstream's logs.)
        const updated = Chunk.unsafeHead(
          yield* next.pipe(Effect.repeat({ until: Chunk.isNonEmpty }), Effect.timeout("10 seconds"))
        )
        assert.strictEqual(updated.method, "notifications/resources/updated")
        assert.strictEqual((updated.params as { readonly uri?: unknown }).uri, uri)
      }),
    { timeout: 90_000 }
  )

  it.scopedLive(
    "an upstream SIGKILLed mid-call: the call errors at once, others go on, its tools go and come back",
    () =>
      Effect.gen(function*() {
        const pidFile = path.join(mkdtempSync(path.join(os.tmpdir(), "mcp-gateway-pid-")), "pid")
        const { file } = configOf({
          victim: { command: "sh", args: ["-c", `echo $$ > ${pidFile}; exec ${process.execPath} ${demoMain} stdio`] },
          other: { command: process.execPath, args: [demoMain, "stdio"] }
        })
        const client = yield* gatewayClient(file)
        const subscription = yield* client.subscribe({ toolsListChanged: true })
        const changes = yield* Stream.toPull(subscription.notifications)
        const toolNames = Effect.map(client.listTools, (tools) => tools.map((t) => t.name))
        assert.includeMembers(yield* toolNames, ["victim_add", "other_add"])

        const running = yield* Deferred.make<void>()
        const long = yield* Effect.fork(client.callTool("victim_longRunning", { duration: 30, steps: 300 }, {
          onProgress: () => Deferred.succeed(running, void 0)
        }))
        yield* Deferred.await(running)
        process.kill(Number(readFileSync(pidFile, "utf8").trim()), "SIGKILL")
        const killed = yield* Fiber.await(long).pipe(Effect.timeout("5 seconds"))
        assert.isTrue(Exit.isFailure(killed))
        assert.deepStrictEqual((yield* client.callTool("other_add", { a: 1, b: 2 })).structuredContent, { sum: 3 })

        // Gone (with a list change), then back (with another) once it is started again: the lists
        // are read after each change.
        const afterChange = (until: (names: ReadonlyArray<string>) => boolean) =>
          Effect.flatMap(changes, () => toolNames).pipe(Effect.repeat({ until }), Effect.timeout("20 seconds"))
        const gone = yield* afterChange((names) => !names.includes("victim_add"))
        assert.include(gone, "other_add")
        const called = yield* Effect.either(client.callTool("victim_add", { a: 1, b: 1 }))
        assert.isTrue(called._tag === "Left" || called.right.isError === true)
        const back = yield* afterChange((names) => names.includes("victim_add"))
        assert.include(back, "other_add")
        assert.deepStrictEqual((yield* client.callTool("victim_add", { a: 2, b: 2 })).structuredContent, { sum: 4 })
      }),
    { timeout: 90_000 }
  )

  it.scopedLive(
    "an upstream that stops answering (SIGSTOP): down at an unanswered ping, its tools go and come back",
    () =>
      Effect.gen(function*() {
        const pidFile = path.join(mkdtempSync(path.join(os.tmpdir(), "mcp-gateway-pid-")), "pid")
        const { file } = configOf({
          stuck: { command: "sh", args: ["-c", `echo $$ > ${pidFile}; exec ${process.execPath} ${demoMain} stdio`] },
          other: { command: process.execPath, args: [demoMain, "stdio"] }
        })
        const client = yield* gatewayClient(file, ["--ping-interval", "3"])
        const subscription = yield* client.subscribe({ toolsListChanged: true })
        const changes = yield* Stream.toPull(subscription.notifications)
        const toolNames = Effect.map(client.listTools, (tools) => tools.map((t) => t.name))
        assert.includeMembers(yield* toolNames, ["stuck_add", "other_add"])

        // Alive, but answering nothing: only a ping can tell.
        const pid = Number(readFileSync(pidFile, "utf8").trim())
        process.kill(pid, "SIGSTOP")
        const cont = Effect.try(() => process.kill(pid, "SIGCONT")).pipe(Effect.ignore)
        yield* Effect.addFinalizer(() => cont)
        const afterChange = (until: (names: ReadonlyArray<string>) => boolean) =>
          Effect.flatMap(changes, () => toolNames).pipe(Effect.repeat({ until }), Effect.timeout("45 seconds"))
        const gone = yield* afterChange((names) => !names.includes("stuck_add"))
        assert.include(gone, "other_add")
        assert.deepStrictEqual((yield* client.callTool("other_add", { a: 1, b: 2 })).structuredContent, { sum: 3 })
        // Let go of, if the gateway has not killed it already; started again, its tools come back with a
        // list change.
        yield* cont
        const back = yield* afterChange((names) => names.includes("stuck_add"))
        assert.include(back, "other_add")
        assert.deepStrictEqual((yield* client.callTool("stuck_add", { a: 2, b: 2 })).structuredContent, { sum: 4 })
      }),
    { timeout: 120_000 }
  )
  it.scopedLive(
    "policy per upstream: exclude, rename, fixed arguments, descriptions, read-only mode",
    () =>
      Effect.gen(function*() {
        const demo = { command: process.execPath, args: [demoMain, "stdio"] }
        const { file } = configOf({
          calc: {
            ...demo,
            tools: {
              exclude: ["echo"],
              rename: { add: "plus100" },
              fixed: { add: { b: 100 } },
              descriptions: { add: "Adds 100" }
            }
          },
          ro: { ...demo, tools: { readOnly: true } }
        })
        const client = yield* gatewayClient(file)
        const tools = yield* client.listTools
        const names = tools.map((t) => t.name)
        assert.include(names, "calc_plus100")
        assert.notInclude(names, "calc_add")
        assert.notInclude(names, "calc_echo")
        assert.include(names, "calc_longRunning")
        const plus = tools.find((t) => t.name === "calc_plus100")!
        assert.strictEqual(plus.description, "Adds 100")
        assert.deepStrictEqual(Object.keys((plus.inputSchema as any).properties), ["a"])
        assert.deepStrictEqual((plus.inputSchema as any).required, ["a"])
        assert.deepStrictEqual((yield* client.callTool("calc_plus100", { a: 1, b: 5 })).structuredContent, { sum: 101 })
        // Read-only: only the tools annotated readOnlyHint.
        const readOnly = tools.filter((t) => t.name.startsWith("ro_"))
        assert.include(readOnly.map((t) => t.name), "ro_add")
        assert.isTrue(readOnly.every((t) => t.annotations?.readOnlyHint === true))
        assert.notInclude(names, "ro_longRunning")
      }),
    { timeout: 60_000 }
  )
})
