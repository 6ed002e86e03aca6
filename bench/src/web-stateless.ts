/**
 * effect-mcp serving the `add` tool (`ours-add.ts`) on the entry whose code names what it uses
 * (`StatelessServer`: 2026-07-28 alone, no handshake era, no authorization named), as a fetch
 * handler for the runtime benchmarks (`runtimes.ts`, `BENCH_HTTP_SERVERS=…,stateless`): on Bun and
 * Deno `StatelessServer.toWebHandler`, as a Worker `StatelessServer.toWorkerHandler`, with their
 * defaults (Host and Origin allow-lists for loopback). Beside `web-ours.ts` (today's
 * `HttpTransport` entry, options as data) in the same run.
 */
import * as StatelessServer from "@effect-mcp/server/StatelessServer"
import { Add } from "./add-tool.js"
import type { Served } from "./web-serve.js"

const server = StatelessServer.layer({
  serverInfo: { name: "bench-add", version: "1.0.0" },
  tools: [Add],
  // As `ours-add.ts`'s servers.
  maxSubscriptions: 20_000
})

export const served: Served = { fetch: StatelessServer.toWebHandler(server).handler }

export const worker = StatelessServer.toWorkerHandler(server)
