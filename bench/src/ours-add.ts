/**
 * The `add` tool of `apps/everything` (a, b → structured `{ sum }`) and an effect-mcp server
 * with only that tool: what the benchmarks' own servers of ours serve, like the SDK's servers
 * here serve only `add`.
 *
 * The server children take `--revisions handshake|stateless|dual` (`revisionsArg`): the four
 * handshake revisions (the default, `Server`), 2026-07-28 alone, or both eras on one endpoint.
 */
// By their paths, as the guide shows for a Worker (docs/runtimes.md): the Worker of the runtime benchmarks
// (web-ours.ts) bundles only what it uses.
import * as Revision from "@effect-mcp/core/Revision"
import * as McpServer from "@effect-mcp/server/McpServer"
import { Add } from "./add-tool.js"

export { Add } from "./add-tool.js"

/** The revisions of each `--revisions` choice. */
export const revisionSets = {
  handshake: Revision.handshake,
  stateless: ["2026-07-28"],
  dual: [...Revision.handshake, "2026-07-28"]
} as const satisfies Record<string, ReadonlyArray<Revision.Revision>>

export type RevisionSet = keyof typeof revisionSets

/** `--revisions <set>` of the command line (default `handshake`); exits 2 on an unknown one. */
export const revisionsArg = (): RevisionSet => {
  const at = process.argv.indexOf("--revisions")
  const value = at > 0 ? process.argv[at + 1] : "handshake"
  if (!Object.hasOwn(revisionSets, value)) {
    process.stderr.write(`unknown --revisions ${value}: ${Object.keys(revisionSets).join(", ")}\n`)
    process.exit(2)
  }
  return value as RevisionSet
}

/** Our `add` server serving `revisions`. */
export const serverOf = (revisions: RevisionSet) =>
  McpServer.layer({
    serverInfo: { name: "bench-add", version: "1.0.0" },
    tools: [Add],
    revisions: revisionSets[revisions],
    // As many open listens as `ours-http-server.ts` has connections (`BENCH_LISTENS` past the
    // default 1,000).
    maxSubscriptions: 20_000
  })

export const Server = serverOf("handshake")
