/**
 * The floor of a gateway: a bare pass-through process, plain Node and no Effect, doing the least
 * any gateway in front of one upstream does per call. Each message is parsed and written again
 * (`JSON.parse`, `JSON.stringify`): a `tools/call` to `prefix_name` goes upstream as `name` with
 * an id of the gateway's own, and its answer comes back with the client's id; a notification
 * passes as it came. What `gateway.ts` measures ours against, in the same run.
 *
 * - `node gateway-floor.js stdio PREFIX COMMAND ARGS…`: the upstream spawned over stdio, the
 *   gateway's clients on its own stdin/stdout (the lines of one tick written at once, as ours);
 * - `node gateway-floor.js http PREFIX PORT UPSTREAM_URL`: one session with the upstream
 *   (`initialize`, then keep-alive POSTs), clients on `http://127.0.0.1:PORT/mcp`, each with a
 *   session of its own answered here (`initialize` answered by the gateway; it says `ready` on
 *   stderr once listening).
 *
 * - `node gateway-floor.js http-undici PREFIX PORT UPSTREAM_URL`: the same, its POSTs upstream sent
 *   with undici's `request` (the version `@effect/platform-node` brings, as ours uses, on an
 *   `Agent` with `pipelining: 1` and the same keep-alive as ours) instead of `node:http`: what the
 *   HTTP client alone costs, apart from the rest of a gateway (`gateway-paced.ts`).
 *
 * No bounds, no errors of its own, no asks: a floor, not a gateway.
 */
import { spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import * as http from "node:http"
import { createRequire } from "node:module"

type Message = { id?: string | number | null; method?: string; params?: { name?: string }; [key: string]: unknown }

const [mode, prefix, ...rest] = process.argv.slice(2)
const mounted = `${prefix}_`

/** A downstream message as the upstream gets it: the tool's own name, the gateway's id. */
const upward = (message: Message, id: number): string => {
  if (message.method === "tools/call" && message.params?.name?.startsWith(mounted) === true) {
    message.params.name = message.params.name.slice(mounted.length)
  }
  message.id = id
  return JSON.stringify(message)
}

/** Lines of `chunk` (after what was left of the last one), each to `onLine`; the rest is returned. */
const splitLines = (left: string, chunk: string, onLine: (line: string) => void): string => {
  const text = left + chunk
  let from = 0
  for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", from)) {
    if (at > from) onLine(text.slice(from, at))
    from = at + 1
  }
  return text.slice(from)
}

/** Lines sent in one tick, written together on the next (one write for the lot, as ours). */
const coalesced = (write: (text: string) => void) => {
  let pending = ""
  const flush = () => {
    const text = pending
    pending = ""
    write(text)
  }
  return (line: string) => {
    if (pending === "") process.nextTick(flush)
    pending += line + "\n"
  }
}

const stdio = () => {
  const [command, ...args] = rest
  const upstream = spawn(command!, args, { stdio: ["pipe", "pipe", "inherit"] })
  const ids = new Map<number, string | number | null>()
  let next = 0
  const down = coalesced((text) => process.stdout.write(text))
  const up = coalesced((text) => upstream.stdin.write(text))
  let fromClient = ""
  process.stdin.setEncoding("utf8")
  process.stdin.on("data", (chunk: string) => {
    fromClient = splitLines(fromClient, chunk, (line) => {
      const message = JSON.parse(line) as Message
      if (message.id === undefined) return up(JSON.stringify(message))
      const id = next++
      ids.set(id, message.id)
      up(upward(message, id))
    })
  })
  process.stdin.on("end", () => upstream.stdin.end())
  let fromUpstream = ""
  upstream.stdout.setEncoding("utf8")
  upstream.stdout.on("data", (chunk: string) => {
    fromUpstream = splitLines(fromUpstream, chunk, (line) => {
      const message = JSON.parse(line) as Message
      if (typeof message.id === "number" && message.method === undefined && ids.has(message.id)) {
        message.id = ids.get(message.id)!
        ids.delete(message.id as number)
      }
      down(JSON.stringify(message))
    })
  })
  upstream.on("exit", () => process.exit(0))
}

type Posted = { status: number; text: string; headers: http.IncomingHttpHeaders }

/** undici as `@effect/platform-node` has it (the one ours sends with). */
const undiciOf = () => {
  const require = createRequire(import.meta.url)
  const platform = require.resolve("@effect/platform-node/package.json")
  return createRequire(platform)("undici") as typeof import("@effect/platform-node/Undici").default
}

