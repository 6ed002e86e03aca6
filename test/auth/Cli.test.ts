/**
 * The `mcp` command (apps/cli, built) against a real authorization server (oidc-provider) and a
 * resource server in front of an effect-mcp server (see ./support.ts), as child processes, with a
 * token file of the test's own (`--token-store` in a fresh directory; the user's configuration
 * moved out of reach): `mcp login` through the loopback redirect, driven by a headless browser;
 * `mcp call` with the tokens kept, and refreshed once expired; `mcp logout`, after which a call
 * asks to authorize again; metadata naming another resource refused in one line. Nothing the
 * command prints holds a token or a secret.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import type * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Programs from "../support/Programs.js"
import * as Auth from "./support.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const mcpMain = Programs.mcpMain

/** What a run of the command did. */
interface Run {
  readonly code: number | null
  /** Killed by the test, having taken longer than its bound. */
  readonly timedOut: boolean
  readonly stdout: string
  readonly stderr: string
  /** The authorization URLs it printed on stderr. */
  readonly urls: ReadonlyArray<string>
  /** What the browser met, when it could not get through. */
  readonly browserFailure: string | undefined
}

const authorizeLine = /^mcp: to authorize, open (\S+)$/

/**
 * `mcp ...args` in `env`, no input, killed after `bound` ms: every authorization URL it prints is
 * handed to `onUrl` (the browser) as the line comes.
 */
const mcp = (
  env: NodeJS.ProcessEnv,
  args: ReadonlyArray<string>,
  onUrl?: (url: string) => Effect.Effect<void>,
  bound = 45_000
): Effect.Effect<Run> =>
  Effect.promise(() =>
    new Promise<Run>((resolve) => {
      const child = spawn(process.execPath, [mcpMain, ...args], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] })
      let stdout = ""
      let stderr = ""
      let pending = ""
      let timedOut = false
      let browserFailure: string | undefined
      const urls: Array<string> = []
      const timer = setTimeout(() => {
        timedOut = true
        child.kill("SIGKILL")
      }, bound)
      child.stdout.on("data", (chunk) => (stdout += chunk))
      child.stderr.on("data", (chunk) => {
        stderr += chunk
        pending += chunk
        const lines = pending.split("\n")
        pending = lines.pop()!
        for (const line of lines) {
          const url = authorizeLine.exec(line)?.[1]
          if (url === undefined) continue
          urls.push(url)
          if (onUrl !== undefined) {
            Effect.runPromise(onUrl(url)).catch((error: unknown) => {
              browserFailure = String(error)
            })
          }
        }
      })
      child.on("close", (code) => {
        clearTimeout(timer)
        resolve({ code, timedOut, stdout, stderr, urls, browserFailure })
      })
    })
  )

/** What a run printed, for the assertions' messages. */
const shown = (run: Run) =>
  `exit ${run.code}${run.timedOut ? " (killed: too long)" : ""}${
    run.browserFailure !== undefined ? `; the browser: ${run.browserFailure}` : ""
  }\nstdout: ${run.stdout}\nstderr: ${run.stderr}`

const linesOf = (text: string) => text.split("\n").filter((line) => line !== "")

/** The token file, as NodeTokenStore writes it. */
interface TokenFile {
  readonly version: 1
  readonly entries: ReadonlyArray<{
    readonly resource: string
    readonly registrations: Readonly<Record<string, { readonly clientId: string; readonly clientSecret?: string }>>
    readonly tokens?: {
      readonly issuer: string
      readonly accessToken: string
      readonly tokenType: string
      readonly refreshToken?: string
      readonly expiresAt?: number
      readonly lifetime?: number
      readonly scopes: ReadonlyArray<string>
    }
  }>
}

/** A JWT's `jti`. */
const jtiOf = (jwt: string): unknown =>
  (JSON.parse(Buffer.from(jwt.split(".")[1] ?? "", "base64url").toString("utf8")) as { readonly jti?: unknown }).jti

/** A directory of the test's own, removed with the scope. */
const temporaryDirectory = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "mcp-cli-auth-"))),
  (directory) => Effect.sync(() => fs.rmSync(directory, { recursive: true, force: true }))
)

