// Starts, on loopback: a redis-server (unless --redis names one), N instances of the demo server sharing
// it, and nginx in front of them (deploy/nginx.conf: round-robin, no affinity). Prints one JSON line on
// stdout once everything listens ({ url, redis, instances: [{ port, pid }], nginx: { port, pid } }), logs
// on stderr, and stops everything on SIGINT or SIGTERM (or when one of its processes dies, with --strict).
//
//   node deploy/cluster.mjs [--instances 3] [--port 8080] [--redis redis://127.0.0.1:6379] [--era dual]
//                           [--idle-timeout SECONDS] [--task-lease SECONDS] [--redis-maxmemory 256mb]
//
// The Redis it starts has a memory limit and refuses writes past it (maxmemory, maxmemory-policy
// noeviction): see "Redis's memory" below. A Redis of your own (--redis) needs the same.
//
// The demo must be built first (`pnpm cluster` builds it). The instances share one MCP_REQUEST_STATE_KEY
// (the environment's, else a random one), so a 2026-07-28 multi-round trip may move between them.
import { spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { connect, createServer } from "node:net"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"

const root = dirname(dirname(fileURLToPath(import.meta.url)))
const { values } = parseArgs({
  options: {
    instances: { type: "string", default: "3" },
    port: { type: "string", default: "8080" },
    redis: { type: "string" },
    era: { type: "string", default: "dual" },
    "idle-timeout": { type: "string" },
    "task-lease": { type: "string" },
    "redis-maxmemory": { type: "string", default: "256mb" }
  }
})
const count = Number(values.instances)
const port = Number(values.port)
if (!Number.isInteger(count) || count < 1 || !Number.isInteger(port) || port < 0) {
  process.stderr.write("usage: node deploy/cluster.mjs [--instances N] [--port P] [--redis URL] [--era E]\n")
  process.exit(2)
}
const demo = join(root, "apps/everything/dist/main.js")
if (!existsSync(demo)) {
  process.stderr.write(`${demo} is missing: build the demo first (pnpm cluster does)\n`)
  process.exit(1)
}

const say = (line) => process.stderr.write(`cluster: ${line}\n`)
const children = []
let stopping = false
const stop = (code) => {
  if (stopping) return
  stopping = true
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM")
  setTimeout(() => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
    rmSync(work, { recursive: true, force: true })
    process.exit(code)
  }, 1500).unref()
}
process.on("SIGINT", () => stop(0))
process.on("SIGTERM", () => stop(0))

const freePort = () =>
  new Promise((resolve) => {
    const server = createServer()
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })

// A bound on a start that never comes, not on how long one takes: on a loaded machine a Node instance takes seconds.
const listening = (port, ms = 60_000) =>
  new Promise((resolve, reject) => {
    const deadline = Date.now() + ms
    const attempt = () => {
      const socket = connect(port, "127.0.0.1")
      socket.once("connect", () => {
        socket.destroy()
        resolve()
      })
      socket.once("error", () => {
        socket.destroy()
        if (Date.now() > deadline) reject(new Error(`nothing listens on ${port}`))
        else setTimeout(attempt, 25)
      })
    }
    attempt()
  })

const binary = (name) =>
  [...(process.env.PATH ?? "").split(":"), "/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"]
    .map((dir) => join(dir, name))
    .find((path) => existsSync(path))

const run = (name, command, args, env = process.env) => {
  const child = spawn(command, args, { stdio: ["ignore", "ignore", "inherit"], env })
  child.once("exit", (code, signal) => {
    if (!stopping) say(`${name} (pid ${child.pid}) exited (${signal ?? code})`)
  })
  children.push(child)
  return child
}

const work = mkdtempSync(join(tmpdir(), "effect-mcp-cluster-"))

