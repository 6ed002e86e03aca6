/**
 * The loopback redirect listener behind `NodeOAuth.layerLoopback`.
 */
import * as AuthorizationCode from "@effect-mcp/client/AuthorizationCode"
import * as ClientError from "@effect-mcp/client/ClientError"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Scope from "effect/Scope"
import { spawn } from "node:child_process"
import type * as http from "node:http"
import type * as net from "node:net"
import * as NodeMcpServer from "../NodeMcpServer.js"

/** What `NodeOAuth.LoopbackOptions` holds, every field optional. */
export interface Options {
  readonly port?: number | undefined
  readonly path?: string | undefined
  readonly onUrl?: ((url: string) => Effect.Effect<void>) | undefined
  readonly openBrowser?: boolean | undefined
  readonly timeout?: Duration.DurationInput | undefined
}

const host = "127.0.0.1"

/** One line on stderr: stdout belongs to the stdio transport. */
const printUrl = (url: string): Effect.Effect<void> =>
  Effect.sync(() => {
    process.stderr.write(`Open this URL to authorize: ${url}\n`)
  })

/**
 * The command that opens `url` in the default browser on `platform`: the program, its arguments,
 * and whether they are passed verbatim (Windows). Undefined for anything but an http(s) URL: no
 * other scheme is handed to an opener (`file:`, `javascript:` and the like run things).
 *
 * On Windows `start` is a cmd built-in, and cmd reads the command line before `start` does: its
 * metacharacters in the URL are escaped with `^` (`&` between parameters; `%`, which would expand
 * `%NAME%` as a variable; `^`, `|`, `<`, `>`, `(`, `)`, `!`, `"`), and `/v:off` keeps `!` literal.
 * The first quoted argument of `start` is the window's title.
 */
