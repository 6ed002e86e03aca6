/**
 * A client at the wire of a child process speaking MCP over stdio (a gateway, a server): requests
 * by id (their answers, as JSON), notifications (kept in `notifications`), the child's stderr
 * lines, and a wait on those lines and notifications (`until`, woken by each, never a timer).
 * `open` does the 2025-11-25 handshake.
 */
import type { ChildProcessWithoutNullStreams } from "node:child_process"
import * as readline from "node:readline"

export const stdioWire = (child: ChildProcessWithoutNullStreams) => {
  const stderr: Array<string> = []
  const waiting = new Set<() => void>()
  /** Resolves once `check` holds, looked at now and at each stderr line. */
  const until = (check: () => boolean) =>
    new Promise<void>((resolve) => {
      const look = () => {
        if (!check()) return
        waiting.delete(look)
        resolve()
      }
      waiting.add(look)
      look()
    })
  const notifications: Array<any> = []
  readline.createInterface({ input: child.stderr }).on("line", (line) => {
    stderr.push(line)
    for (const look of [...waiting]) look()
  })
  const answers = new Map<number, (message: any) => void>()
  readline.createInterface({ input: child.stdout }).on("line", (line) => {
    const message = JSON.parse(line)
    if (message.method === undefined) answers.get(message.id)?.(message)
    else if (message.id === undefined) {
      notifications.push(message)
      for (const look of [...waiting]) look()
    }
  })
  let next = 0
  const request = (method: string, params: object = {}) =>
    new Promise<any>((resolve) => {
      const id = ++next
      answers.set(id, resolve)
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n")
    })
  const notify = (method: string) => child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method }) + "\n")
  /** `initialize` (2025-11-25) answered, then `notifications/initialized`. */
  const open = async () => {
    await request("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "t", version: "1" }
    })
    notify("notifications/initialized")
  }
  return { stderr, notifications, until, request, notify, open }
}
