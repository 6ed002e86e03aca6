/**
 * `healthPath` and `readyPath`: off by default; liveness always 200 while the process serves;
 * readiness 503 naming the shared store that does not answer (or answers too late); GET and HEAD
 * only; no Host or Origin check and no token (load balancers probe by IP).
 */
import { EventStore } from "@effect-mcp/server"
import { assert, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { describeServers, rawRequest } from "./utils/http.js"

const probes = { healthPath: "/healthz", readyPath: "/readyz" } as const

/** The in-memory event store, saying it is ready (or not) as `ready` says. */
const storeWith = (ready: Effect.Effect<boolean>) =>
  Effect.map(EventStore.makeMemory(), (memory): EventStore.Service => ({ ...memory, ready }))

describeServers("health and readiness", (start) => {
  it("off by default: the paths are not found", async () => {
    const h = await start()
    assert.strictEqual((await fetch(`${h.origin}/healthz`)).status, 404)
    assert.strictEqual((await fetch(`${h.origin}/readyz`)).status, 404)
  })

  it("liveness and readiness: 200, JSON, not cached; HEAD without a body; POST is 405", async () => {
    const h = await start(probes)
    const health = await fetch(`${h.origin}/healthz`)
    assert.strictEqual(health.status, 200)
    assert.strictEqual(health.headers.get("cache-control"), "no-store")
    assert.deepStrictEqual(await health.json(), { status: "ok" })
    const ready = await fetch(`${h.origin}/readyz`)
    assert.strictEqual(ready.status, 200)
    assert.deepStrictEqual(await ready.json(), { status: "ready" })
    const head = await fetch(`${h.origin}/readyz`, { method: "HEAD" })
    assert.strictEqual(head.status, 200)
    assert.strictEqual(await head.text(), "")
    assert.strictEqual((await fetch(`${h.origin}/healthz`, { method: "POST" })).status, 405)
  })

  it("a probe by IP under another Host name is answered, where the MCP endpoint refuses it", async () => {
    const h = await start(probes)
    const probe = await rawRequest({ port: h.port, method: "GET", path: "/healthz", headers: { host: "10.0.0.7" } })
    assert.strictEqual(probe.status, 200)
    const mcp = await rawRequest({ port: h.port, method: "GET", path: "/mcp", headers: { host: "10.0.0.7" } })
    assert.strictEqual(mcp.status, 403)
  })

  it("a shared store that is not ready: 503 naming it; liveness still 200", async () => {
    const h = await start(probes, { eventStore: storeWith(Effect.succeed(false)) })
    const ready = await fetch(`${h.origin}/readyz`)
    assert.strictEqual(ready.status, 503)
    assert.deepStrictEqual(await ready.json(), { status: "unavailable", failing: ["events"] })
    assert.strictEqual((await fetch(`${h.origin}/healthz`)).status, 200)
  })

  it("a shared store that does not answer within a second: 503", async () => {
    const h = await start(probes, { eventStore: storeWith(Effect.never) })
    // The store never answers: a 503 at all is the readiness's own deadline (without one, no answer).
    const ready = await fetch(`${h.origin}/readyz`)
    assert.strictEqual(ready.status, 503)
    assert.deepStrictEqual(await ready.json(), { status: "unavailable", failing: ["events"] })
  })
})