export const openerCommand = (
  platform: NodeJS.Platform,
  url: string
): readonly [command: string, args: ReadonlyArray<string>, verbatim: boolean] | undefined => {
  const parsed = URL.canParse(url) ? new URL(url) : undefined
  if (parsed === undefined || (parsed.protocol !== "https:" && parsed.protocol !== "http:")) return undefined
  const href = parsed.href
  if (platform === "darwin") return ["open", [href], false]
  if (platform === "win32") {
    return ["cmd", ["/d", "/v:off", "/s", "/c", "start", "\"\"", href.replace(/[%&^|<>()!"]/g, "^$&")], true]
  }
  return ["xdg-open", [href], false]
}

/** The platform's "open this URL" command, detached; whatever goes wrong is ignored. */
const openInBrowser = (url: string): Effect.Effect<void> =>
  Effect.sync(() => {
    const command = openerCommand(process.platform, url)
    if (command === undefined) return
    try {
      const [program, args, verbatim] = command
      const child = spawn(program, [...args], {
        detached: true,
        stdio: "ignore",
        windowsHide: true,
        windowsVerbatimArguments: verbatim
      })
      child.once("error", () => {})
      child.unref()
    } catch {
      // No browser to open: the URL was shown anyway.
    }
  })

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

const page = (title: string, body: string): string =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>` +
  `<body style="font-family: system-ui, sans-serif; margin: 3em"><h1>${escapeHtml(title)}</h1>` +
  `<p>${escapeHtml(body)}</p></body></html>\n`

const answer = (
  response: http.ServerResponse,
  status: number,
  html: string,
  headers: http.OutgoingHttpHeaders = {}
) => {
  response.writeHead(status, {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    connection: "close",
    ...headers
  })
  response.end(html)
}

/** A waiting `acquire`. */
type Waiter = Deferred.Deferred<URLSearchParams>

export const make = (
  options: Options = {}
): Effect.Effect<AuthorizationCode.Service, NodeMcpServer.ListenError, Scope.Scope> =>
  Effect.gen(function*() {
    const path = options.path ?? "/callback"
    const onUrl = options.onUrl ?? printUrl
    const timeout = Duration.decode(options.timeout ?? Duration.minutes(5))
    const requestedPort = options.port ?? 0
    // Acquires whose authorization URL has a `state`, by it; the others, oldest first. A redirect
    // goes to the acquire of its `state`; one whose state no acquire waits for goes to the oldest
    // acquire without one, or to nobody.
    const byState = new Map<string, Waiter>()
    const stateless: Array<Waiter> = []
    const takeWaiter = (state: string | null): Waiter | undefined => {
      if (state !== null) {
        const waiter = byState.get(state)
        if (waiter !== undefined) {
          byState.delete(state)
          return waiter
        }
      }
      return stateless.shift()
    }

    // Loaded here, not when this module is (importing `node:http` loads undici on Node 22 and later).
    const { createServer } = yield* Effect.promise(() => import("node:http"))
    const onRequest = (request: http.IncomingMessage, response: http.ServerResponse) => {
      let url: URL
      try {
        url = new URL(request.url ?? "/", `http://${host}`)
      } catch {
        return answer(response, 400, page("Bad request", "This is not a URL."))
      }
      if (url.pathname !== path) {
        return answer(response, 404, page("Not found", "Nothing is here."))
      }
      if (request.method !== "GET") {
        return answer(response, 405, page("Method not allowed", "Only GET is answered here."), { allow: "GET" })
      }
      const waiter = takeWaiter(url.searchParams.get("state"))
      if (waiter === undefined) {
        return answer(
          response,
          400,
          page("Not expected", "No authorization is waiting for this redirect. You can close this window.")
        )
      }
      const error = url.searchParams.get("error")
      answer(
        response,
        200,
        error === null
          ? page("Authorization complete", "You can close this window.")
          : page("Authorization failed", `The authorization server answered: ${error}. You can close this window.`)
      )
      Deferred.unsafeDone(waiter, Exit.succeed(url.searchParams))
    }

    const sockets = new Set<net.Socket>()
    const server = createServer({ headersTimeout: 10_000, requestTimeout: 10_000 }, onRequest)
    server.on("connection", (socket: net.Socket) => {
      sockets.add(socket)
      socket.once("close", () => sockets.delete(socket))
    })
    const port = yield* Effect.acquireRelease(
      Effect.async<number, NodeMcpServer.ListenError>((resume) => {
        const onError = (cause: NodeJS.ErrnoException) =>
          resume(Effect.fail(new NodeMcpServer.ListenError({ host, port: requestedPort, code: cause.code, cause })))
        server.once("error", onError)
        server.listen(requestedPort, host, () => {
          server.off("error", onError)
          const address = server.address()
          resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : requestedPort))
        })
      }),
      () =>
        Effect.async<void>((resume) => {
          server.close(() => resume(Effect.void))
          // Browsers keep connections open; the listener's end ends them.
          for (const socket of sockets) socket.destroy()
        })
    )
    const redirectUri = `http://${host}:${port}${path}`

    const acquire = Effect.fn("NodeOAuth.acquire")(function*(authorizationUrl: URL) {
      const shown = authorizationUrl.origin + authorizationUrl.pathname
      // Nobody is shown, nor sent to, anything but an http(s) URL.
      if (authorizationUrl.protocol !== "https:" && authorizationUrl.protocol !== "http:") {
        return yield* new ClientError.AuthorizationFailed({
          step: "authorization",
          url: authorizationUrl.protocol,
          reason: "the authorization URL is not an http(s) URL; it is not shown or opened"
        })
      }
      const state = authorizationUrl.searchParams.get("state")
      const waiter = yield* Deferred.make<URLSearchParams>()
      if (state !== null) {
        if (byState.has(state)) {
          return yield* new ClientError.AuthorizationFailed({
            step: "authorization",
            url: shown,
            reason: "another authorization with the same state is already waiting for its redirect"
          })
        }
        byState.set(state, waiter)
      } else stateless.push(waiter)
      const forget = Effect.sync(() => {
        if (state !== null) {
          if (byState.get(state) === waiter) byState.delete(state)
        } else {
          const index = stateless.indexOf(waiter)
          if (index >= 0) stateless.splice(index, 1)
        }
      })
      // Waiting before the user is told: a redirect as quick as a browser already signed in is
      // not missed.
      return yield* Effect.gen(function*() {
        yield* onUrl(authorizationUrl.href)
        if (options.openBrowser === true) yield* openInBrowser(authorizationUrl.href)
        return yield* Deferred.await(waiter).pipe(
          Effect.timeoutFail({
            duration: timeout,
            onTimeout: () =>
              new ClientError.AuthorizationFailed({
                step: "authorization",
                url: shown,
                reason: `no redirect came back within ${Duration.format(timeout)}`
              })
          })
        )
      }).pipe(Effect.ensuring(forget))
    })

    return AuthorizationCode.AuthorizationCode.of({ redirectUri, acquire })
  })
