/**
 * `NodeOAuth.layerLoopback` driven without a browser: the test is the browser, and GETs the
 * redirect URI itself, as the authorization server would send it there.
 */
import { AuthorizationCode, ClientError } from "@effect-mcp/client"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { NodeMcpServer, NodeOAuth } from "../src/index.js"
import { openerCommand } from "../src/internal/loopback.js"

/** A loopback whose `onUrl` hands each URL shown to the test. */
const loopback = (options: NodeOAuth.LoopbackOptions = {}) =>
  Effect.gen(function*() {
    const shown = yield* Queue.unbounded<string>()
    const service = yield* NodeOAuth.makeLoopback({ onUrl: (url) => Queue.offer(shown, url), ...options })
    return { service, shown }
  })

const authorizationUrl = (state?: string) => {
  const url = new URL("https://as.example/authorize?response_type=code&client_id=c")
  if (state !== undefined) url.searchParams.set("state", state)
  return url
}

/** The browser's GET: status, content type, body. */
const get = (url: string) =>
  Effect.promise(async () => {
    const response = await fetch(url)
    return { status: response.status, type: response.headers.get("content-type"), body: await response.text() }
  })

const redirect = (redirectUri: string, params: Record<string, string>) =>
  `${redirectUri}?${new URLSearchParams(params).toString()}`