// Redis's memory. What the instances keep there has bounds of its own: events 64 MiB across sessions
// (RedisEventStore maxBytes, trimmed from the largest session), tasks 64 MiB (RedisTaskStore maxBytes),
// sessions 10,000 (--max-sessions) of about 1 KB each with at most 256 KiB of frames waiting for each one's
// GET stream, a change log of 1,000 entries, bookkeeping that has no TTL (the live set, the sums, the task
// indexes). 256 MB holds all of it with room for Redis's own buffers.
//
// Past it, noeviction: Redis refuses what would take more, and that is loud and safe (a request that needs
// shared state gets a 503 with a JSON-RPC error; an event that could not be stored makes a resumption across
// it refused, never served with a gap). An eviction policy would drop keys silently: allkeys-* also the
// bookkeeping that has no TTL (the live set: maxSessions no longer holds; the sums: budgets that no longer
// count), and volatile-* what has one: a live session's record (its client gets 404 and starts again), a
// task and its result, and an instance's claim on its key (30 s TTL, first to go under volatile-ttl: another
// instance may then claim it, and answers to server-to-client requests reach the wrong one). Only the events
// could go safely, and the event store already trims those itself, fairly, within its budget.
let redis = values.redis
let redisPid
if (redis === undefined) {
  const server = binary("redis-server")
  if (server === undefined) {
    say("redis-server is not installed (Debian: apt-get install redis-server), or give --redis URL")
    process.exit(1)
  }
  const redisPort = await freePort()
  const child = run("redis-server", server, [
    "--port",
    String(redisPort),
    "--bind",
    "127.0.0.1",
    "--dir",
    work,
    "--save",
    "",
    "--appendonly",
    "yes",
    "--loglevel",
    "warning",
    "--maxmemory",
    values["redis-maxmemory"],
    "--maxmemory-policy",
    "noeviction"
  ])
  redisPid = child.pid
  await listening(redisPort)
  redis = `redis://127.0.0.1:${redisPort}`
}

// The instances
const key = process.env.MCP_REQUEST_STATE_KEY ?? randomBytes(32).toString("base64")
const instances = []
for (let i = 0; i < count; i++) {
  const instancePort = await freePort()
  // nginx (deploy/nginx.conf) appends the client's address to X-Forwarded-For: the one proxy trusted.
  const args = [
    demo,
    "http",
    "--port",
    String(instancePort),
    "--redis",
    redis,
    "--era",
    values.era,
    "--trusted-proxies",
    "1"
  ]
  if (values["idle-timeout"] !== undefined) args.push("--idle-timeout", values["idle-timeout"])
  if (values["task-lease"] !== undefined) args.push("--task-lease", values["task-lease"])
  const child = run(`instance ${i + 1}`, process.execPath, args, { ...process.env, MCP_REQUEST_STATE_KEY: key })
  instances.push({ port: instancePort, pid: child.pid })
}
await Promise.all(instances.map((instance) => listening(instance.port)))

// nginx
const nginx = binary("nginx")
if (nginx === undefined) {
  say("nginx is not installed (Debian: apt-get install nginx-light)")
  stop(1)
} else {
  const nginxPort = port === 0 ? await freePort() : port
  for (const dir of ["client_body", "proxy", "fastcgi", "uwsgi", "scgi", "logs"]) mkdirSync(join(work, dir))
  const conf = readFileSync(join(root, "deploy/nginx.conf"), "utf8")
    .replaceAll("@PREFIX@", work)
    .replace("@LISTEN@", `127.0.0.1:${nginxPort}`)
    .replace(
      "@UPSTREAMS@",
      instances.map((instance) => `    server 127.0.0.1:${instance.port} max_fails=1 fail_timeout=2s;`).join("\n")
    )
  writeFileSync(join(work, "nginx.conf"), conf)
  const child = run("nginx", nginx, ["-p", work, "-c", join(work, "nginx.conf"), "-e", "stderr", "-g", "daemon off;"])
  await listening(nginxPort)
  const url = `http://127.0.0.1:${nginxPort}/mcp`
  say(`${url}: nginx (pid ${child.pid}) in front of ${count} instances on ${redis}; Ctrl-C stops everything`)
  process.stdout.write(
    `${JSON.stringify({ url, redis, redisPid, instances, nginx: { port: nginxPort, pid: child.pid } })}\n`
  )
}
