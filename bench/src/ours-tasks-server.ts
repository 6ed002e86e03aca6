/**
 * effect-mcp serving one task tool over Streamable HTTP (`NodeMcpServer.layerHttp`), for the
 * tasks benchmark (`tasks.ts`): `sleep` (`{ ms }` → `"done"` after `ms` milliseconds, `task:
 * "optional"`), which runs as a task when the call asks for one (2025-11-25 `params.task`, or
 * 2026-07-28 with the `io.modelcontextprotocol/tasks` extension declared) and as a plain call
 * otherwise: the plain call is the floor of the task's overhead.
 *
 * - `--revisions handshake|stateless` (`ours-add.ts`): the handshake era (sessions; tasks of
 *   2025-11-25) or the stateless 2026-07-28 alone (the extension);
 * - `--task-ttl <ms>`: `taskTtl`, how long a task is kept after its creation when the client does
 *   not say (2026-07-28 never does); default 60,000;
 * - `taskPollInterval` 100 ms, and the in-memory `TaskStore` with its bounds raised past what the
 *   benchmark holds (`maxTasks` and `maxTasksPerOwner` 200,000 instead of 10,000 and 1,000:
 *   stateless, every task of the benchmark has one owner, its client's name), `maxBytes` 512 MiB,
 *   swept every second (its default);
 * - up to 1,000 sessions (idle for an hour), 20,000 connections;
 * - the floor of a working task's memory, its handler alone: control commands (`control.ts`)
 *   `floor-start` → `floor N`, N (`--floor-fibers`, default 1,000) fibers of the server's runtime
 *   each running the tool's own `run` of `sleep { ms: 1 hour }` (what a task's fiber runs, with
 *   none of the task around it), and `floor-stop` → `floored`, interrupting them.
 *
 * Logs go to stderr; stdout is the control channel of `control.ts`.
 *
 * `node dist/ours-tasks-server.js --port N [--revisions handshake|stateless] [--task-ttl ms]`
 */
import { NodeMcpServer } from "@effect-mcp/platform-node"
import { McpServer, TaskStore, Tool } from "@effect-mcp/server"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import { port, ready } from "./control.js"
import { revisionsArg, revisionSets } from "./ours-add.js"

/** The store's bounds (`tasks.ts` prints them: keep the two alike). */
const storeBounds = {
  maxTasks: 200_000,
  maxTasksPerOwner: 200_000,
  maxBytes: 512 * 1024 * 1024,
  sweepInterval: "1 second"
} as const

const Sleep = Tool.make("sleep", {
  description: "Sleeps for ms milliseconds, then answers done",
  parameters: Schema.Struct({ ms: Schema.Number }),
  task: "optional"
}, ({ ms }) => Effect.as(Effect.sleep(ms), "done"))

const at = process.argv.indexOf("--task-ttl")
const taskTtl = at > 0 ? Number(process.argv[at + 1]) : 60_000
if (!Number.isInteger(taskTtl) || taskTtl <= 0) {
  process.stderr.write(`--task-ttl ${process.argv[at + 1]}: a positive number of milliseconds\n`)
  process.exit(2)
}

const Server = McpServer.layer({
  serverInfo: { name: "bench-tasks", version: "1.0.0" },
  tools: [Sleep],
  revisions: revisionSets[revisionsArg()],
  taskTtl: `${taskTtl} millis`,
  taskPollInterval: "100 millis"
}).pipe(Layer.provide(TaskStore.layerMemory(storeBounds)))

const floorAt = process.argv.indexOf("--floor-fibers")
const floorFibers = floorAt > 0 ? Number(process.argv[floorAt + 1]) : 1_000

/** The floor's fibers, while they run. */
const floor: { fibers: Array<Fiber.RuntimeFiber<unknown, unknown>> } = { fibers: [] }

/** `floor-start` and `floor-stop`, in the server's runtime. */
const floorCommands = (runtime: Runtime.Runtime<never>) => ({
  "floor-start": async () => {
    for (let i = 0; i < floorFibers; i++) floor.fibers.push(Runtime.runFork(runtime, Sleep.run({ ms: 3_600_000 })))
    // Each has reached its sleep.
    await new Promise((resolve) => setTimeout(resolve, 100))
    return `floor ${floor.fibers.length}`
  },
  "floor-stop": async () => {
    await Runtime.runPromise(runtime, Fiber.interruptAll(floor.fibers))
    floor.fibers = []
    return "floored"
  }
})

const Http = NodeMcpServer.layerHttp({
  path: "/mcp",
  port: port(),
  host: "127.0.0.1",
  sessionIdleTimeout: "1 hour",
  maxSessions: 1_000,
  maxConnections: 20_000
})

Http.pipe(
  Layer.provideMerge(Server),
  Layer.tap(() => Effect.map(Effect.runtime<never>(), (runtime) => ready(floorCommands(runtime)))),
  Layer.launch,
  Effect.tapErrorCause(Effect.logError),
  Effect.provide(NodeMcpServer.layerStderrLogger),
  NodeRuntime.runMain({ disableErrorReporting: true, disablePrettyLogger: true })
)
