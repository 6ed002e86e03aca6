// A hostile stdio upstream (handshake era) for the gateway's raw lane. Tools:
// dup: answers twice; hugeid: first a response with a 1 MB string id and one with a 10,000-deep id, then its answer;
// prog: 3,000 progress notifications of 64 KiB with the call's id and a made-up token, then answers;
// notes: 3,000 log notifications of 64 KiB (not related), then answers; late: answers, then 2,000 more answers to the same id.
import * as readline from "node:readline"
const out = (m) => process.stdout.write(JSON.stringify(m) + "\n")
const big = "x".repeat(65536)
// Writes n messages, waiting for the pipe to drain (Node stalls on thousands of large writes in one tick).
const flood = (n, make, then) => {
  let i = 0
  const more = () => {
    while (i < n) if (!process.stdout.write(JSON.stringify(make(i++)) + "\n")) return void process.stdout.once("drain", more)
    then()
  }
  more()
}
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const { id, method, params } = JSON.parse(line)
  if (id === undefined || method === undefined) return
  const answer = (result) => out({ jsonrpc: "2.0", id, result })
  switch (method) {
    case "initialize": return answer({ protocolVersion: params.protocolVersion, capabilities: { tools: {}, logging: {} }, serverInfo: { name: "hostile", version: "1" } })
    case "tools/list": return answer({ tools: ["dup", "hugeid", "prog", "notes", "late"].map((name) => ({ name, inputSchema: { type: "object" } })) })
    case "tools/call": {
      const done = () => answer({ content: [{ type: "text", text: params.name }] })
      switch (params.name) {
        case "dup": done(); return done()
        case "hugeid": {
          process.stdout.write(`{"jsonrpc":"2.0","id":"${"i".repeat(1 << 20)}","result":{}}\n`)
          process.stdout.write(`{"jsonrpc":"2.0","id":${"[".repeat(10000)}${"]".repeat(10000)},"result":{}}\n`)
          return done()
        }
        case "prog": {
          return flood(3000, (i) => ({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: i % 2 ? id : "made-up", progress: i, message: big } }), done)
        }
        case "notes": {
          return flood(3000, () => ({ jsonrpc: "2.0", method: "notifications/message", params: { level: "error", data: big } }), done)
        }
        case "late": return flood(2001, () => ({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: "late" }] } }), () => {})
      }
      return
    }
    default: return answer({})
  }
})
