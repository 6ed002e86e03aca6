/**
 * Real servers for the tests that need them: `redis-server` and `nginx` from the system's
 * packages (Debian: `apt-get install redis-server nginx-light`; `scripts/services.mjs` installs
 * them when it can), each on a free loopback port, in a directory of its own, stopped with the
 * scope. A missing binary fails the test with what to install: nothing is mocked.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"

/**
 * The lowest port the system hands out as the local port of an outgoing connection (Linux:
 * `net.ipv4.ip_local_port_range`, default 32768); elsewhere, 49152 (IANA's dynamic range).
 */
const ephemeralLow = (): number => {
  try {
    const low = Number(Fs.readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0])
    return Number.isInteger(low) && low > 10_000 ? low : 49_152
  } catch {
    return 49_152
  }
}

/** Whether `port` can be bound on 127.0.0.1 now (it is closed again before this answers). */
const bindable = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const server = Net.createServer()
    server.once("error", () => resolve(false))
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)))
  })

/**
 * A free TCP port on 127.0.0.1 (free when asked: bind it soon), below the system's range of
 * ephemeral ports. A port `listen(0)` gives is from that range: once it is closed for a child
 * process to take, any outgoing connection of the machine may be given it as its local port
 * first (the child then fails with EADDRINUSE, and a test waiting for it to listen waits for
 * its timeout). A port below the range is never given that way; it is picked at random (two
 * tests rarely pick one port at once) and tried (50 times at most, then `listen(0)`'s).
 *
 * @since 0.1.0
 */
export const freePort: Effect.Effect<number> = Effect.promise(async () => {
  const low = 10_000
  const high = ephemeralLow() - 1
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low + 1))
    if (await bindable(port)) return port
  }
  return new Promise<number>((resolve) => {
    const server = Net.createServer()
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as Net.AddressInfo).port
      server.close(() => resolve(port))
    })
  })
})

const search = ["/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin", "/opt/homebrew/bin"]

/**
 * The path of a system binary, or a failure that says how to get it (`packages`: the Debian packages
 * to install, by default redis-server and nginx-light).
 *
 * @since 0.1.0
 */
export const binary = (name: string, packages = "redis-server nginx-light"): Effect.Effect<string> =>
  Effect.suspend(() => {
    const dirs = [...(process.env.PATH ?? "").split(Path.delimiter), ...search]
    for (const dir of dirs) {
      const path = Path.join(dir, name)
      if (dir !== "" && Fs.existsSync(path)) return Effect.succeed(path)
    }
    return Effect.dieMessage(
      `${name} is not installed: these tests start a real one (Debian: apt-get install ${packages}; ` +
        `or run node scripts/services.mjs as root)`
    )
  })

/** One attempt to connect to `port`: succeeds once something listens. */
const connects = (port: number): Effect.Effect<void, Error> =>
  Effect.async<void, Error>((resume) => {
    const socket = Net.connect(port, "127.0.0.1")
    socket.once("connect", () => {
      socket.destroy()
      resume(Effect.void)
    })
    socket.once("error", (error) => {
      socket.destroy()
      resume(Effect.fail(error))
    })
    return Effect.sync(() => socket.destroy())
  })

/**
 * Waits until something listens on `port`: tried every 20 ms; the real time bound is a guard
 * against a server that never starts (a process's start takes real time).
 */
const waitForPort = (port: number, timeoutMs: number): Effect.Effect<void> =>
  connects(port).pipe(
    Effect.retry(Schedule.spaced(20)),
    Effect.timeoutFail({ duration: timeoutMs, onTimeout: () => new Error("timeout") }),
    Effect.orDieWith(() => new Error(`nothing listens on port ${port} in ${timeoutMs} ms`)),
    // On the live clock, also in a test that runs on a TestClock: the process starts in real time.
    Effect.withClock(Clock.make())
  )

const exited = (child: ChildProcess.ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once("exit", () => resolve()))

/**
 * A running `redis-server`.
 *
 * @since 0.1.0
 */
export interface RedisServer {
  readonly port: number
  readonly url: string
  /** Kills it (SIGKILL: nothing is saved on the way out). */
  readonly kill: Effect.Effect<void>
  /** Starts it again on the same port and directory (what it persisted, it loads). */
  readonly start: Effect.Effect<void>
  /** Kills it and starts it again. */
  readonly restart: Effect.Effect<void>
  /**
   * Stops it (SIGSTOP): its connections stay open and nothing on them is answered, as a Redis cut
   * off by the network looks. `resume` (SIGCONT) lets it go on.
   */
  readonly pause: Effect.Effect<void>
  readonly resume: Effect.Effect<void>
}

/**
 * Starts `redis-server` on a free port, in the scope's lifetime. With `persist`, it keeps an
 * append-only file (fsync every write), so a restart loses nothing it acknowledged; without,
 * nothing is kept on disk.
 *
 * @since 0.1.0
 */
export const redisServer = (options: { readonly persist?: boolean } = {}): Effect.Effect<
  RedisServer,
  never,
  Scope.Scope
> =>
  Effect.gen(function*() {
    const path = yield* binary("redis-server")
    const port = yield* freePort
    const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "effect-mcp-redis-"))
    yield* Effect.addFinalizer(() => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true })))
    const args = [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--dir",
      dir,
      "--save",
      "",
      "--daemonize",
      "no",
      "--loglevel",
      "warning",
      ...(options.persist === true ? ["--appendonly", "yes", "--appendfsync", "always"] : ["--appendonly", "no"])
    ]
    let child: ChildProcess.ChildProcess | undefined
    const start = Effect.suspend(() => {
      child = ChildProcess.spawn(path, args, { stdio: ["ignore", "ignore", "inherit"] })
      return waitForPort(port, 10_000)
    })
    const kill = Effect.promise(async () => {
      const running = child
      if (running === undefined) return
      child = undefined
      running.kill("SIGKILL")
      await exited(running)
    })
    yield* Effect.acquireRelease(start, () => kill)
    const signal = (name: NodeJS.Signals) => Effect.sync(() => void child?.kill(name))
    return {
      port,
      url: `redis://127.0.0.1:${port}`,
      kill,
      start,
      restart: Effect.zipRight(kill, start),
      pause: signal("SIGSTOP"),
      resume: signal("SIGCONT")
    }
  })

/**
 * `promise`, or a failure saying `what` did not happen within `ms`: a guard on an event a test
 * waits for (an instance's start, a stream's event), never a measure of the time it takes.
 *
 * @since 0.2.0
 * @category waiting
 */
export const within = <A>(promise: Promise<A>, ms: number, what: string): Promise<A> => {
  let timer: ReturnType<typeof setTimeout> | undefined
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)
    })
  ]).finally(() => clearTimeout(timer))
}
