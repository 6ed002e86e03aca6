/**
 * Three demo instances (apps/everything, built) on one real redis-server, behind a real nginx
 * (deploy/cluster.mjs, deploy/nginx.conf: round-robin, no affinity), at the wire: a handshake
 * session served by all three, a sampling request crossing instances, a 2026-07-28 listen on one
 * instance hearing a tool added on another, a GET stream resumed elsewhere after its instance was
 * killed with kill -9, a task whose runner was killed, and Redis restarted under load. Each waits
 * for the event itself (a stream's priming event or acknowledgement, a hold as Redis sees it, a
 * killed instance's connections closing, answers counted), never a guessed delay.
 */
import { RedisConnection } from "@effect-mcp/redis"
import { HttpWire, Services } from "@effect-mcp/test-support"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { type ChildProcess, spawn } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const script = path.join(root, "deploy/cluster.mjs")

interface Cluster {
  readonly url: string
  /** The Redis the instances share. */
  readonly redis: string
  readonly instances: ReadonlyArray<{ readonly port: number; readonly pid: number }>
  /** The MCP endpoint of instance `i`, directly (not through nginx). */
  readonly direct: (i: number) => string
  readonly kill: (i: number) => void
  readonly stop: () => Promise<void>
}

/** Starts deploy/cluster.mjs; resolves once it printed where everything listens. */
const cluster = (args: ReadonlyArray<string> = []): Promise<Cluster> =>
  new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, [script, "--port", "0", ...args], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stderr!.on("data", (chunk) => (stderr += chunk))
    child.once("exit", (code) => reject(new Error(`cluster.mjs exited ${code}: ${stderr}`)))
    child.stdout!.on("data", (chunk) => {
      stdout += chunk
      const at = stdout.indexOf("\n")
      if (at < 0) return
      const started = JSON.parse(stdout.slice(0, at))
      resolve({
        url: started.url,
        redis: started.redis,
        instances: started.instances,
        direct: (i) => `http://127.0.0.1:${started.instances[i].port}/mcp`,
        kill: (i) => process.kill(started.instances[i].pid, "SIGKILL"),
        stop: () =>
          new Promise<void>((done) => {
            child.removeAllListeners("exit")
            child.once("exit", () => done())
            child.kill("SIGTERM")
          })
      })
    })
  })

const using = <A>(args: ReadonlyArray<string>, f: (c: Cluster) => Promise<A>): Promise<A> =>
  cluster(args).then((c) => f(c).finally(() => c.stop()))

const { events, handshakeHeaders, sse } = HttpWire

const post = (url: string, body: unknown, session?: string) =>
  fetch(url, { method: "POST", headers: handshakeHeaders(session), body: JSON.stringify(body) })

const initialize = async (url: string, capabilities: object = {}) => {
  const response = await post(url, {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities, clientInfo: { name: "cluster-test", version: "1" } }
  })
  assert.strictEqual(response.status, 200)
  const session = response.headers.get("mcp-session-id")!
  await response.text()
  assert.strictEqual((await post(url, { jsonrpc: "2.0", method: "notifications/initialized" }, session)).status, 202)
  return session
}

let ids = 100
const call = async (url: string, session: string, name: string, args: object = {}) => {
  const id = ++ids
  const response = await post(
    url,
    { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } },
    session
  )
  if (response.status !== 200) return { status: response.status, message: await response.json() }
  const got = await events(response, (m) => m.id === id && !("method" in m))
  return { status: 200, message: got.at(-1)!.message }
}

