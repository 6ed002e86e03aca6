/**
 * The `mcp` command (apps/cli, built) against apps/everything over stdio and HTTP: readable
 * output and `--json`, both eras, and a failure is one line on stderr with a non-zero exit; against a
 * stdio server that fails at startup, how it ended and the last lines of its stderr.
 */
import { Services } from "@effect-mcp/test-support"
import { assert, describe, it, vi } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Programs from "../support/Programs.js"

// Each test waits on child processes (each `mcp` and each demo a Node process of about a second of CPU): on a
// loaded machine (load 20 on 2 cores) a few of them one after another take past 30 s.
vi.setConfig({ testTimeout: 120_000 })

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const mcpMain = Programs.mcpMain
const everything = Programs.demoMain
const stdio = `stdio:${process.execPath} ${everything} stdio`

/** `node file ...args`, no input: its exit code and what it wrote. */
const node = (file: string, ...args: ReadonlyArray<string>) =>
  new Promise<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [file, ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

const mcp = (...args: ReadonlyArray<string>) => node(mcpMain, ...args)

/**
 * apps/everything over HTTP on a port of its own choosing (`--port 0`: no port probed free here and taken by
 * another process before the demo listens), once it says where it listens: its URL, and `kill` to end it. A demo
 * that ends first fails this with what it said.
 */
const everythingOverHttp = async () => {
  const server = spawn(process.execPath, [everything, "http", "--port", "0"], {
    cwd: root,
    stdio: ["ignore", "ignore", "pipe"]
  })
  let said = ""
  const url = await new Promise<string>((resolve, reject) => {
    server.stderr.on("data", (chunk) => {
      said += chunk
      const listening = /listening on (http:\/\/\S+)\n/.exec(said)
      if (listening !== null) resolve(listening[1]!)
    })
    server.on(
      "exit",
      (code, signal) => reject(new Error(`the demo ended (${code ?? signal}) before listening:\n${said}`))
    )
  })
  return { url, kill: () => server.kill() }
}

describe("mcp over stdio", () => {
  it("tools: a readable list; --json: the tools as listed", async () => {
    const readable = await mcp("tools", stdio)
    assert.strictEqual(readable.code, 0, readable.stderr)
    assert.match(readable.stdout, /^add\s+Adds two numbers$/m)
    const listed = await mcp("tools", stdio, "--json")
    const tools = JSON.parse(listed.stdout) as Array<{ readonly name: string; readonly inputSchema: unknown }>
    assert.isDefined(tools.find((t) => t.name === "add")?.inputSchema)
    // The target's words unquoted, as a shell passes `mcp tools stdio:node dist/server.js`: the same list.
    const unquoted = await mcp("tools", `stdio:${process.execPath}`, everything, "stdio")
    assert.strictEqual(unquoted.code, 0, unquoted.stderr)
    assert.strictEqual(unquoted.stdout, readable.stdout)
  })

  it("call: the tool's text; --era handshake and stateless alike", async () => {
    for (const era of ["handshake", "stateless"]) {
      const result = await mcp("call", stdio, "add", "--args", "{\"a\":20,\"b\":22}", "--era", era)
      assert.strictEqual(result.code, 0, result.stderr)
      assert.strictEqual(result.stdout.trim(), "{\"sum\":42}")
    }
  })

  it("call: progress goes to stderr (a line per report off a terminal), the result alone to stdout", async () => {
    const result = await mcp("call", stdio, "longRunning", "--args", "{\"duration\":0.2,\"steps\":2}")
    assert.strictEqual(result.code, 0, result.stderr)
    assert.strictEqual(result.stdout.trim(), "Long running operation completed: 2 steps in 0.2 seconds")
    assert.deepStrictEqual(result.stderr.trim().split("\n"), [
      "longRunning: 1/2 Step 1 of 2",
      "longRunning: 2/2 Step 2 of 2"
    ])
  })

  it("discover names the server and its era", async () => {
    const result = await mcp("discover", stdio, "--json")
    const found = JSON.parse(result.stdout)
    assert.strictEqual(found.serverInfo.name, "effect-mcp-everything")
    assert.strictEqual(found.era, "stateless")
  })

  it("a failure is one line on stderr, nothing on stdout, exit 1", async () => {
    for (
      const args of [
        ["read", stdio, "test://missing"],
        ["tools", "nowhere"],
        ["call", stdio, "add", "--args", "[1]"],
        ["tools", "stdio:/nonexistent/server"]
      ]
    ) {
      const result = await mcp(...args)
      assert.strictEqual(result.code, 1, args.join(" "))
      assert.strictEqual(result.stdout, "", args.join(" "))
      assert.match(result.stderr, /^mcp: [^\n]+\n$/, args.join(" "))
    }
  })
})

describe("mcp over HTTP", () => {
  it("listen prints the changes a call makes", async () => {
    const server = await everythingOverHttp()
    try {
      const { url } = server
      const listening = spawn(process.execPath, [mcpMain, "listen", url, "--tools"], {
        cwd: root,
        stdio: ["ignore", "pipe", "pipe"]
      })
      let out = ""
      // Resolves once the listener printed the change.
      const printed = new Promise<void>((resolve) =>
        listening.stdout.on("data", (chunk) => {
          out += chunk
          if (out.includes("notifications/tools/list_changed")) resolve()
        })
      )
      // Its "listening" line, however the pipe cuts it into chunks; or, if it ends first, why.
      let err = ""
      await new Promise<void>((resolve, reject) => {
        listening.stderr.on("data", (chunk) => {
          err += chunk
          if (err.includes("listening")) resolve()
        })
        listening.on("exit", (code) => reject(new Error(`mcp listen exited (${code}) before listening: ${err}`)))
      })
      const edit = await mcp("call", url, "editTools", "--args", "{\"action\":\"add\"}")
      assert.strictEqual(edit.code, 0, edit.stderr)
      // Printed, or 30 seconds at most (a guard, for the assertion below to say what came instead).
      await Promise.race([printed, new Promise((resolve) => setTimeout(resolve, 30_000).unref())])
      listening.kill()
      assert.include(out, "notifications/tools/list_changed")
    } finally {
      server.kill()
    }
  })
})

describe("mcp against a stdio server that fails at startup", () => {
  it("tools: the exit code and the server's own stderr line, nothing on stdout, exit 1", async () => {
    // The target's words are split as a shell splits them: the script is one quoted word.
    const failing = `stdio:'${process.execPath}' -e 'console.error("boom: no config"); process.exit(2)'`
    for (const era of ["auto", "handshake", "stateless"]) {
      const result = await mcp("tools", failing, "--era", era)
      assert.strictEqual(result.code, 1, era)
      assert.strictEqual(result.stdout, "", era)
      assert.match(
        result.stderr,
        /^mcp: Transport closed before \S+ was answered; the server exited with code 2; its stderr ended with:\n  boom: no config\n$/,
        era
      )
    }
  })

  it("a target with a shell operator is refused in one line, since no shell runs it", async () => {
    const result = await mcp("tools", `stdio:${process.execPath} server.js | tee log`)
    assert.strictEqual(result.code, 1)
    assert.strictEqual(result.stdout, "")
    assert.match(
      result.stderr,
      /^mcp: cannot run "stdio:.*": \| is a shell operator, and the command is run without a shell/
    )
  })
})

describe("the demo's command line", () => {
  const demo = (...args: ReadonlyArray<string>) => node(everything, ...args)

  it("refuses what it does not know with one line and the usage, exit 2, nothing on stdout", async () => {
    for (
      const [args, line] of [
        [["stdio", "--prot", "3000"], "Unknown option '--prot'"],
        [["http", "--port", "abc"], "--port must be a whole number of at least 0, not abc"],
        [["stdio", "--port", "3000"], "--port is not an option of stdio"],
        [["stdio", "extra"], "unexpected argument: extra"],
        [["serve"], "unknown mode: serve"],
        [["stdio", "--era", "modern"], "unknown era: modern"],
        [["http", "--max-sessions"], "Option '--max-sessions <value>' argument missing"]
      ] as const
    ) {
      const result = await demo(...args)
      assert.strictEqual(result.code, 2, args.join(" "))
      assert.strictEqual(result.stdout, "", args.join(" "))
      assert.strictEqual(result.stderr.split("\n")[0], line, args.join(" "))
      assert.include(result.stderr, "usage: node apps/everything/dist/main.js <mode>", args.join(" "))
    }
  })
})

describe("mcp's usage errors", () => {
  it("are @effect/cli's own line, once, exit 1: never [object Object]", async () => {
    for (
      const [args, line] of [
        [["tools"], "Missing argument <target>"],
        [["--bogus"], "Invalid subcommand for mcp"]
      ] as const
    ) {
      const result = await mcp(...args)
      assert.strictEqual(result.code, 1, args.join(" "))
      assert.strictEqual(result.stdout, "", args.join(" "))
      assert.include(result.stderr, line, args.join(" "))
      assert.notInclude(result.stderr, "[object Object]", args.join(" "))
      assert.notInclude(result.stderr, "mcp: ", args.join(" "))
    }
  })
})

/** `command` run under a pseudo-terminal (util-linux's `script`), with `env`: what it wrote. */
const underTerminal = (command: string, env: Readonly<Record<string, string>>) =>
  new Promise<string>((resolve) => {
    const child = spawn("script", ["-qec", command, "/dev/null"], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let out = ""
    child.stdout.on("data", (chunk) => (out += chunk))
    child.on("close", () => resolve(out))
  })

describe("mcp --help", () => {
  it("has no colour codes off a terminal, nor on one under NO_COLOR; colour on a terminal otherwise", async () => {
    const escape = "\x1b["
    const piped = await mcp("--help")
    assert.strictEqual(piped.code, 0)
    assert.include(piped.stdout, "USAGE")
    assert.notInclude(piped.stdout, escape)
    const command = `'${process.execPath}' '${mcpMain}' --help`
    const noColour = await underTerminal(command, { NO_COLOR: "1" })
    assert.include(noColour, "USAGE")
    assert.notInclude(noColour, escape)
    const { NO_COLOR: _, ...rest } = process.env
    const coloured = await underTerminal(command, { ...rest, NO_COLOR: "" } as Record<string, string>)
    assert.include(coloured, escape)
  })
})

describe("mcp says what happened, in one line", () => {
  it("nothing listening: mcp: cannot connect to <url> (connection refused)", async () => {
    const port = await Effect.runPromise(Services.freePort)
    const url = `http://127.0.0.1:${port}/mcp`
    const result = await mcp("tools", url)
    assert.strictEqual(result.code, 1)
    assert.strictEqual(result.stdout, "")
    assert.strictEqual(result.stderr, `mcp: cannot connect to ${url} (connection refused)\n`)
  })

  it("--timeout: the whole of one request, its progress notwithstanding", async () => {
    // A server already up: the second is the request's, not the time a child takes to start.
    const server = await everythingOverHttp()
    try {
      // Ten minutes of work, a progress every 0.6 s: a timeout reset by progress would never end it (the
      // test's own guard would); its message says it came from the 1 s timeout.
      const result = await mcp(
        "call",
        server.url,
        "longRunning",
        "--args",
        "{\"duration\":600,\"steps\":1000}",
        "--timeout",
        "1",
        "--era",
        "handshake"
      )
      assert.strictEqual(result.code, 1)
      assert.strictEqual(result.stdout, "")
      assert.match(
        result.stderr.trim().split("\n").at(-1)!,
        /^mcp: Request tools\/call \(id \d+\) timed out after 1s$/
      )
    } finally {
      server.kill()
    }
  })
})
