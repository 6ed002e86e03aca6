/**
 * `NodeTokenStore.layerFile`: entries kept in a JSON file, read back by another store on the same
 * file; the file's text, its mode, what becomes of a file that is not a token file.
 */
import type { TokenStore } from "@effect-mcp/client"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { NodeTokenStore } from "../src/index.js"

/** A fresh directory under the system's temporary one, removed afterwards. */
const temporaryDirectory = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(nodePath.join(os.tmpdir(), "effect-mcp-tokens-"))),
  (directory) => Effect.sync(() => fs.rmSync(directory, { recursive: true, force: true }))
)

const entry = (resource: string, accessToken = `at-${resource}`): TokenStore.Entry => ({
  resource,
  registrations: {
    "https://as.example": {
      clientId: "client-1",
      clientSecret: Redacted.make("secret-1"),
      tokenEndpointAuthMethod: "client_secret_basic"
    },
    "https://other-as.example": { clientId: "client-2" }
  },
  tokens: {
    issuer: "https://as.example",
    accessToken: Redacted.make(accessToken),
    tokenType: "Bearer",
    refreshToken: Redacted.make("rt-1"),
    expiresAt: 1_900_000_000_000,
    scopes: ["mcp:read", "mcp:write"]
  }
})

/** An entry with its secrets unwrapped, to compare. */
const plain = (value: unknown): unknown =>
  Redacted.isRedacted(value)
    ? Redacted.value(value)
    : Array.isArray(value)
    ? value.map(plain)
    : typeof value === "object" && value !== null
    ? Object.fromEntries(Object.entries(value).map(([key, field]) => [key, plain(field)]))
    : value

/** The warnings logged while `effect` runs. */
const warnings = <A>(effect: Effect.Effect<A>) =>
  Effect.gen(function*() {
    const logged: Array<string> = []
    const result = yield* effect.pipe(
      Effect.provide(Logger.replace(
        Logger.defaultLogger,
        Logger.make(({ logLevel, message }) => {
          if (logLevel._tag === "Warning") logged.push(Array.isArray(message) ? message.join(" ") : String(message))
        })
      ))
    )
    return { result, logged }
  })

