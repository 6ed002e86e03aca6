/**
 * The demo's Worker bundled as `pnpm run everything:workerd` (and wrangler) bundle it: esbuild, one
 * ES module, the `workerd` and `worker` conditions. No module of Effect, @effect/platform or
 * effect-mcp may be wrapped in one of esbuild's lazy initialisers (`__esm`): esbuild wraps the
 * target of a dynamic `import()` and everything it imports, so one `import()` of a module that
 * shares Effect with the rest (the HTTP transport's handler, its @effect/platform or Web adapter)
 * wrapped the whole bundle, every module's code then parsed twice and none of it tree-shaken. The
 * Worker's cold start: 753 → 634 M instructions above a bare Worker's in V8 (the SDK's: 425 M).
 * Packages imported only dynamically (`jose` and `oauth4webapi`, through `oauthLibraries.ts`, and
 * `yaml`) stay wrapped: never evaluated unless used.
 */
import * as esbuild from "esbuild"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { describe, expect, it } from "vitest"

const root = path.resolve(import.meta.dirname, "../..")

/** The paths of the modules esbuild wrapped in a lazy initialiser, as the bundle names them. */
const wrapped = (code: string): ReadonlyArray<string> =>
  Array.from(code.matchAll(/__esm\(\{\s*"([^"]+)"\(\)/g), (match) => match[1]!)

describe("the demo's Worker bundle", () => {
  it("links Effect and effect-mcp statically: no lazily initialised module of theirs", async () => {
    const result = await esbuild.build({
      entryPoints: [path.join(root, "apps/everything/src/worker.ts")],
      bundle: true,
      write: false,
      platform: "browser",
      format: "esm",
      conditions: ["workerd", "worker", "@effect-mcp/source"],
      logLevel: "silent"
    })
    const modules = wrapped(result.outputFiles[0]!.text)
    // But `oauthLibraries.ts`: what the token verifiers use of jose and oauth4webapi, imported
    // dynamically, importing nothing else.
    const ours = modules.filter((file) =>
      /(^|\/)(effect|@effect|packages)\//.test(file) && !file.endsWith("server/src/internal/oauthLibraries.ts")
    )
    expect(ours).toEqual([])
    // The check sees esbuild's wrappers: the dynamically imported packages are there in a Worker that
    // names a token verifier (the demo's Worker, on StatelessServer without auth, carries none).
    const named = await bundleOf(statelessTool(
      "",
      `, { auth: StatelessServer.auth({ resource: "https://mcp.example.com/mcp", ` +
        `authorizationServers: ["https://auth.example.com"], verifier: TokenVerifier.jwt() }) }`
    ))
    expect(wrapped(named.outputFiles[0]!.text).some((file) => file.includes("/jose/"))).toBe(true)
  }, 60_000)

  // What a server without skills or a token verifier never runs stays out of its Worker's bundle, not
  // only unevaluated: every byte of a bundle is parsed at the isolate's start (in V8, preparsing alone
  // costs about 0.23 M instructions a KiB). The skills' building and its YAML parser (yaml, 107 KiB
  // minified: 25 M instructions of the cold start) are reached by `Skills.make` alone; imported by their
  // deep paths, the HTTP transport's @effect/platform adapter (its router) is left out of a Worker that
  // serves fetch only.
  const bundleOf = (contents: string) =>
    esbuild.build({
      stdin: { contents, resolveDir: import.meta.dirname, loader: "ts" },
      bundle: true,
      write: false,
      metafile: true,
      platform: "browser",
      format: "esm",
      conditions: ["workerd", "worker", "@effect-mcp/source"],
      logLevel: "silent"
    })
  // The modules whose code is in a bundle (a module read but all tree-shaken has no bytes there).
  const keptIn = (result: esbuild.BuildResult<{ write: false; metafile: true }>): ReadonlyArray<string> => {
    const inputs = Object.values(result.metafile.outputs)[0]!.inputs
    return Object.keys(inputs).filter((file) => inputs[file]!.bytesInOutput > 0)
  }
  const inputsOf = async (contents: string): Promise<ReadonlyArray<string>> => keptIn(await bundleOf(contents))
  const oneTool = (imports: string) =>
    [
      imports,
      `import * as Effect from "effect/Effect"`,
      `import * as Schema from "effect/Schema"`,
      `const Add = Tool.make("add", {`,
      `  parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }),`,
      `  success: Schema.Struct({ sum: Schema.Number })`,
      `}, ({ a, b }) => Effect.succeed({ sum: a + b }))`,
      `export default HttpTransport.toWorkerHandler(McpServer.layer({`,
      `  serverInfo: { name: "add", version: "1.0.0" }, tools: [Add], revisions: ["2026-07-28"]`,
      `}))`
    ].join("\n")

  it("leaves out the skills' building and yaml for a server without skills", async () => {
    const inputs = await inputsOf(oneTool(`import { HttpTransport, McpServer, Tool } from "@effect-mcp/server"`))
    expect(inputs.filter((file) => /\/yaml\/|skillsBuild|SkillFormat/.test(file))).toEqual([])
    // The serving of skills stays (the server serves skills found in its context).
    expect(inputs.some((file) => file.endsWith("internal/skills.ts"))).toBe(true)
  }, 60_000)

  // A server given `auth` but no verifier falls back to `TokenVerifier.jwt()`: one bundle cannot tell
  // it from a server without `auth` (the options are data), so what the verifiers use of jose and
  // oauth4webapi is in every Worker's bundle, unevaluated. Only that: both packages were there whole
  // (112 KB of 651 minified; 32 KB now), jose's encryption and signing, oauth4webapi's grants.
  it("carries of jose and oauth4webapi only what the token verifiers use", async () => {
    const result = await bundleOf(oneTool(`import { HttpTransport, McpServer, Tool } from "@effect-mcp/server"`))
    const kept = keptIn(result)
    const joseUnused =
      /\/jose\/.*\/(jwe\/|jwk\/|jwt\/(encrypt|sign|decrypt)|key\/generate|lib\/(jwe_|key_management|jws_sign))/
    expect(kept.filter((file) => joseUnused.test(file))).toEqual([])
    const code = result.outputFiles[0]!.text
    for (
      const unused of ["authorizationCodeGrantRequest", "deviceAuthorizationRequest", "pushedAuthorizationRequest"]
    ) {
      expect(code).not.toContain(`function ${unused}(`)
    }
    // The check sees the packages: what a verifier runs is there.
    expect(code).toContain("function jwtVerify(")
    expect(code).toContain("function processDiscoveryResponse(")
  }, 60_000)

  // `StatelessServer`: what a server does is named by the values its code imports, so what it never
  // does is not in its bundle (each byte is parsed when an isolate starts). A one-tool Worker on it:
  // no handshake era (sessions, the GET stream, resumption, legacy HTTP+SSE, the event and session
  // stores), no resource server nor token verifier (jose, oauth4webapi), no tasks runtime nor
  // in-memory task store (nor `effect/Stream`, which that store's changes are). Named, each is there.
  const statelessTool = (server: string, handler = "") =>
    [
      `import * as StatelessServer from "@effect-mcp/server/StatelessServer"`,
      `import * as TokenVerifier from "@effect-mcp/server/TokenVerifier"`,
      `import * as Tool from "@effect-mcp/server/Tool"`,
      `import * as Effect from "effect/Effect"`,
      `import * as Schema from "effect/Schema"`,
      `const Add = Tool.make("add", {`,
      `  parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }),`,
      `  success: Schema.Struct({ sum: Schema.Number })`,
      `}, ({ a, b }) => Effect.succeed({ sum: a + b }))`,
      `void TokenVerifier`,
      `export default StatelessServer.toWorkerHandler(StatelessServer.layer({`,
      `  serverInfo: { name: "add", version: "1.0.0" }, tools: [Add]${server}`,
      `})${handler})`
    ].join("\n")
  const handshakeCode =
    /server\/src\/(internal\/(handshake|handshakeRequest|relayLane)|internal\/http\/(session|sessions|replication|streamable|legacy)|EventStore|SessionStore)\.ts$/
  const authCode =
    /server\/src\/(internal\/tokenVerifier|internal\/issuer|internal\/oauthLibraries)\.ts$|\/jose\/|\/oauth4webapi\//
  const tasksCode =
    /server\/src\/internal\/(taskCalls|taskWatch|taskMemory|taskRequest)\.ts$|\/effect\/dist\/esm\/Stream\.js$/
  // What only the resource server's construction (`Auth.make`, in internal/http/auth.ts) says.
  const authMade = "must name at least one authorization server"

  it("carries no handshake era, authorization or tasks for a one-tool Worker on StatelessServer", async () => {
    const result = await bundleOf(statelessTool(""))
    const kept = keptIn(result)
    expect(kept.filter((file) => handshakeCode.test(file))).toEqual([])
    expect(kept.filter((file) => authCode.test(file))).toEqual([])
    expect(kept.filter((file) => tasksCode.test(file))).toEqual([])
    expect(result.outputFiles[0]!.text).not.toContain(authMade)
    // The check sees them: today's entry, options as data, carries each.
    const today = await bundleOf(oneTool(`import { HttpTransport, McpServer, Tool } from "@effect-mcp/server"`))
    const all = keptIn(today)
    expect(all.filter((file) => handshakeCode.test(file)).length).toBeGreaterThan(5)
    expect(all.some((file) => authCode.test(file))).toBe(true)
    expect(all.filter((file) => tasksCode.test(file)).length).toBe(5)
    expect(today.outputFiles[0]!.text).toContain(authMade)
  }, 60_000)

  it(
    "carries authorization and tasks on StatelessServer when the Worker names them, never the handshake era",
    async () => {
      const result = await bundleOf(statelessTool(
        `, tasks: StatelessServer.tasks`,
        `, { auth: StatelessServer.auth({ resource: "https://mcp.example.com/mcp", ` +
          `authorizationServers: ["https://auth.example.com"], verifier: TokenVerifier.jwt() }) }`
      ))
      const kept = keptIn(result)
      expect(kept.filter((file) => handshakeCode.test(file))).toEqual([])
      expect(kept.some((file) => file.includes("/jose/"))).toBe(true)
      expect(kept.filter((file) => tasksCode.test(file)).length).toBe(5)
      expect(result.outputFiles[0]!.text).toContain(authMade)
    },
    60_000
  )

  // The Worker on StatelessServer, evaluated: a 2026-07-28 call answered; a handshake-era request
  // told which revision to use (-32022), as `HttpTransport.toWorkerHandler` tells it; GET 405.
  it("serves 2026-07-28 on StatelessServer and refuses the handshake era with -32022", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "worker-stateless-"))
    try {
      await esbuild.build({
        stdin: { contents: statelessTool(""), resolveDir: import.meta.dirname, loader: "ts" },
        outfile: path.join(dir, "worker.mjs"),
        bundle: true,
        platform: "browser",
        format: "esm",
        conditions: ["workerd", "worker", "@effect-mcp/source"],
        logLevel: "silent"
      })
      const worker = (await import(pathToFileURL(path.join(dir, "worker.mjs")).href)).default as {
        readonly fetch: (request: Request, env: unknown, ctx: unknown) => Promise<Response>
      }
      const ctx = { waitUntil: () => {}, passThroughOnException: () => {} }
      const post = (headers: Record<string, string>, body: string) =>
        worker.fetch(
          new Request("http://localhost/mcp", {
            method: "POST",
            headers: { accept: "application/json, text/event-stream", "content-type": "application/json", ...headers },
            body
          }),
          {},
          ctx
        ).then(async (response) => ({ status: response.status, body: await response.text() }))
      const call = await post(
        { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "add" },
        `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":1},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
      )
      expect(call.body).toContain(`"structuredContent":{"sum":2}`)
      const initialize = await post(
        {},
        `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
      )
      const refused = JSON.parse(initialize.body)
      expect(refused.id).toBe(2)
      expect(refused.error.code).toBe(-32022)
      expect(refused.error.data.supported).toEqual(["2026-07-28"])
      const get = await worker.fetch(
        new Request("http://localhost/mcp", { headers: { accept: "text/event-stream" } }),
        {},
        ctx
      )
      expect(get.status).toBe(405)
      await get.body?.cancel()
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)

  // Effect's Arbitrary (11 KB minified) generates values for tests; a schema's arbitrary annotation
  // that calls it keeps it in every bundle of that schema's module.
  it("leaves out effect's Arbitrary", async () => {
    const inputs = await inputsOf(oneTool(`import { HttpTransport, McpServer, Tool } from "@effect-mcp/server"`))
    expect(inputs.filter((file) => /\/effect\/.*\/Arbitrary\.js$/.test(file))).toEqual([])
  }, 60_000)

  // The in-memory task store's changes and the following of a store given as a service use two
  // functions of effect/Stream, loaded through `#modules`: a loader that handed over the module's
  // namespace kept all of it (about 100 KB minified) in every Worker of `McpServer.layer`.
  it("keeps of effect/Stream only what the task stores use", async () => {
    const inputs = await inputsOf(oneTool(`import { HttpTransport, McpServer, Tool } from "@effect-mcp/server"`))
    expect(
      inputs.filter((file) =>
        /\/effect\/dist\/esm\/internal\/(groupBy|stream\/emit|stream\/debounceState)\.js$/.test(file)
      )
    )
      .toEqual([])
    // The check sees effect/Stream: what the stores use of it is there.
    expect(inputs.some((file) => file.endsWith("effect/dist/esm/internal/stream.js"))).toBe(true)
  }, 60_000)

  it("leaves out the @effect/platform adapter of a Worker importing the transport by its deep path", async () => {
    const inputs = await inputsOf(oneTool([
      `import * as HttpTransport from "@effect-mcp/server/HttpTransport"`,
      `import * as McpServer from "@effect-mcp/server/McpServer"`,
      `import * as Tool from "@effect-mcp/server/Tool"`
    ].join("\n")))
    expect(inputs.filter((file) => /HttpLayerRouter|internal\/http\/platform/.test(file))).toEqual([])
    expect(inputs.some((file) => file.endsWith("internal/http/web.ts"))).toBe(true)
  }, 60_000)

  // The schemas of the features a server may never use (sampling, elicitation, the input requests of
  // 2026-07-28, the tasks extension: a third of the Worker's cold start above the SDK's; prompts,
  // completion, `subscriptions/listen`, skills and MCP Apps' `_meta.ui`, which a server with tools alone never
  // serves; resources, roots, the core tasks of 2025-11-25, the handshake's `initialize` and `server/discover`)
  // are built when a message first needs them. A server with one tool, bundled as a Worker, evaluated here,
  // answers a 2026-07-28 `tools/list` and `tools/call`: none of them is built, nor the server's capabilities,
  // nor the dated tool schemas of the older revisions. The bundle is marked where each is built: a module
  // of core's `Schema/` when evaluated, a factory of core's `internal/schema/` when first called.
  it("builds no feature schemas at startup nor for a call that carries none", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "worker-features-"))
    try {
      const key = "__effectMcpBuilt"
      const built: Array<string> = []
      ;(globalThis as Record<string, unknown>)[key] = built
      const mark = (name: string) => `globalThis[${JSON.stringify(key)}].push(${JSON.stringify(name)})`
      const features =
        /packages\/core\/src\/(Schema\/(Sampling|Elicitation|InputRequired|TasksExtension|Prompt|Completion|Subscription|Skills|Apps|Resource|Roots|Tasks|Lifecycle|Discovery|Capabilities|Tool)|internal\/schema\/\w+)\.ts$/
      await esbuild.build({
        stdin: {
          contents: [
            `import { HttpTransport, McpServer, Tool } from "@effect-mcp/server"`,
            `import * as Effect from "effect/Effect"`,
            `import * as Schema from "effect/Schema"`,
            `const Add = Tool.make("add", {`,
            `  parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }),`,
            `  success: Schema.Struct({ sum: Schema.Number })`,
            `}, ({ a, b }) => Effect.succeed({ sum: a + b }))`,
            `export default HttpTransport.toWorkerHandler(McpServer.layer({`,
            `  serverInfo: { name: "add", version: "1.0.0" }, tools: [Add], revisions: ["2026-07-28"]`,
            `}))`
          ].join("\n"),
          resolveDir: import.meta.dirname,
          loader: "ts"
        },
        outfile: path.join(dir, "worker.mjs"),
        bundle: true,
        platform: "browser",
        format: "esm",
        conditions: ["workerd", "worker", "@effect-mcp/source"],
        logLevel: "silent",
        plugins: [{
          name: "mark-feature-schemas",
          setup: (build) => {
            build.onLoad({ filter: features }, (args) => {
              const name = /(Schema\/\w+|internal\/schema\/\w+)\.ts$/.exec(args.path)![1]!
              const source = fs.readFileSync(args.path, "utf8")
              if (name.startsWith("Schema/")) return { contents: `${mark(name)};\n${source}`, loader: "ts" }
              if (!source.includes("built ??= make()")) throw new Error(`${name}: no "built ??= make()" to mark`)
              // Each builder of the module (`make`, `makeLegacy`, …), named by it past the first.
              const marked = source.replace(
                /\b(built\w*) \?\?= (make\w*)\(\)/g,
                (_, built: string, make: string) =>
                  `${built} ??= (${mark(make === "make" ? name : `${name}.${make}`)}, ${make}())`
              )
              return { contents: marked, loader: "ts" }
            })
          }
        }]
      })
      const worker = (await import(pathToFileURL(path.join(dir, "worker.mjs")).href)).default as {
        readonly fetch: (request: Request, env: unknown, ctx: unknown) => Promise<Response>
      }
      // The tool schemas of the current revisions: `Tool.make` checks the tool's JSON Schema against them.
      expect(built).toEqual(["internal/schema/tool"])
      const ctx = { waitUntil: () => {}, passThroughOnException: () => {} }
      const call = (params: string, method = "tools/call") =>
        worker.fetch(
          new Request("http://localhost/mcp", {
            method: "POST",
            headers: {
              accept: "application/json, text/event-stream",
              "content-type": "application/json",
              "mcp-protocol-version": "2026-07-28",
              "mcp-method": method,
              ...(method === "tools/call" ? { "mcp-name": "add" } : {})
            },
            body: `{"jsonrpc":"2.0","id":1,"method":"${method}","params":{${
              method === "tools/call" ? `"name":"add","arguments":{"a":1,"b":1},` : ""
            }${params}"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
          }),
          {},
          ctx
        ).then((response) => response.text())
      expect(await call("", "tools/list")).toContain(`"name":"add"`)
      expect(await call("")).toContain(`"structuredContent":{"sum":2}`)
      // No other: not the dated tool schemas of the older revisions, nor the server's capabilities.
      expect(built).toEqual(["internal/schema/tool"])
      // A retry's inputResponses go through the input requests' schemas: built then, the answer the same.
      expect(await call(`"inputResponses":{},`)).toContain(`"structuredContent":{"sum":2}`)
      expect(built).toEqual(expect.arrayContaining(["internal/schema/inputRequired", "internal/schema/sampling"]))
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)
})
