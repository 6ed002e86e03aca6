/**
 * A language model's HTTP endpoint for the tests, on 127.0.0.1: it answers each request with the
 * next reply of a script, in the shapes of the real APIs (OpenAI's Responses API, which
 * `@effect/ai-openai` 0.41 calls at `POST /responses`, and Anthropic's Messages API at
 * `POST /v1/messages`), and keeps every request it was sent. The provider packages are pointed at
 * it (`apiUrl`): nothing of theirs is mocked.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Http from "node:http"
import type * as Net from "node:net"

/**
 * A request the endpoint was sent: its path and its JSON body.
 *
 * @since 0.1.0
 */
export interface Received {
  readonly path: string
  readonly body: any
}

/**
 * A reply: a JSON body (status 200), or a status and a body, or a function of the request (which
 * may wait: a model still thinking).
 *
 * @since 0.1.0
 */
export type Reply =
  | { readonly status?: number; readonly body: unknown }
  | ((request: Received) => Promise<{ readonly status?: number; readonly body: unknown }>)

/**
 * @since 0.1.0
 */
export interface ScriptedModel {
  /** The base URL (`http://127.0.0.1:PORT`): OpenAI's `apiUrl`, Anthropic's `apiUrl`. */
  readonly url: string
  /** Every request received, in order. */
  readonly received: Array<Received>
  /** Adds replies to the script. */
  readonly push: (...replies: ReadonlyArray<Reply>) => void
  readonly close: () => Promise<void>
}

/**
 * Starts the endpoint with a script; a request past the script's end is answered 500.
 *
 * @since 0.1.0
 */
export const start = (replies: ReadonlyArray<Reply> = []): Promise<ScriptedModel> => {
  const script = [...replies]
  const received: Array<Received> = []
  const server = Http.createServer((request, response) => {
    let text = ""
    request.setEncoding("utf8")
    request.on("data", (chunk: string) => (text += chunk))
    request.on("end", async () => {
      const got: Received = { path: request.url ?? "", body: text === "" ? undefined : JSON.parse(text) }
      received.push(got)
      const next = script.shift()
      const reply = next === undefined
        ? { status: 500, body: { error: { message: "the script has no more replies", type: "server_error" } } }
        : typeof next === "function"
        ? await next(got)
        : next
      response.writeHead(reply.status ?? 200, { "content-type": "application/json" })
      response.end(JSON.stringify(reply.body))
    })
  })
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as Net.AddressInfo).port}`,
        received,
        push: (...more) => script.push(...more),
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections()
            server.close(() => done())
          })
      }))
  )
}

/**
 * The endpoint for the lifetime of the scope.
 *
 * @since 0.1.0
 */
export const make = (replies: ReadonlyArray<Reply> = []): Effect.Effect<ScriptedModel, never, Scope.Scope> =>
  Effect.acquireRelease(Effect.promise(() => start(replies)), (model) => Effect.promise(() => model.close()))

/**
 * A tool call as the script writes it.
 *
 * @since 0.1.0
 */
export interface Call {
  readonly name: string
  readonly arguments: unknown
}

const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5 }

/**
 * Replies of OpenAI's Responses API (`POST /responses`).
 *
 * @since 0.1.0
 */
export const openAi = {
  /** A response calling tools (several: a parallel call). */
  calls: (...calls: ReadonlyArray<Call>): Reply => ({
    body: response(calls.map((call, i) => ({
      type: "function_call",
      id: `fc_${i}`,
      call_id: `call_${i}_${call.name}`,
      name: call.name,
      arguments: JSON.stringify(call.arguments),
      status: "completed"
    })))
  }),
  /** A final answer. */
  text: (text: string): Reply => ({
    body: response([{
      type: "message",
      id: "msg_1",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text, annotations: [] }]
    }])
  })
}

const response = (output: ReadonlyArray<unknown>) => ({
  id: "resp_1",
  object: "response",
  created_at: 1767225600,
  status: "completed",
  error: null,
  incomplete_details: null,
  instructions: null,
  max_output_tokens: null,
  model: "gpt-scripted",
  output,
  parallel_tool_calls: true,
  previous_response_id: null,
  reasoning: { effort: null, summary: null },
  store: false,
  temperature: 1,
  text: { format: { type: "text" } },
  tool_choice: "auto",
  tools: [],
  top_p: 1,
  truncation: "disabled",
  usage: { ...usage, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 },
  metadata: {}
})

/**
 * Replies of Anthropic's Messages API (`POST /v1/messages`).
 *
 * @since 0.1.0
 */
export const anthropic = {
  /** A message calling tools (several: a parallel call). */
  calls: (...calls: ReadonlyArray<Call>): Reply => ({
    body: message(
      calls.map((call, i) => ({
        type: "tool_use",
        id: `toolu_${i}_${call.name}`,
        name: call.name,
        input: call.arguments
      })),
      "tool_use"
    )
  }),
  /** A final answer. */
  text: (text: string): Reply => ({ body: message([{ type: "text", text }], "end_turn") })
}

const message = (content: ReadonlyArray<unknown>, stop: string) => ({
  id: "msg_1",
  type: "message",
  role: "assistant",
  model: "claude-scripted",
  content,
  stop_reason: stop,
  stop_sequence: null,
  usage: { input_tokens: 10, output_tokens: 5 }
})
