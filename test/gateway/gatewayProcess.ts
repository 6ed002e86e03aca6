/**
 * `mcp gateway` (apps/cli, built) as a child process, for the gateway's tests: over stdio with our
 * client, or over HTTP on a free port (its URL once it says it serves).
 */
import { McpClient } from "@effect-mcp/client"
import { NodeMcpClient } from "@effect-mcp/platform-node"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { spawn } from "node:child_process"
import * as net from "node:net"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
export const mcpMain = path.join(root, "apps/cli/dist/main.js")

/** Our client (handshake era) of `mcp gateway --config FILE ...args` over stdio, for the scope. */
export const overStdio = (file: string, name: string, args: ReadonlyArray<string> = []) =>
  Effect.map(
    Layer.build(
      McpClient.layer({ clientInfo: { name, version: "1.0.0" }, era: "handshake" }).pipe(
        Layer.provide(NodeMcpClient.layerStdio({
          command: process.execPath,
          args: [mcpMain, "gateway", "--config", file, ...args],
          cwd: root,
          stderr: "ignore"
        }))
      )
    ),
    (context) => Context.get(context, McpClient.McpClient)
  )

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo
      probe.close(() => resolve(port))
    })
  })

/** `mcp gateway --config FILE --port N`: its endpoint's URL once it serves, and how to stop it. */
export const overHttp = async (file: string): Promise<{ readonly url: string; readonly stop: () => void }> => {
  const port = await freePort()
  const gateway = spawn(process.execPath, [mcpMain, "gateway", "--config", file, "--port", String(port)], {
    cwd: root,
    stdio: ["ignore", "ignore", "pipe"]
  })
  try {
    await new Promise<void>((resolve, reject) => {
      let seen = ""
      gateway.stderr.on("data", (chunk) => {
        seen += chunk
        if (seen.includes("mcp gateway: serving at")) resolve()
      })
      gateway.on("exit", () => reject(new Error(`the gateway exited: ${seen}`)))
    })
  } catch (error) {
    gateway.kill()
    throw error
  }
  return { url: `http://127.0.0.1:${port}/mcp`, stop: () => void gateway.kill() }
}