describe("NodeOAuth.layerLoopback", () => {
  it.scoped("the redirect's parameters are what acquire returns; the browser gets a page", () =>
    Effect.gen(function*() {
      const { service, shown } = yield* loopback()
      assert.match(service.redirectUri, /^http:\/\/127\.0\.0\.1:\d+\/callback$/)
      const url = authorizationUrl("s-1")
      const fiber = yield* Effect.fork(service.acquire(url))
      assert.strictEqual(yield* Queue.take(shown), url.href)
      const page = yield* get(
        redirect(service.redirectUri, { code: "code-1", state: "s-1", iss: "https://as.example" })
      )
      assert.strictEqual(page.status, 200)
      assert.strictEqual(page.type, "text/html; charset=utf-8")
      assert.include(page.body, "You can close this window")
      const params = yield* Fiber.join(fiber)
      assert.deepStrictEqual(Object.fromEntries(params), {
        code: "code-1",
        state: "s-1",
        iss: "https://as.example"
      })
    }))

  it.scoped("an error redirect is returned as it came, and the page says so (escaped)", () =>
    Effect.gen(function*() {
      const { service, shown } = yield* loopback()
      const fiber = yield* Effect.fork(service.acquire(authorizationUrl("s-err")))
      yield* Queue.take(shown)
      const page = yield* get(redirect(service.redirectUri, { error: "<access_denied>", state: "s-err" }))
      assert.strictEqual(page.status, 200)
      assert.include(page.body, "&#60;access_denied&#62;")
      assert.notInclude(page.body, "<access_denied>")
      assert.strictEqual((yield* Fiber.join(fiber)).get("error"), "<access_denied>")
    }))

  it.scoped("two acquires at once: each gets the redirect of its own state", () =>
    Effect.gen(function*() {
      const { service, shown } = yield* loopback()
      const one = yield* Effect.fork(service.acquire(authorizationUrl("one")))
      const two = yield* Effect.fork(service.acquire(authorizationUrl("two")))
      yield* Queue.take(shown)
      yield* Queue.take(shown)
      // The second's redirect first.
      assert.strictEqual((yield* get(redirect(service.redirectUri, { code: "code-two", state: "two" }))).status, 200)
      assert.strictEqual((yield* Fiber.join(two)).get("code"), "code-two")
      assert.isTrue((yield* Fiber.poll(one))._tag === "None")
      assert.strictEqual((yield* get(redirect(service.redirectUri, { code: "code-one", state: "one" }))).status, 200)
      assert.strictEqual((yield* Fiber.join(one)).get("code"), "code-one")
    }))

  it.scoped("a redirect nobody waits for (unknown state, or one already taken) is answered 400 and given to nobody", () =>
    Effect.gen(function*() {
      const { service, shown } = yield* loopback()
      const fiber = yield* Effect.fork(service.acquire(authorizationUrl("mine")))
      yield* Queue.take(shown)
      const stray = yield* get(redirect(service.redirectUri, { code: "evil", state: "guessed" }))
      assert.strictEqual(stray.status, 400)
      assert.include(stray.body, "No authorization is waiting for this redirect")
      const noState = yield* get(redirect(service.redirectUri, { code: "evil" }))
      assert.strictEqual(noState.status, 400)
      assert.isTrue((yield* Fiber.poll(fiber))._tag === "None")
      assert.strictEqual((yield* get(redirect(service.redirectUri, { code: "good", state: "mine" }))).status, 200)
      assert.strictEqual((yield* Fiber.join(fiber)).get("code"), "good")
      // Exactly one GET: the same redirect again finds nobody.
      assert.strictEqual((yield* get(redirect(service.redirectUri, { code: "good", state: "mine" }))).status, 400)
    }))

  it.scoped("an authorization URL without a state takes a redirect nobody else waits for", () =>
    Effect.gen(function*() {
      const { service, shown } = yield* loopback()
      const stateful = yield* Effect.fork(service.acquire(authorizationUrl("s")))
      const stateless = yield* Effect.fork(service.acquire(authorizationUrl()))
      yield* Queue.take(shown)
      yield* Queue.take(shown)
      assert.strictEqual((yield* get(redirect(service.redirectUri, { code: "any" }))).status, 200)
      assert.strictEqual((yield* Fiber.join(stateless)).get("code"), "any")
      assert.isTrue((yield* Fiber.poll(stateful))._tag === "None")
      yield* get(redirect(service.redirectUri, { code: "s-code", state: "s" }))
      assert.strictEqual((yield* Fiber.join(stateful)).get("code"), "s-code")
    }))

  it.scoped("two acquires with the same state: the second fails at once", () =>
    Effect.gen(function*() {
      const { service, shown } = yield* loopback()
      yield* Effect.fork(service.acquire(authorizationUrl("same")))
      yield* Queue.take(shown)
      const error = yield* Effect.flip(service.acquire(authorizationUrl("same")))
      assert.instanceOf(error, ClientError.AuthorizationFailed)
      assert.include(error.reason, "same state")
    }))

  it.scoped("another path is answered 404, a POST of the callback 405; neither resolves anything", () =>
    Effect.gen(function*() {
      const { service, shown } = yield* loopback({ path: "/oauth/back" })
      assert.isTrue(service.redirectUri.endsWith("/oauth/back"))
      const fiber = yield* Effect.fork(service.acquire(authorizationUrl("p")))
      yield* Queue.take(shown)
      const origin = new URL(service.redirectUri).origin
      assert.strictEqual((yield* get(`${origin}/callback?code=x&state=p`)).status, 404)
      assert.strictEqual((yield* get(`${origin}/favicon.ico`)).status, 404)
      const post = yield* Effect.promise(() => fetch(`${service.redirectUri}?code=x&state=p`, { method: "POST" }))
      assert.strictEqual(post.status, 405)
      assert.strictEqual(post.headers.get("allow"), "GET")
      assert.isTrue((yield* Fiber.poll(fiber))._tag === "None")
    }))

  it.live("no redirect within the timeout: AuthorizationFailed, and the state is free again", () =>
    Effect.scoped(Effect.gen(function*() {
      const { service } = yield* loopback({ timeout: "150 millis" })
      const error = yield* Effect.flip(service.acquire(authorizationUrl("late")))
      assert.instanceOf(error, ClientError.AuthorizationFailed)
      assert.strictEqual(error.step, "authorization")
      assert.strictEqual(error.url, "https://as.example/authorize")
      assert.strictEqual(error.reason, "no redirect came back within 150ms")
      // Too late: nobody waits.
      assert.strictEqual((yield* get(redirect(service.redirectUri, { code: "c", state: "late" }))).status, 400)
    })))

  it.live("the layer: a fixed port; the listener is closed when its scope ends", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(NodeOAuth.layerLoopback({ port: 0, onUrl: () => Effect.void }), scope)
      const service = Context.get(context, AuthorizationCode.AuthorizationCode)
      const port = Number(new URL(service.redirectUri).port)
      // Taken while the layer lives: another layer on that port cannot listen.
      const busy = yield* Effect.flip(Effect.scoped(Layer.build(NodeOAuth.layerLoopback({ port }))))
      assert.instanceOf(busy, NodeMcpServer.ListenError)
      assert.strictEqual(busy.code, "EADDRINUSE")
      assert.strictEqual((yield* get(`${service.redirectUri}?state=none`)).status, 400)
      yield* Scope.close(scope, Exit.void)
      const after = yield* Effect.promise(() => fetch(service.redirectUri).then(() => "answered", () => "refused"))
      assert.strictEqual(after, "refused")
    }))

  it.scoped("by default the URL is one line on stderr, and nothing on stdout", () =>
    Effect.gen(function*() {
      const service = yield* NodeOAuth.makeLoopback()
      const written: { stdout: Array<string>; stderr: Array<string> } = { stdout: [], stderr: [] }
      const capture = (stream: "stdout" | "stderr") => {
        const original = process[stream].write
        process[stream].write = ((chunk: string | Uint8Array, ...rest: Array<any>) => {
          const text = String(chunk)
          if (text.includes("as.example")) {
            written[stream].push(text)
            return true
          }
          return original.call(process[stream], chunk, ...rest)
        }) as typeof original
        return Effect.addFinalizer(() => Effect.sync(() => process[stream].write = original))
      }
      yield* capture("stdout")
      yield* capture("stderr")
      const url = authorizationUrl("quiet")
      const fiber = yield* Effect.fork(service.acquire(url))
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))
      yield* get(redirect(service.redirectUri, { code: "c", state: "quiet" }))
      yield* Fiber.join(fiber)
      assert.deepStrictEqual(written, { stdout: [], stderr: [`Open this URL to authorize: ${url.href}\n`] })
    }))

  it.live("openBrowser: the platform's opener is started with the URL", () =>
    Effect.gen(function*() {
      const directory = yield* Effect.acquireRelease(
        Effect.sync(() => fs.mkdtempSync(nodePath.join(os.tmpdir(), "effect-mcp-oauth-"))),
        (directory) => Effect.sync(() => fs.rmSync(directory, { recursive: true, force: true }))
      )
      const opened = nodePath.join(directory, "opened")
      // A stand-in for `xdg-open` (Linux) and `open` (macOS): writes the URL it was given, whole at
      // once (renamed into place: the file is never seen half written).
      for (const name of ["xdg-open", "open"]) {
        const script = `#!/bin/sh\nprintf '%s' "$1" > '${opened}.part' && mv '${opened}.part' '${opened}'\n`
        fs.writeFileSync(nodePath.join(directory, name), script, {
          mode: 0o755
        })
      }
      const path = process.env.PATH
      yield* Effect.acquireRelease(
        Effect.sync(() => process.env.PATH = `${directory}${nodePath.delimiter}${path ?? ""}`),
        () => Effect.sync(() => process.env.PATH = path)
      )
      const { service, shown } = yield* loopback({ openBrowser: true })
      const url = authorizationUrl("browser")
      url.searchParams.set("scope", "a b")
      const fiber = yield* Effect.fork(service.acquire(url))
      assert.strictEqual(yield* Queue.take(shown), url.href)
      const got = yield* Effect.try(() => fs.readFileSync(opened, "utf8")).pipe(
        Effect.retry(Schedule.spaced("20 millis").pipe(Schedule.upTo("5 seconds")))
      )
      assert.strictEqual(got, url.href)
      yield* get(redirect(service.redirectUri, { code: "c", state: "browser" }))
      assert.strictEqual((yield* Fiber.join(fiber)).get("code"), "c")
    }).pipe(Effect.scoped))

  it.live("openBrowser with no opener on the PATH: the URL is shown and acquire still waits", () =>
    Effect.gen(function*() {
      const path = process.env.PATH
      yield* Effect.acquireRelease(
        Effect.sync(() => process.env.PATH = nodePath.join(os.tmpdir(), "effect-mcp-no-such-dir")),
        () => Effect.sync(() => process.env.PATH = path)
      )
      const { service, shown } = yield* loopback({ openBrowser: true })
      const done = yield* Deferred.make<URLSearchParams, ClientError.AuthorizationFailed>()
      yield* Effect.fork(Deferred.complete(done, service.acquire(authorizationUrl("nobrowser"))))
      yield* Queue.take(shown)
      yield* Effect.sleep("50 millis")
      assert.isFalse(yield* Deferred.isDone(done))
      yield* get(redirect(service.redirectUri, { code: "c", state: "nobrowser" }))
      assert.strictEqual((yield* Deferred.await(done)).get("code"), "c")
    }).pipe(Effect.scoped))

  it.scoped("a URL that is not http(s) is neither shown nor opened: acquire fails at once", () =>
    Effect.gen(function*() {
      const { service, shown } = yield* loopback({ openBrowser: true })
      for (const url of ["javascript:alert(1)//?state=j", "file:///etc/passwd?state=f", "data:text/html,x"]) {
        const error = yield* Effect.flip(service.acquire(new URL(url)))
        assert.instanceOf(error, ClientError.AuthorizationFailed)
        assert.include(error.reason, "not an http(s) URL")
      }
      assert.strictEqual(yield* Queue.size(shown), 0)
    }))
})