describe("NodeTokenStore.layerFile", () => {
  it.scoped("an entry saved is loaded by another store on the same file, its secrets Redacted again", () =>
    Effect.gen(function*() {
      const file = nodePath.join(yield* temporaryDirectory, "config", "effect-mcp", "tokens.json")
      const saved = entry("https://mcp.example/mcp")
      yield* (yield* NodeTokenStore.makeFile(file)).save(saved)

      const loaded = yield* (yield* NodeTokenStore.makeFile(file)).load("https://mcp.example/mcp")
      assert.isTrue(Option.isSome(loaded))
      const got = Option.getOrThrow(loaded)
      assert.isTrue(Redacted.isRedacted(got.tokens?.accessToken))
      assert.isTrue(Redacted.isRedacted(got.tokens?.refreshToken))
      assert.isTrue(Redacted.isRedacted(got.registrations["https://as.example"].clientSecret))
      assert.notInclude(String(got.tokens?.accessToken), "at-")
      assert.deepStrictEqual(plain(got), plain(saved))

      // In the file: plain strings, every entry under `entries`.
      const text = fs.readFileSync(file, "utf8")
      assert.deepStrictEqual(JSON.parse(text), { version: 1, entries: [plain(saved)] })
      assert.include(text, "\"accessToken\": \"at-https://mcp.example/mcp\"")
    }))

  it.scoped("the file is mode 0600, the directory made for it 0700, and no temporary file is left", () =>
    Effect.gen(function*() {
      const directory = nodePath.join(yield* temporaryDirectory, "made")
      const file = nodePath.join(directory, "tokens.json")
      const store = yield* NodeTokenStore.makeFile(file)
      yield* store.save(entry("https://a.example"))
      yield* store.save(entry("https://b.example"))
      assert.strictEqual(fs.statSync(file).mode & 0o777, 0o600)
      assert.strictEqual(fs.statSync(directory).mode & 0o777, 0o700)
      assert.deepStrictEqual(fs.readdirSync(directory), ["tokens.json"])
    }))

  it.scoped("a missing file is an empty store, without a warning", () =>
    Effect.gen(function*() {
      const file = nodePath.join(yield* temporaryDirectory, "none.json")
      const { logged, result } = yield* warnings((yield* NodeTokenStore.makeFile(file)).load("https://mcp.example"))
      assert.isTrue(Option.isNone(result))
      assert.deepStrictEqual(logged, [])
    }))

  // Before the file was kept aside, the next save wrote over it: every other server's entries in it were lost,
  // and only a logged warning (on stdout, in the CLI) said so.
  for (
    const [name, text, reason] of [
      ["not JSON", "{\"version\": 1, \"entries\": [", "JSON"],
      ["JSON of another shape", "{\"version\": 1, \"entries\": [{\"resource\": 42}]}", "at entries.0.resource"],
      ["a later version", "{\"version\": 2, \"entries\": []}", "at version"]
    ] as const
  ) {
    it.scoped(`a corrupt file (${name}) is read as empty, then kept aside by the next save, and each is said`, () =>
      Effect.gen(function*() {
        const directory = yield* temporaryDirectory
        const file = nodePath.join(directory, "tokens.json")
        fs.writeFileSync(file, text)
        const store = yield* NodeTokenStore.makeFile(file)
        const { logged, result } = yield* warnings(store.load("https://mcp.example"))
        assert.isTrue(Option.isNone(result))
        assert.strictEqual(logged.length, 1)
        assert.include(logged[0], `effect-mcp: ${file} is not a token file (`)
        assert.include(logged[0], reason)
        assert.include(logged[0], "kept aside at the next save")
        assert.notInclude(logged[0], "\n")

        const saved = yield* warnings(store.save(entry("https://mcp.example")))
        const aside = fs.readdirSync(directory).filter((name) => name !== "tokens.json")
        assert.strictEqual(aside.length, 1)
        assert.match(aside[0], /^tokens\.json\.invalid-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$/)
        assert.strictEqual(fs.readFileSync(nodePath.join(directory, aside[0]), "utf8"), text)
        assert.strictEqual(saved.logged.length, 1)
        assert.isTrue(saved.logged[0].startsWith(`effect-mcp: ${file} was not a token file (`), saved.logged[0])
        assert.isTrue(saved.logged[0].endsWith(`): kept aside as ${nodePath.join(directory, aside[0])}`))
        assert.isTrue(Option.isSome(yield* store.load("https://mcp.example/x")))
        assert.strictEqual(JSON.parse(fs.readFileSync(file, "utf8")).entries.length, 1)
      }))
  }

  it.scoped("a file kept aside is never written over: a second one at the same moment gets a name of its own", () =>
    Effect.gen(function*() {
      const directory = yield* temporaryDirectory
      const file = nodePath.join(directory, "tokens.json")
      const store = yield* NodeTokenStore.makeFile(file)
      fs.writeFileSync(file, "first")
      yield* warnings(store.save(entry("https://a.example")))
      fs.writeFileSync(file, "second")
      yield* warnings(store.save(entry("https://b.example")))
      const aside = fs.readdirSync(directory).filter((name) => name !== "tokens.json").sort()
      assert.strictEqual(aside.length, 2)
      assert.strictEqual(aside[1], `${aside[0]}-2`)
      assert.strictEqual(fs.readFileSync(nodePath.join(directory, aside[0]), "utf8"), "first")
      assert.strictEqual(fs.readFileSync(nodePath.join(directory, aside[1]), "utf8"), "second")
    }))

  it.scoped("onNotice: what the store says goes there, not to the log", () =>
    Effect.gen(function*() {
      const file = nodePath.join(yield* temporaryDirectory, "tokens.json")
      fs.writeFileSync(file, "not json")
      const said: Array<string> = []
      const store = yield* NodeTokenStore.makeFile(file, { onNotice: (line) => Effect.sync(() => said.push(line)) })
      const { logged } = yield* warnings(
        Effect.zipRight(store.load("https://a.example"), store.save(entry("https://a.example")))
      )
      assert.deepStrictEqual(logged, [])
      assert.strictEqual(said.length, 2)
      assert.isTrue(said[0].startsWith(`${file} is not a token file (`))
      assert.isTrue(said[1].startsWith(`${file} was not a token file (`))
    }))

  /** `XDG_CONFIG_HOME` set to `value` until the scope ends. */
  const xdgConfigHome = (value: string) =>
    Effect.acquireRelease(
      Effect.sync(() => {
        const before = process.env.XDG_CONFIG_HOME
        process.env.XDG_CONFIG_HOME = value
        return before
      }),
      (before) =>
        Effect.sync(() => {
          if (before === undefined) delete process.env.XDG_CONFIG_HOME
          else process.env.XDG_CONFIG_HOME = before
        })
    )

  // Before: an existing directory kept its mode (0755: the token file's name and its neighbours readable by all).
  it.scoped(
    "the store's own (default) directory open to others is made 0700 at the next save, and that is said once",
    () =>
      Effect.gen(function*() {
        const config = yield* temporaryDirectory
        yield* xdgConfigHome(config)
        const directory = nodePath.join(config, "effect-mcp")
        fs.mkdirSync(directory)
        fs.chmodSync(directory, 0o755)
        const store = yield* NodeTokenStore.makeFile()
        const first = yield* warnings(store.save(entry("https://a.example")))
        assert.strictEqual(fs.statSync(directory).mode & 0o777, 0o700)
        assert.deepStrictEqual(first.logged, [
          `effect-mcp: made ${directory} private (mode 0700, it was 0755): it holds the token file`
        ])
        const second = yield* warnings(store.save(entry("https://b.example")))
        assert.deepStrictEqual(second.logged, [])
        assert.strictEqual(fs.statSync(nodePath.join(directory, "tokens.json")).mode & 0o777, 0o600)
      })
  )

  // Before: whatever directory held the file was made 0700, so `--token-store ~/tokens.json` locked down the home
  // directory (a project's folder, an app's root) at the first save.
  it.scoped(
    "a directory the user chose, open to others, is left as it is, and that is said once (the file is 0600)",
    () =>
      Effect.gen(function*() {
        const directory = nodePath.join(yield* temporaryDirectory, "home")
        fs.mkdirSync(directory)
        fs.chmodSync(directory, 0o755)
        fs.writeFileSync(nodePath.join(directory, ".profile"), "kept")
        const file = nodePath.join(directory, "tokens.json")
        const store = yield* NodeTokenStore.makeFile(file)
        const first = yield* warnings(store.save(entry("https://a.example")))
        assert.strictEqual(fs.statSync(directory).mode & 0o777, 0o755)
        assert.deepStrictEqual(first.logged, [
          `effect-mcp: ${directory} is open to others (mode 0755), left so (not the store's own); the file is 0600`
        ])
        const second = yield* warnings(store.save(entry("https://b.example")))
        assert.deepStrictEqual(second.logged, [])
        assert.strictEqual(fs.statSync(directory).mode & 0o777, 0o755)
        assert.strictEqual(fs.statSync(file).mode & 0o777, 0o600)
        assert.strictEqual(JSON.parse(fs.readFileSync(file, "utf8")).entries.length, 2)
      })
  )

  it.scoped(
    "a directory the user chose and the store made is 0700, all the way down, without a notice",
    () =>
      Effect.gen(function*() {
        const base = yield* temporaryDirectory
        const file = nodePath.join(base, "new", "deeper", "tokens.json")
        const { logged } = yield* warnings((yield* NodeTokenStore.makeFile(file)).save(entry("https://a.example")))
        assert.deepStrictEqual(logged, [])
        assert.strictEqual(fs.statSync(nodePath.join(base, "new")).mode & 0o777, 0o700)
        assert.strictEqual(fs.statSync(nodePath.join(base, "new", "deeper")).mode & 0o777, 0o700)
      })
  )

  it.scoped("a path that cannot be read (a directory) is read as empty and never written over", () =>
    Effect.gen(function*() {
      const file = nodePath.join(yield* temporaryDirectory, "tokens.json")
      fs.mkdirSync(file)
      fs.writeFileSync(nodePath.join(file, "inside"), "kept")
      const store = yield* NodeTokenStore.makeFile(file)
      const { logged, result } = yield* warnings(store.load("https://a.example"))
      assert.isTrue(Option.isNone(result))
      assert.strictEqual(logged.length, 1)
      assert.include(logged[0], `could not read ${file}; read as empty`)
      const saved = yield* warnings(store.save(entry("https://a.example")))
      assert.strictEqual(saved.logged.length, 1)
      assert.include(saved.logged[0], "nothing is written over it; the tokens are not kept")
      assert.deepStrictEqual(fs.readdirSync(file), ["inside"])
    }))

  it.scoped("remove forgets the entry covering the URL, and only it", () =>
    Effect.gen(function*() {
      const file = nodePath.join(yield* temporaryDirectory, "tokens.json")
      const store = yield* NodeTokenStore.makeFile(file)
      yield* store.save(entry("https://a.example/mcp"))
      yield* store.save(entry("https://b.example/mcp"))
      yield* store.remove("https://a.example/mcp/sub")
      assert.isTrue(Option.isNone(yield* store.load("https://a.example/mcp")))
      assert.isTrue(Option.isSome(yield* store.load("https://b.example/mcp")))
      assert.deepStrictEqual(
        JSON.parse(fs.readFileSync(file, "utf8")).entries.map((e: { resource: string }) => e.resource),
        ["https://b.example/mcp"]
      )
      // Nothing covers it: nothing changes.
      yield* store.remove("https://c.example/")
      assert.isTrue(Option.isSome(yield* store.load("https://b.example/mcp")))
    }))

  it.scoped("load finds the longest resource covering the URL; a save replaces its resource's entry", () =>
    Effect.gen(function*() {
      const store = yield* NodeTokenStore.makeFile(nodePath.join(yield* temporaryDirectory, "tokens.json"))
      yield* store.save(entry("https://mcp.example", "root"))
      yield* store.save(entry("https://mcp.example/mcp", "mcp"))
      yield* store.save(entry("https://mcp.example/mcp/deeper", "deeper"))
      const token = (url: string) =>
        Effect.map(store.load(url), Option.map((e) => Redacted.value(e.tokens!.accessToken)))
      assert.deepStrictEqual(yield* token("https://mcp.example/mcp/x"), Option.some("mcp"))
      assert.deepStrictEqual(yield* token("https://mcp.example/mcp/deeper/y"), Option.some("deeper"))
      assert.deepStrictEqual(yield* token("https://mcp.example/mcpx"), Option.some("root"))
      assert.deepStrictEqual(yield* token("https://other.example/mcp"), Option.none())
      yield* store.save(entry("https://mcp.example/mcp", "mcp-2"))
      assert.deepStrictEqual(yield* token("https://mcp.example/mcp"), Option.some("mcp-2"))
    }))

  it.scoped("saves at once within one process: none is lost", () =>
    Effect.gen(function*() {
      const file = nodePath.join(yield* temporaryDirectory, "tokens.json")
      const store = yield* NodeTokenStore.makeFile(file)
      const resources = Array.from({ length: 20 }, (_, i) => `https://mcp${i}.example/mcp`)
      yield* Effect.forEach(resources, (resource) => store.save(entry(resource)), { concurrency: "unbounded" })
      const kept = JSON.parse(fs.readFileSync(file, "utf8")).entries.map((e: { resource: string }) => e.resource)
      assert.deepStrictEqual([...kept].sort(), [...resources].sort())
    }))

  it.effect("defaultPath: $XDG_CONFIG_HOME, else ~/.config (a relative XDG_CONFIG_HOME is ignored)", () =>
    Effect.gen(function*() {
      const xdg = process.env.XDG_CONFIG_HOME
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          if (xdg === undefined) delete process.env.XDG_CONFIG_HOME
          else process.env.XDG_CONFIG_HOME = xdg
        })
      )
      if (process.platform === "win32") {
        assert.strictEqual(
          NodeTokenStore.defaultPath(),
          nodePath.join(process.env.APPDATA!, "effect-mcp", "tokens.json")
        )
        return
      }
      process.env.XDG_CONFIG_HOME = "/xdg/config"
      assert.strictEqual(NodeTokenStore.defaultPath(), "/xdg/config/effect-mcp/tokens.json")
      process.env.XDG_CONFIG_HOME = "relative"
      assert.strictEqual(NodeTokenStore.defaultPath(), nodePath.join(os.homedir(), ".config/effect-mcp/tokens.json"))
      delete process.env.XDG_CONFIG_HOME
      assert.strictEqual(NodeTokenStore.defaultPath(), nodePath.join(os.homedir(), ".config/effect-mcp/tokens.json"))
    }).pipe(Effect.scoped))
})