// Authorization is the client's HTTP, the same on every Node: run where CI runs the suite first (Node
// 20), so that CI's other passes stay within its time.
describe.runIf(process.versions.node.startsWith("20."))("mcp login, call, logout against oidc-provider", () => {
  it.scopedLive(
    "login through the loopback redirect; calls with the kept tokens, refreshed once expired; logout; " +
      "another resource's metadata refused in one line; no token or secret ever printed",
    () =>
      Effect.gen(function*() {
        const fixture = yield* Auth.start()
        const browser = Auth.makeBrowser()
        const directory = yield* temporaryDirectory
        const file = path.join(directory, "tokens.json")
        // The user's configuration out of reach: where the default token file would be is ours, and stays empty.
        const home = path.join(directory, "home")
        const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") }
        for (const name of Object.keys(env)) {
          if (name.startsWith("MCP_")) delete env[name]
        }
        const store = ["--token-store", file]

        const runs: Array<Run> = []
        const run = (args: ReadonlyArray<string>, onUrl?: (url: string) => Effect.Effect<void>) =>
          Effect.tap(mcp(env, args, onUrl), (done) => Effect.sync(() => runs.push(done)))
        /** Every secret the token file has held, and the `jti` of every access token in it. */
        const secrets = new Set<string>()
        const jtis = new Set<unknown>()
        const readFile = () => {
          const content = JSON.parse(fs.readFileSync(file, "utf8")) as TokenFile
          for (const entry of content.entries) {
            for (const registration of Object.values(entry.registrations)) {
              if (registration.clientSecret !== undefined) secrets.add(registration.clientSecret)
            }
            if (entry.tokens !== undefined) {
              secrets.add(entry.tokens.accessToken)
              jtis.add(jtiOf(entry.tokens.accessToken))
              if (entry.tokens.refreshToken !== undefined) secrets.add(entry.tokens.refreshToken)
            }
          }
          return content
        }
        const entryOf = (content: TokenFile) => content.entries.find((entry) => entry.resource === fixture.resource)
        const whoami = () => run(["call", fixture.url, "whoami", ...store])

        // 1. login: the URL on stderr, the browser through it, the code back at the loopback listener.
        const login = yield* run(["login", fixture.url, ...store], browser.onUrl)
        assert.strictEqual(login.code, 0, shown(login))
        assert.strictEqual(login.stdout, "", shown(login))
        assert.deepStrictEqual(linesOf(login.stderr), [
          `mcp: to authorize, open ${browser.opened[0]}`,
          `mcp: authorized for ${fixture.url} (tokens in ${file})`
        ])
        assert.deepStrictEqual(login.urls, browser.opened)
        const asked = new URL(browser.opened[0]!)
        assert.strictEqual(asked.origin, fixture.issuer)
        assert.strictEqual(asked.searchParams.get("resource"), fixture.resource)
        assert.match(asked.searchParams.get("redirect_uri") ?? "", /^http:\/\/127\.0\.0\.1:\d+\/callback$/)
        assert.strictEqual(browser.delivered.length, 1)
        assert.strictEqual(fs.statSync(file).mode & 0o777, 0o600)
        const afterLogin = readFile()
        const entry = entryOf(afterLogin)
        assert.isDefined(entry, JSON.stringify(afterLogin.entries.map((e) => e.resource)))
        assert.deepStrictEqual(Object.keys(entry!.registrations), [fixture.issuer])
        const tokens = entry!.tokens!
        assert.isDefined(tokens)
        assert.strictEqual(tokens.issuer, fixture.issuer)
        assert.strictEqual(tokens.tokenType.toLowerCase(), "bearer")
        assert.isNotEmpty(tokens.accessToken)
        assert.isNotEmpty(tokens.refreshToken, "offline_access was offered: a refresh token is kept")
        assert.strictEqual(fixture.seen.registrations, 1)
        assert.strictEqual(fixture.seen.authorizations, 1)
        assert.deepStrictEqual(fixture.seen.grants, { authorization_code: 1 })

        // 2. call: the kept token, no authorization.
        const first = yield* whoami()
        assert.strictEqual(first.code, 0, shown(first))
        assert.strictEqual(first.stdout, `${Auth.whoamiAnswer}\n`)
        assert.strictEqual(first.stderr, "")
        assert.strictEqual(fixture.seen.registrations, 1)
        assert.strictEqual(fixture.seen.authorizations, 1)
        assert.deepStrictEqual(fixture.seen.grants, { authorization_code: 1 })
        assert.strictEqual(fixture.seen.tokens.at(-1)!.jti, jtiOf(tokens.accessToken))

        // 3. Past the token's expiry: refreshed before it is sent, the new tokens kept. The CLI runs in
        // processes of its own, on the wall clock: its token is made to have expired where the CLI
        // reads when it expires, the token file (as the wall clock would in 5 minutes), not waited for.
        const beforeExpiry = readFile()
        fs.writeFileSync(
          file,
          JSON.stringify({
            ...beforeExpiry,
            entries: beforeExpiry.entries.map((e) =>
              e.resource === fixture.resource ? { ...e, tokens: { ...e.tokens!, expiresAt: Date.now() - 1000 } } : e
            )
          })
        )
        const refreshTokensBefore = fixture.seen.refreshTokens
        const second = yield* whoami()
        assert.strictEqual(second.code, 0, shown(second))
        assert.strictEqual(second.stdout, `${Auth.whoamiAnswer}\n`)
        assert.strictEqual(second.stderr, "")
        assert.deepStrictEqual(fixture.seen.grants, { authorization_code: 1, refresh_token: 1 })
        assert.strictEqual(fixture.seen.authorizations, 1)
        assert.strictEqual(fixture.seen.refused.withBadToken, 0)
        const refreshed = entryOf(readFile())?.tokens
        assert.isDefined(refreshed)
        assert.notStrictEqual(refreshed!.accessToken, tokens.accessToken)
        assert.isAbove(refreshed!.expiresAt!, Date.now())
        assert.strictEqual(fixture.seen.tokens.at(-1)!.jti, jtiOf(refreshed!.accessToken))
        // oidc-provider rotates a public client's refresh token: the new one is kept.
        assert.strictEqual(fixture.seen.refreshTokens, refreshTokensBefore + 1)
        assert.isNotEmpty(refreshed!.refreshToken)
        assert.notStrictEqual(refreshed!.refreshToken, tokens.refreshToken)

        // 4. logout: the entry gone; the next call asks to authorize again, and is authorized anew.
        const logout = yield* run(["logout", fixture.url, ...store])
        assert.strictEqual(logout.code, 0, shown(logout))
        assert.strictEqual(logout.stdout, "")
        assert.deepStrictEqual(linesOf(logout.stderr), [`mcp: forgot the tokens of ${fixture.resource}`])
        assert.isUndefined(entryOf(readFile()))
        const again = yield* run(["call", fixture.url, "whoami", ...store], browser.onUrl)
        assert.strictEqual(again.code, 0, shown(again))
        assert.strictEqual(again.urls.length, 1, shown(again))
        assert.strictEqual(again.stdout, `${Auth.whoamiAnswer}\n`)
        assert.deepStrictEqual(linesOf(again.stderr), [`mcp: to authorize, open ${again.urls[0]}`])
        assert.strictEqual(fixture.seen.registrations, 2)
        assert.strictEqual(fixture.seen.authorizations, 2)
        assert.isDefined(entryOf(readFile())?.tokens)

        // 5. Metadata naming another resource: one line, non-zero, nothing authorized or kept.
        const other = yield* Auth.start({ advertise: (origin) => `${origin}/other` })
        const kept = fs.readFileSync(file, "utf8")
        const refused = yield* run(["call", other.url, "whoami", ...store], browser.onUrl)
        assert.notStrictEqual(refused.code, 0, shown(refused))
        assert.isFalse(refused.timedOut, shown(refused))
        assert.strictEqual(refused.stdout, "")
        assert.match(refused.stderr, /^mcp: [^\n]+\n$/, shown(refused))
        assert.include(refused.stderr, other.resource)
        assert.deepStrictEqual(refused.urls, [])
        assert.strictEqual(other.seen.registrations, 0)
        assert.deepStrictEqual(other.seen.grants, {})
        assert.deepStrictEqual(other.seen.tokens, [])
        assert.strictEqual(fs.readFileSync(file, "utf8"), kept)

        // Every access token the resource server took came from the file, whose secrets nothing printed.
        for (const token of fixture.seen.tokens) assert.isTrue(jtis.has(token.jti), `unknown token ${token.jti}`)
        assert.isAtLeast(secrets.size, 5)
        for (const [index, done] of runs.entries()) {
          for (const secret of secrets) {
            // Not `notInclude`: its message would print the secret.
            assert.isFalse(done.stdout.includes(secret), `a secret on the stdout of run ${index + 1}`)
            assert.isFalse(done.stderr.includes(secret), `a secret on the stderr of run ${index + 1}`)
          }
        }
        // No browser was sent elsewhere, and the default token file was never written.
        assert.strictEqual(browser.opened.length, 2)
        assert.isFalse(fs.existsSync(path.join(home, ".config")))
        assert.deepStrictEqual(fixture.seen.errors, [])
      }),
    120_000
  )
})