const V = "2026-07-28"
const TASKS = "io.modelcontextprotocol/tasks"
/** A 2026-07-28 request: its own headers and `_meta`. */
const stateless = (url: string, method: string, params: Record<string, unknown>, capabilities: object = {}) => {
  const name = (params.name ?? params.taskId) as string | undefined
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": V,
      "mcp-method": method,
      ...(name === undefined ? {} : { "mcp-name": name })
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: ++ids,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": V,
          "io.modelcontextprotocol/clientCapabilities": capabilities,
          "io.modelcontextprotocol/clientInfo": { name: "cluster-test", version: "1" }
        }
      }
    })
  })
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * The guards below bound waits for events (an instance's start, a stream's event, a process's end), never
 * the time those take: three instances, nginx and Redis on a loaded machine take what they take.
 */
const eventGuard = 30_000
/** Each test: a cluster started and stopped, and the waits of its steps. */
const testGuard = 120_000

const within = Services.within

/** The instances' Redis, to see what they hold there. */
const redisOf = async (url: string) => {
  const scope = Effect.runSync(Scope.make())
  const connection = await Effect.runPromise(Scope.extend(RedisConnection.make({ url }), scope))
  /** How many connections are subscribed to the session's standalone channel (the instances holding its GET stream). */
  const holders = async (session: string) => {
    const [, count] = (await connection.redis.pubsub("NUMSUB", `mcp:standalone:${session}`)) as [string, number]
    return Number(count)
  }
  return {
    /**
     * Until the instances holding the session's GET stream are `count` in Redis's eyes: polled (Redis
     * tells no one when a channel's subscribers change).
     */
    held: (session: string, count: number) =>
      within(
        (async () => {
          while ((await holders(session)) !== count) await sleep(20)
        })(),
        eventGuard,
        `${count} holders of the session's stream in Redis`
      ),
    close: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

describe("three instances behind nginx, sharing Redis", () => {
  it(
    "one handshake session: its calls spread over all three, through nginx and at each instance",
    () =>
      using([], async (c) => {
        const session = await initialize(c.url)
        for (let i = 0; i < 3; i++) {
          const answer = await call(c.direct(i), session, "add", { a: i, b: 1 })
          assert.deepStrictEqual(answer.message.result.structuredContent, { sum: i + 1 }, `instance ${i}`)
        }
        for (let i = 0; i < 9; i++) {
          const answer = await call(c.url, session, "add", { a: i, b: 2 })
          assert.deepStrictEqual(answer.message.result.structuredContent, { sum: i + 2 })
        }
        // A DELETE through nginx ends it on every instance.
        const deleted = await fetch(c.url, { method: "DELETE", headers: handshakeHeaders(session) })
        assert.strictEqual(deleted.status, 200)
        for (let i = 0; i < 3; i++) {
          assert.strictEqual((await call(c.direct(i), session, "add", { a: 1, b: 1 })).status, 404)
        }
      }),
    testGuard
  )

  it("a sampling request raised on instance 1 is answered by a POST to instance 2", () =>
    using([], async (c) => {
      const session = await initialize(c.url, { sampling: {} })
      const response = await post(c.direct(0), {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "test_sampling", arguments: { prompt: "2+2?" } }
      }, session)
      const reader = response.body!.getReader()
      const decoder = new TextDecoder()
      let text = ""
      while (!text.includes("sampling/createMessage")) text += decoder.decode((await reader.read()).value)
      const ask = JSON.parse(text.split("\n").find((l) => l.includes("sampling/createMessage"))!.slice(5))
      const answered = await post(c.direct(1), {
        jsonrpc: "2.0",
        id: ask.id,
        result: { role: "assistant", content: { type: "text", text: "4" }, model: "m" }
      }, session)
      assert.strictEqual(answered.status, 202)
      while (!text.includes(`"id":1,`) && !text.includes(`"id":1}`)) {
        const { done, value } = await reader.read()
        if (done) break
        text += decoder.decode(value)
      }
      assert.include(text, "LLM response: 4")
    }), testGuard)

  it("a 2026-07-28 listen on instance 1 hears a tool added on instance 2", () =>
    using([], async (c) => {
      const listen = await stateless(c.direct(0), "subscriptions/listen", { notifications: { toolsListChanged: true } })
      assert.strictEqual(listen.status, 200)
      const stream = sse(listen)
      // Its acknowledgement comes first, once the listen is in place.
      await stream.next((e) => e.message?.method === "notifications/subscriptions/acknowledged", "the acknowledgement")
      const heard = stream.next((e) => e.message?.method === "notifications/tools/list_changed", "tools/list_changed")
      const added = await stateless(c.direct(1), "tools/call", { name: "editTools", arguments: { action: "add" } })
      assert.include(JSON.stringify(await added.json()), "Added the tool dynamic")
      assert.strictEqual((await heard).message.method, "notifications/tools/list_changed")
      await stream.cancel()
    }), testGuard)

  it(
    "a GET stream whose instance is killed with kill -9 resumes on another, and hears what comes next",
    () =>
      using([], async (c) => {
        const session = await initialize(c.url)
        const get = (i: number, lastEventId?: string) =>
          fetch(c.direct(i), {
            headers: {
              accept: "text/event-stream",
              "mcp-session-id": session,
              "mcp-protocol-version": "2025-11-25",
              ...(lastEventId === undefined ? {} : { "last-event-id": lastEventId })
            }
          })
        const redis = await redisOf(c.redis)
        try {
          const response = await get(0)
          assert.strictEqual(response.status, 200)
          const first = sse(response)
          // Held on instance 0: its priming event came, and it listens in Redis for the session.
          await first.next((e) => e.id !== undefined && e.message === undefined, "the priming event")
          await redis.held(session, 1)
          const heard = first.next((e) => e.message?.method === "notifications/tools/list_changed", "list_changed")
          await call(c.direct(2), session, "editTools", { action: "add" })
          const lastId = (await heard).id!
          assert.isDefined(lastId)
          c.kill(0)
          // Dead: its connections closed (the stream's, and its subscription in Redis).
          await within(first.ended, eventGuard, "instance 0's end")
          await redis.held(session, 0)
          const resumed = await get(1, lastId)
          assert.strictEqual(resumed.status, 200)
          const next = sse(resumed)
          await redis.held(session, 1)
          const told = next.next((e) => e.message?.method === "notifications/tools/list_changed", "list_changed")
          await call(c.direct(2), session, "editTools", { action: "remove" })
          assert.strictEqual((await told).message.method, "notifications/tools/list_changed")
          await next.cancel()
        } finally {
          await redis.close()
        }
        // nginx goes on without the dead instance.
        for (let i = 0; i < 6; i++) assert.strictEqual((await call(c.url, session, "add", { a: 1, b: 1 })).status, 200)
      }),
    testGuard
  )

  it(
    "a change raised while the GET stream's instance is dead (kill -9) is told when the stream resumes on another",
    () =>
      using([], async (c) => {
        const session = await initialize(c.url)
        const get = (i: number, lastEventId?: string) =>
          fetch(c.direct(i), {
            headers: {
              accept: "text/event-stream",
              "mcp-session-id": session,
              "mcp-protocol-version": "2025-11-25",
              ...(lastEventId === undefined ? {} : { "last-event-id": lastEventId })
            }
          })
        const redis = await redisOf(c.redis)
        try {
          const response = await get(0)
          assert.strictEqual(response.status, 200)
          const first = sse(response)
          await first.next((e) => e.id !== undefined && e.message === undefined, "the priming event")
          await redis.held(session, 1)
          const heard = first.next((e) => e.message?.method === "notifications/tools/list_changed", "list_changed")
          await call(c.direct(2), session, "editTools", { action: "add" })
          const lastId = (await heard).id!
          c.kill(0)
          // Dead, in the eyes of its stream and of Redis: no instance holds the stream now.
          await within(first.ended, eventGuard, "instance 0's end")
          await redis.held(session, 0)
          // Raised while no instance holds the stream: nothing else is raised after it.
          const removed = await call(c.direct(2), session, "editTools", { action: "remove" })
          assert.strictEqual(removed.status, 200)
          const resumed = await get(1, lastId)
          assert.strictEqual(resumed.status, 200)
          // Before: the resumed stream stayed silent (status 200 and nothing), where one instance replays it.
          const told = await events(resumed, (m) => m.method === "notifications/tools/list_changed", eventGuard)
          assert.strictEqual(told.at(-1)?.message.method, "notifications/tools/list_changed", JSON.stringify(told))
        } finally {
          await redis.close()
        }
      }),
    testGuard
  )

  it(
    "a task created through instance 1, polled through 2 and 3: its runner killed, it fails once its lease lapses",
    () =>
      using(["--task-lease", "2"], async (c) => {
        const created = await (await stateless(c.direct(0), "tools/call", {
          name: "slow_compute",
          arguments: { seconds: 600 }
        }, { extensions: { [TASKS]: {} } })).json()
        const taskId = created.result.taskId ?? created.result.task?.taskId
        assert.isString(taskId, JSON.stringify(created))
        const status = async (i: number) => {
          const got = await (await stateless(c.direct(i), "tasks/get", { taskId }, { extensions: { [TASKS]: {} } }))
            .json()
          return got.result
        }
        assert.strictEqual((await status(1)).status, "working")
        assert.strictEqual((await status(2)).status, "working")
        c.kill(0)
        // Polled, as a client follows a task (tasks/get), through instances 1 and 2 in turn, until it is
        // no longer working: the lease (2 s) lapses, an instance's renewal round finds it and fails it.
        const started = Date.now()
        let last: any
        for (let i = 0; Date.now() - started < eventGuard; i++) {
          last = await status(1 + (i % 2))
          if (last.status !== "working") break
          await sleep(250)
        }
        assert.strictEqual(last.status, "failed", JSON.stringify(last))
        assert.include(JSON.stringify(last), "lost")
      }),
    testGuard
  )

  it.live(
    "Redis restarted during load: calls made meanwhile are refused (503), none hangs, the session goes on",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const redis = yield* Services.redisServer({ persist: true })
        yield* Effect.promise(() =>
          using(["--redis", redis.url], async (c) => {
            const session = await initialize(c.url)
            const statuses: Array<number> = []
            /** Who waits on the answers: told of each. */
            const waiting = new Set<() => void>()
            let running = true
            const load = (async () => {
              while (running) {
                // A call waits for Redis at most the server's commandTimeout (5 s): unanswered after 30, it hangs.
                const answer = await Promise.race([
                  call(c.url, session, "add", { a: 1, b: 2 }),
                  sleep(30_000).then(() => ({ status: -1 }))
                ])
                statuses.push(answer.status)
                for (const check of [...waiting]) check()
              }
            })()
            /** Until the calls answered so far say `done` (checked as each answer comes). */
            const until = (done: () => boolean, what: string) =>
              within(
                new Promise<void>((resolve) => {
                  const check = () => {
                    if (!done()) return
                    waiting.delete(check)
                    resolve()
                  }
                  waiting.add(check)
                  check()
                }),
                eventGuard,
                what
              )
            const served = (from: number) => statuses.slice(from).filter((s) => s === 200).length
            await until(() => served(0) >= 5, "five calls served before the restart")
            await Effect.runPromise(redis.restart)
            // Served again: the last five calls after the restart answered 200.
            const restarted = statuses.length
            await until(
              () => statuses.length - restarted >= 5 && statuses.slice(-5).every((s) => s === 200) && served(0) > 10,
              "five calls in a row served after the restart"
            )
            running = false
            await load
            assert.notInclude(statuses, -1, "a call hung")
            assert.notInclude(statuses, 404, "the session was lost")
            assert.isTrue(statuses.every((s) => s === 200 || s === 503), JSON.stringify(statuses))
            assert.strictEqual(statuses.at(-1), 200)
            assert.isAbove(statuses.filter((s) => s === 200).length, 10)
          })
        )
      })),
    testGuard
  )
})