const httpGateway = async (client: "node" | "undici") => {
  const [port, url] = rest
  const target = new URL(url!)
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 })
  let session: string | undefined
  let revision = "2025-11-25"
  let next = 1
  const undici = client === "undici" ? undiciOf() : undefined
  const dispatcher = undici === undefined
    ? undefined
    : new undici.Agent({ connections: 64, keepAliveTimeout: 4_000, pipelining: 1 })
  const postUndici = async (body: string, resent = false): Promise<Posted> => {
    try {
      const response = await undici!.request(url!, {
        dispatcher: dispatcher!,
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(session !== undefined ? { "mcp-session-id": session, "mcp-protocol-version": revision } : {})
        },
        body
      })
      const text = await response.body.text()
      return { status: response.statusCode, text, headers: response.headers as http.IncomingHttpHeaders }
    } catch (error) {
      if (!resent && (error as { code?: string }).code === "UND_ERR_SOCKET") return postUndici(body, true)
      throw error
    }
  }
  // A POST whose kept-alive socket the upstream closed under it, unanswered (`reusedSocket` and
  // ECONNRESET, as Node's documentation of `request.reusedSocket` says to), is sent again once, as
  // ours is (`httpPost.ts`): else the floor's count holds 502s and the calls sent again after them.
  const postNode = (body: string, resent = false) =>
    new Promise<Posted>((resolve, reject) => {
      const request = http.request({
        agent,
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "content-length": Buffer.byteLength(body),
          ...(session !== undefined ? { "mcp-session-id": session, "mcp-protocol-version": revision } : {})
        }
      }, (response) => {
        let text = ""
        response.setEncoding("utf8")
        response.on("data", (chunk: string) => (text += chunk))
        response.on("end", () => resolve({ status: response.statusCode ?? 0, text, headers: response.headers }))
        response.on("error", reject)
      })
      request.on("error", (error: NodeJS.ErrnoException) => {
        if (!resent && request.reusedSocket && error.code === "ECONNRESET") resolve(postNode(body, true))
        else reject(error)
      })
      request.end(body)
    })
  const post = client === "undici" ? postUndici : postNode
  /** The JSON-RPC answer of a body: plain JSON, or the `data:` of an SSE event. */
  const answerOf = (text: string, type: string | undefined): Message => {
    if (type?.startsWith("text/event-stream") !== true) return JSON.parse(text) as Message
    for (const line of text.split("\n")) {
      if (!line.startsWith("data:")) continue
      const message = JSON.parse(line.slice(5)) as Message
      if ("result" in message || "error" in message) return message
    }
    throw new Error(`no answer in ${text.slice(0, 200)}`)
  }
  const init = await post(JSON.stringify({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: revision, capabilities: {}, clientInfo: { name: "floor", version: "1.0.0" } }
  }))
  session = init.headers["mcp-session-id"] as string | undefined
  const initialized = answerOf(init.text, init.headers["content-type"])
  revision = (initialized.result as { protocolVersion: string }).protocolVersion
  await post(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }))

  const server = http.createServer((request, response) => {
    let body = ""
    request.setEncoding("utf8")
    request.on("data", (chunk: string) => (body += chunk))
    request.on("end", () => {
      const message = JSON.parse(body) as Message
      if (message.id === undefined) {
        response.writeHead(202).end()
        return
      }
      if (message.method === "initialize") {
        const answer = JSON.stringify({ jsonrpc: "2.0", id: message.id, result: initialized.result })
        response.writeHead(200, { "content-type": "application/json", "mcp-session-id": randomUUID() }).end(answer)
        return
      }
      const id = message.id
      post(upward(message, next++)).then(({ headers, status, text }) => {
        const answer = answerOf(text, headers["content-type"])
        answer.id = id
        response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(answer))
      }, (error) => response.writeHead(502).end(String(error)))
    })
  })
  server.keepAliveTimeout = 60_000
  server.listen(Number(port), "127.0.0.1", () => process.stderr.write(`floor gateway ready at :${port}\n`))
}

// Ended by `gateway.ts` with SIGINT: an exit of its own, so that a floor run with `--cpu-prof`
// (`BENCH_GATEWAY_FLAGS`) writes its profile, as the gateway does.
process.on("SIGINT", () => process.exit(0))
if (mode === "stdio") stdio()
else if (mode === "http") void httpGateway("node")
else if (mode === "http-undici") void httpGateway("undici")
else {
  process.stderr.write("usage: gateway-floor.js stdio PREFIX COMMAND ARGS… | http[-undici] PREFIX PORT UPSTREAM_URL\n")
  process.exit(2)
}
