/**
 * The requests of the OAuth flow: each over the HTTP client the layer wraps, to an endpoint
 * allowed, its answer bounded and timed; oauth4webapi's calls run with it as their `fetch`.
 */
import * as HttpBody from "@effect/platform/HttpBody"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Runtime from "effect/Runtime"
import * as Stream from "effect/Stream"
import * as oauth from "oauth4webapi"
import * as ClientError from "../../ClientError.js"
import { manualRedirects, reasonOf } from "../exchange.js"
import { allowed, type Env, failed, maxResponseBytes, type Step } from "./common.js"

/** What a request to an OAuth endpoint sends. */
interface Init {
  readonly body?: unknown
  readonly headers: Record<string, string>
  readonly method: string
  /** The protected resource metadata of this MCP server is asked for (see {@link refusalOf}). */
  readonly metadataOf?: string | undefined
}

/**
 * One request to an OAuth endpoint, over the wrapped client: only to an endpoint allowed, redirects
 * not followed, the body read whole up to `maxResponseBytes`, all of it within the timeout; an
 * interruption ends it (the connection with it).
 */
export const fetchOf = (
  env: Env,
  step: Step,
  url: string,
  init: Init
): Effect.Effect<Response, ClientError.AuthorizationFailed> =>
  Effect.flatMap(allowed(env, step, url, init.metadataOf), () => {
    let request = HttpClientRequest.make(init.method as "GET")(url).pipe(HttpClientRequest.setHeaders(init.headers))
    const body = init.body
    if (body instanceof URLSearchParams) {
      request = HttpClientRequest.setBody(
        request,
        HttpBody.text(body.toString(), init.headers["content-type"] ?? "application/x-www-form-urlencoded")
      )
    } else if (typeof body === "string") {
      request = HttpClientRequest.setBody(
        request,
        HttpBody.text(body, init.headers["content-type"] ?? "application/json")
      )
    } else if (body instanceof Uint8Array) {
      request = HttpClientRequest.setBody(request, HttpBody.uint8Array(body, init.headers["content-type"]))
    }
    const unreachable = (error: unknown) => failed(step, url, `could not be reached (${reasonOf(error)})`, error)
    return Effect.scoped(
      Effect.gen(function*() {
        const response = yield* Effect.mapError(manualRedirects(env.client.execute(request)), unreachable)
        const chunks: Array<Uint8Array> = []
        let size = 0
        yield* Stream.runForEach(
          Stream.mapError(response.stream, unreachable),
          (chunk) => {
            size += chunk.length
            if (size > maxResponseBytes) {
              return Effect.fail(failed(step, url, `answered more than ${maxResponseBytes} bytes; not read further`))
            }
            chunks.push(chunk)
            return Effect.void
          }
        )
        const bytes = new Uint8Array(size)
        let at = 0
        for (const chunk of chunks) {
          bytes.set(chunk, at)
          at += chunk.length
        }
        const empty = response.status === 204 || response.status === 205 || response.status === 304
        return new Response(empty ? null : bytes, { status: response.status, headers: response.headers })
      })
    ).pipe(
      Effect.timeoutFail({
        duration: env.timeout,
        onTimeout: () => failed(step, url, `did not answer within ${Duration.format(env.timeout)}`)
      })
    )
  })

/**
 * oauth4webapi's `fetch`: {@link fetchOf}, ended by the signal oauth4webapi is given (the one of
 * the Effect that runs the oauth4webapi call). Its failure is the `AuthorizationFailed` itself.
 */
const customFetchOf = (env: Env, step: Step) => (url: string, init: Init & { readonly signal?: AbortSignal }) =>
  Runtime.runPromise(env.runtime)(
    Effect.either(fetchOf(env, step, url, init)),
    init.signal !== undefined ? { signal: init.signal } : undefined
  ).then((result) => result._tag === "Right" ? result.right : Promise.reject(result.left))

/**
 * The options every oauth4webapi request takes: our fetch, which applies the endpoint rule to every
 * URL it is given (oauth4webapi's own https check is ours then), and the signal that ends it.
 */
const requestOptions = (env: Env, step: Step, signal: AbortSignal) => ({
  [oauth.customFetch]: customFetchOf(env, step),
  [oauth.allowInsecureRequests]: true,
  signal
})

/** A GET of JSON (metadata; `metadataOf`: the protected resource metadata of that MCP server). */
export const getJson = (env: Env, url: string, metadataOf?: string) =>
  fetchOf(env, "discovery", url, { method: "GET", headers: { accept: "application/json" }, metadataOf })

/** Reads a JSON object from a 200, or undefined. */
export const jsonOf = (response: Response) =>
  Effect.promise(async () => {
    if (response.status !== 200) return undefined
    try {
      const value = await response.json()
      return typeof value === "object" && value !== null && !Array.isArray(value)
        ? value as Record<string, unknown>
        : undefined
    } catch {
      return undefined
    }
  })

/** An oauth4webapi failure as ours (one of our fetch's is ours already). */
export const fromOAuth = (step: Step, url: string) => (cause: unknown) => {
  if (cause instanceof ClientError.AuthorizationFailed) return cause
  if (cause instanceof oauth.ResponseBodyError) {
    return failed(step, url, `${cause.error}${cause.error_description ? `: ${cause.error_description}` : ""}`, cause)
  }
  if (cause instanceof oauth.AuthorizationResponseError) {
    return failed(step, url, `${cause.error}${cause.error_description ? `: ${cause.error_description}` : ""}`, cause)
  }
  return failed(step, url, cause instanceof Error ? cause.message : String(cause), cause)
}

/** The OAuth `error` of a failed token request, if it said one. */
export const oauthErrorOf = (error: ClientError.AuthorizationFailed) =>
  error.cause instanceof oauth.ResponseBodyError ? error.cause.error : undefined

/**
 * Runs an oauth4webapi call with the options of its requests (`requestOptions`: an interruption
 * ends them); a DPoP nonce asked for is retried once (the nonce is kept by then).
 */
export const call = <A>(
  env: Env,
  step: Step,
  url: string,
  f: (options: ReturnType<typeof requestOptions>) => Promise<A>
) =>
  Effect.tryPromise({
    try: async (signal) => {
      const options = requestOptions(env, step, signal)
      try {
        return await f(options)
      } catch (error) {
        if (oauth.isDPoPNonceError(error)) return await f(options)
        throw error
      }
    },
    catch: fromOAuth(step, url)
  })
