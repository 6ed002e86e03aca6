/**
 * The floor of a tsc-compiled Effect server's startup: Node loads `effect/Effect`, `effect/Schema`
 * and `@effect/platform-node/NodeRuntime` as separate modules (as any unbundled Effect program
 * does, through `effect/Schema` fast-check's 239 modules included), then answers like
 * `bare-stdio-server.ts`, with no MCP code. A tsc-compiled server of ours cannot start faster
 * than this; the startup part prints ours above it (issue 42).
 *
 * `node dist/effect-floor-stdio-server.js`
 */
import "effect/Effect"
import "effect/Schema"
import "@effect/platform-node/NodeRuntime"
import "./bare-stdio-server.js"
