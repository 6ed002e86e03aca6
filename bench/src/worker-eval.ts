/**
 * The cold start of a Worker bundle in V8 without workerd (part `v8` of `runtimes.ts`): run as
 * `node worker-eval.js <bundle>` in a fresh process, it evaluates the bundle (`import`), answers one
 * stateless `tools/call add` through its `fetch`, and prints one JSON line: the process's CPU time
 * (ms) spent evaluating the bundle (`evaluate`) and answering the first call (`first`: for ours,
 * building the server). Node's own `Request`/`Response` are loaded before, so they count for no
 * one. The request is one a Worker gets from Cloudflare's edge (`CF-Connecting-IP`), and the
 * process shows a Worker's `navigator.userAgent` while the bundle runs.
 */
import { pathToFileURL } from "node:url"
import { stateless } from "./envelope.js"

const cpu = (): number => {
  const usage = process.cpuUsage()
  return (usage.user + usage.system) / 1000
}

const main = async () => {
  const request = new Request("http://127.0.0.1/mcp", {
    method: "POST",
    headers: {
      accept: "application/json, text/event-stream",
      "content-type": "application/json",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "add",
      host: "127.0.0.1",
      // As Cloudflare's edge sends every request to a Worker.
      "cf-connecting-ip": "203.0.113.7"
    },
    body: stateless.addCall(1)
  })
  await new Response("warm").text()
  // A Worker's user agent, which the bundle reads to know it runs on Workers (it then reads the
  // client's address from `CF-Connecting-IP`).
  Object.defineProperty(globalThis, "navigator", { value: { userAgent: "Cloudflare-Workers" }, configurable: true })
  const started = cpu()
  const worker = (await import(pathToFileURL(process.argv[2]!).href)) as {
    readonly default: { readonly fetch: (request: Request, env: unknown, context: unknown) => Promise<Response> }
  }
  const evaluated = cpu()
  const response = await worker.default.fetch(request, {}, { waitUntil: () => {}, passThroughOnException: () => {} })
  const text = await response.text()
  const answered = cpu()
  if (!text.includes("\"sum\":2")) throw new Error(`answered ${response.status} ${text}`)
  process.stdout.write(`${JSON.stringify({ evaluate: evaluated - started, first: answered - evaluated })}\n`)
  // A Worker's handler keeps its runtime: this process is done.
  process.exit(0)
}

main().catch((error) => {
  process.stderr.write(`${String(error?.stack ?? error)}\n`)
  process.exit(1)
})