// Before: on Windows `%` went to cmd unescaped (`%NAME%` expanded as a variable), and any scheme was handed over.
describe("the browser opener's command", () => {
  // As a URL serializes (`<`, `>` and `"` are percent-encoded by then).
  const url = "https://as.example/authorize?a=1&b=%25PATH%25&c=(x)|y%3Cz%3E^!w&redirect_uri=http%3A%2F%2F127.0.0.1"

  it("Windows: cmd's metacharacters, % among them, escaped with ^; delayed expansion off; verbatim", () => {
    assert.strictEqual(new URL(url).href, url)
    const [command, args, verbatim] = openerCommand("win32", url)!
    assert.strictEqual(command, "cmd")
    assert.isTrue(verbatim)
    assert.deepStrictEqual(args.slice(0, 6), ["/d", "/v:off", "/s", "/c", "start", "\"\""])
    assert.strictEqual(
      args[6],
      "https://as.example/authorize?a=1^&b=^%25PATH^%25^&c=^(x^)^|y^%3Cz^%3E^^^!w^&redirect_uri=http^%3A^%2F^%2F127.0.0.1"
    )
    // What cmd gives `start` once it has removed its escapes: the URL, byte for byte.
    assert.strictEqual(args[6].replace(/\^(.)/g, "$1"), url)
    // No % is left for cmd to pair into a variable: each one follows a ^.
    assert.notMatch(args[6], /(^|[^^])%/)
  })

  it("macOS and elsewhere: the URL as one argument, nothing escaped", () => {
    assert.deepStrictEqual(openerCommand("darwin", url), ["open", [url], false])
    assert.deepStrictEqual(openerCommand("linux", url), ["xdg-open", [url], false])
  })

  it("anything but an http(s) URL: no command at all", () => {
    for (const platform of ["win32", "darwin", "linux"] as const) {
      for (const other of ["javascript:alert(1)", "file:///etc/passwd", "ms-settings:", "not a url", "-flag"]) {
        assert.isUndefined(openerCommand(platform, other), `${platform} ${other}`)
      }
    }
  })
})