/** A token file in a directory of the test's own, the user's configuration out of reach, no `MCP_*` set. */
const isolated = Effect.gen(function*() {
  const directory = yield* temporaryDirectory
  const home = path.join(directory, "home")
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") }
  for (const name of Object.keys(env)) {
    if (name.startsWith("MCP_")) delete env[name]
  }
  const file = path.join(directory, "tokens.json")
  return { directory, env, file, store: ["--token-store", file] as const }
})

/** The browser of a user who refuses: straight back to the redirect URI with `access_denied`. */
const refusingBrowser = (issuer: string) => (url: string) =>
  Effect.promise(async () => {
    const asked = new URL(url)
    const back = new URL(asked.searchParams.get("redirect_uri")!)
    back.searchParams.set("error", "access_denied")
    back.searchParams.set("state", asked.searchParams.get("state")!)
    back.searchParams.set("iss", issuer)
    const response = await fetch(back)
    await response.text()
    if (response.status !== 200) throw new Error(`the loopback listener answered HTTP ${response.status}`)
  })

describe.runIf(process.versions.node.startsWith("20."))(
  "mcp login: one authorization, bounded, said in one line",
  () => {
    // Before: the era probe (server/discover, given up after 5 s) ended the authorization under way with it, and the
    // initialize that followed started another: a second URL with a new client_id, the first landing on "No
    // authorization is waiting for this redirect". The browser here finishes only once that initialize was refused.
    it.scopedLive(
      "a user slower than the era probe: one authorization URL, one registration, logged in",
      () =>
        Effect.gen(function*() {
          const fixture = yield* Auth.start()
          const browser = Auth.makeBrowser()
          const { env, file, store } = yield* isolated
          const slowUser = (url: string) => Effect.zipRight(fixture.refusedWithoutToken(2), browser.onUrl(url))
          const login = yield* mcp(env, ["login", fixture.url, ...store], slowUser, 90_000)
          assert.strictEqual(login.code, 0, shown(login))
          assert.deepStrictEqual(linesOf(login.stderr), [
            `mcp: to authorize, open ${login.urls[0]}`,
            `mcp: authorized for ${fixture.url} (tokens in ${file})`
          ])
          assert.strictEqual(browser.delivered.length, 1)
          assert.strictEqual(fixture.seen.registrations, 1)
          assert.strictEqual(fixture.seen.authorizations, 1)
          assert.deepStrictEqual(fixture.seen.grants, { authorization_code: 1 })
          assert.deepStrictEqual(fixture.seen.errors, [])
        }),
      120_000
    )

    // Before: the probe's authorization error sent the client on to initialize, which authorized again.
    it.scopedLive(
      "an authorization refused during the era probe: one URL, then one line and exit 1",
      () =>
        Effect.gen(function*() {
          const fixture = yield* Auth.start()
          const { env, store } = yield* isolated
          const login = yield* mcp(env, ["login", fixture.url, ...store], refusingBrowser(fixture.issuer))
          assert.strictEqual(login.code, 1, shown(login))
          assert.isUndefined(login.browserFailure, shown(login))
          assert.strictEqual(login.urls.length, 1, shown(login))
          assert.strictEqual(login.stdout, "")
          const [url, failure, ...rest] = linesOf(login.stderr)
          assert.strictEqual(url, `mcp: to authorize, open ${login.urls[0]}`)
          assert.match(failure ?? "", /^mcp: authorization failed \(authorization, [^)]+\): access_denied/)
          assert.deepStrictEqual(rest, [])
          assert.strictEqual(fixture.seen.registrations, 1)
        }),
      120_000
    )

    // Before: `--era` was refused as an unknown option.
    it.scopedLive("--era pins the era: no probe, one authorization", () =>
      Effect.gen(function*() {
        const fixture = yield* Auth.start()
        const browser = Auth.makeBrowser()
        const { env, file, store } = yield* isolated
        for (const era of ["handshake", "stateless"]) {
          const login = yield* mcp(env, ["login", fixture.url, "--era", era, ...store], browser.onUrl)
          assert.strictEqual(login.code, 0, shown(login))
          assert.strictEqual(linesOf(login.stderr).at(-1), `mcp: authorized for ${fixture.url} (tokens in ${file})`)
          fs.rmSync(file)
        }
        assert.strictEqual(fixture.seen.authorizations, 2)
        assert.strictEqual(browser.delivered.length, 2)
      }), 120_000)

    // Before: nothing bounded an OAuth request but undici's own 300 s, and the process lived on for it (306 s).
    it.scopedLive(
      "a token endpoint that never answers: --timeout ends it, one line, exit 1",
      () =>
        Effect.gen(function*() {
          const stalled: Array<http.ServerResponse> = []
          const fixture = yield* Auth.start({
            intercept: (request, response) => {
              if (request.method !== "POST" || new URL(request.url ?? "/", "http://x").pathname !== "/token") {
                return false
              }
              stalled.push(response)
              return true
            }
          })
          const browser = Auth.makeBrowser()
          const { env, store } = yield* isolated
          const started = Date.now()
          const login = yield* mcp(env, ["login", fixture.url, "--timeout", "3", ...store], browser.onUrl, 60_000)
          const took = Date.now() - started
          assert.isFalse(login.timedOut, shown(login))
          assert.strictEqual(login.code, 1, shown(login))
          assert.strictEqual(stalled.length, 1)
          assert.strictEqual(login.stdout, "")
          assert.deepStrictEqual(linesOf(login.stderr), [
            `mcp: to authorize, open ${login.urls[0]}`,
            `mcp: authorization failed (token, ${fixture.issuer}/token): did not answer within 3s`
          ])
          // The probe's 3 s, the user, then the token request's 3 s: nowhere near 300.
          assert.isBelow(took, 30_000)
        }),
      90_000
    )

    // Before: a stack trace, and the whole of what the endpoint said (hundreds of kilobytes) on one line.
    it.scopedLive(
      "an oversized answer, or a huge error_description: one short line on stderr, exit 1",
      () =>
        Effect.gen(function*() {
          const oversized = yield* Auth.listen((request, response) => {
            const origin = `http://${request.headers.host}`
            request.resume()
            if (request.url === "/mcp") {
              response.writeHead(401, {
                "www-authenticate": `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`
              })
              return response.end()
            }
            response.writeHead(200, { "content-type": "application/json" })
            response.end(
              JSON.stringify({ resource: `${origin}/mcp`, authorization_servers: [origin], pad: "x".repeat(2e6) })
            )
          })
          const verbose = yield* Auth.start({
            intercept: (request, response) => {
              if (request.method !== "POST" || new URL(request.url ?? "/", "http://x").pathname !== "/token") {
                return false
              }
              request.resume()
              response.writeHead(400, { "content-type": "application/json" })
              response.end(JSON.stringify({ error: "invalid_grant", error_description: "no\n".repeat(150_000) }))
              return true
            }
          })
          const browser = Auth.makeBrowser()
          const { env, store } = yield* isolated
          for (
            const [url, onUrl, step] of [
              [`${oversized}/mcp`, undefined, "discovery"],
              [verbose.url, browser.onUrl, "token"]
            ] as const
          ) {
            const run = yield* mcp(env, ["tools", url, "--era", "handshake", ...store], onUrl)
            assert.strictEqual(run.code, 1, shown(run))
            assert.strictEqual(run.stdout, "")
            const failure = linesOf(run.stderr).filter((line) => !authorizeLine.test(line))
            assert.strictEqual(failure.length, 1, run.stderr.slice(0, 2000))
            assert.match(failure[0], new RegExp(`^mcp: authorization failed \\(${step}, `))
            assert.isBelow(failure[0].length, 600, failure[0].slice(0, 2000))
          }
        }),
      120_000
    )

    // Before: the protected resource metadata of a plain-HTTP server on a host that is not a loopback host was refused
    // ("is not on https"), and mcp had no --allow-insecure: such a server could not be authorized to at all.
    // 127.0.0.2 is such a host to the client's rule (as a LAN host would be), still on this machine.
    it.scopedLive(
      "a plain-HTTP server on a host that is not loopback: its own metadata is read and login goes through; an " +
        "authorization server there too takes --allow-insecure",
      () =>
        Effect.gen(function*() {
          const browser = Auth.makeBrowser()
          const { env, file, store } = yield* isolated
          const lan = yield* Auth.start({ hosts: { resource: "127.0.0.2" } })
          const login = yield* mcp(env, ["login", lan.url, ...store], browser.onUrl)
          assert.strictEqual(login.code, 0, shown(login))
          assert.strictEqual(linesOf(login.stderr).at(-1), `mcp: authorized for ${lan.url} (tokens in ${file})`)
          const call = yield* mcp(env, ["call", lan.url, "whoami", ...store])
          assert.strictEqual(call.code, 0, shown(call))
          assert.strictEqual(call.stdout, `${Auth.whoamiAnswer}\n`)

          const both = yield* Auth.start({ hosts: { resource: "127.0.0.2", authorization: "127.0.0.2" } })
          const refused = yield* mcp(env, ["login", both.url, ...store], browser.onUrl)
          assert.strictEqual(refused.code, 1, shown(refused))
          assert.deepStrictEqual(linesOf(refused.stderr), [
            `mcp: authorization failed (discovery, ${both.issuer}): is not on https (plain HTTP only to a loopback ` +
            `host; allowInsecure permits it)`
          ])
          assert.deepStrictEqual(both.seen.registrations, 0)
          const allowed = yield* mcp(env, ["login", both.url, "--allow-insecure", ...store], browser.onUrl)
          assert.strictEqual(allowed.code, 0, shown(allowed))
          assert.strictEqual(linesOf(allowed.stderr).at(-1), `mcp: authorized for ${both.url} (tokens in ${file})`)
          assert.strictEqual(both.seen.registrations, 1)
        }),
      120_000
    )

    // Before: the notices went to stdout as log lines (or nowhere), the file was written over (every other server's
    // entries with it), and its 0755 directory stayed 0755. Then whatever directory held the file was made 0700, so
    // `--token-store ~/tokens.json` locked down the user's home: a directory chosen is left as it is now, and said.
    it.scopedLive(
      "the token file: one not a token file is kept aside; a chosen open directory left so, the default one made " +
        "0700; each said on stderr",
      () =>
        Effect.gen(function*() {
          const fixture = yield* Auth.start()
          const browser = Auth.makeBrowser()
          const { directory, env } = yield* isolated
          const shared = path.join(directory, "shared")
          fs.mkdirSync(shared)
          fs.chmodSync(shared, 0o755)
          const file = path.join(shared, "tokens.json")
          const corrupt =
            "{\"version\": 1, \"entries\": [{\"resource\": \"https://other.example/mcp\", \"registrations\""
          fs.writeFileSync(file, corrupt, { mode: 0o600 })
          const login = yield* mcp(env, ["login", fixture.url, "--token-store", file], browser.onUrl)
          assert.strictEqual(login.code, 0, shown(login))
          assert.strictEqual(login.stdout, "")
          const aside = fs.readdirSync(shared).filter((name) => name !== "tokens.json")
          assert.strictEqual(aside.length, 1)
          assert.strictEqual(fs.readFileSync(path.join(shared, aside[0]), "utf8"), corrupt)
          assert.strictEqual(fs.statSync(shared).mode & 0o777, 0o755)
          assert.strictEqual(fs.statSync(file).mode & 0o777, 0o600)
          const lines = linesOf(login.stderr)
          assert.include(
            lines,
            `mcp: ${shared} is open to others (mode 0755), left so (not the store's own); the file is 0600`
          )
          assert.include(
            lines,
            `mcp: ${file} was not a token file (Unexpected end of JSON input): kept aside as ${
              path.join(shared, aside[0])
            }`
          )
          assert.strictEqual(lines.at(-1), `mcp: authorized for ${fixture.url} (tokens in ${file})`)
          assert.strictEqual(JSON.parse(fs.readFileSync(file, "utf8")).entries[0].resource, fixture.resource)

          // The default token file's directory is the store's own: made 0700.
          const own = path.join(env.XDG_CONFIG_HOME!, "effect-mcp")
          fs.mkdirSync(own, { recursive: true })
          fs.chmodSync(own, 0o755)
          const again = yield* mcp(env, ["login", fixture.url], browser.onUrl)
          assert.strictEqual(again.code, 0, shown(again))
          assert.strictEqual(fs.statSync(own).mode & 0o777, 0o700)
          assert.include(
            linesOf(again.stderr),
            `mcp: made ${own} private (mode 0700, it was 0755): it holds the token file`
          )
        }),
      120_000
    )
  }
)
