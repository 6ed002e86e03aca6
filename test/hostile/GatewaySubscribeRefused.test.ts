/**
 * `mcp gateway` in front of our demo (stdio, 2025-11-25), at the wire: a downstream client subscribes
 * to 1,000 instances of the demo's template. The gateway's one upstream session then asks for more
 * subscriptions than the upstream holds for a session (its `maxSubscriptionUris`, 1,000, with the
 * listed resources the mirror follows already), and the upstream refuses the last few with -32602.
 *
 * Before: the refusal failed the mirror's follower, which unsubscribed every URI it had added
 * (996 `resources/unsubscribe`), slept 5 seconds and subscribed them all again, refused again, for
 * ever: about 1,000 upstream requests every 5 seconds (13,013 `resources/subscribe` within 20 s of
 * the client's last subscribe, `test/hostile/probes/gateway-subscribe.mjs`), nothing followed
 * meanwhile, and each downstream subscribe waiting 5 s for its acknowledgement. Now the refused URI
 * is no longer asked for (a warning says so) and the rest are followed as before: one upstream
 * request per URI, none undone.
 *
 * The same in front of the demo in the 2026-07-28 era, where the mirror follows every URI with one
 * `subscriptions/listen` whose filter past the upstream's bound is refused whole (-32602). Before,
 * the follower failed and listened again with the same filter every 5 seconds for ever, following
 * nothing meanwhile ("following the upstream: ..." each time). Now the newest URI a client added is
 * dropped with a warning and the rest listened to at once.
 */
import { describe, expect, it } from "@effect/vitest"
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { onTestFinished } from "vitest"
import * as Programs from "../support/Programs.js"
import { stdioWire } from "../support/StdioWire.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const counter = path.join(root, "test/hostile/fixtures/count-upstream.mjs")

/** The gateway in front of the demo (stdio, `era`), its upstream's requests counted; one downstream client. */
const gateway = async (era: "handshake" | "stateless") => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "subscribe-refused-"))
  const counts = path.join(dir, "counts.json")
  const file = path.join(dir, "gateway.json")
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: {
        demo: {
          command: process.execPath,
          args: [counter, process.execPath, Programs.demoMain, "stdio", "--era", era],
          env: { COUNT_FILE: counts }
        }
      }
    })
  )
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    [Programs.mcpMain, "gateway", "--config", file, "--start-timeout", "60"],
    { cwd: root, stdio: ["pipe", "pipe", "pipe"] }
  )
  onTestFinished(() => {
    child.kill()
  })
  const { open, request, stderr, until } = stdioWire(child)
  await until(() => stderr.some((line) => line.includes("demo is up")))
  await open()
  /** The upstream's requests by method, once a request through to it is answered (all before it counted). */
  const upstream = async (): Promise<Record<string, number>> => {
    const read = await request("resources/read", { uri: "demo+test://template/x/data" })
    expect(read.result?.contents?.[0]?.uri).toBe("demo+test://template/x/data")
    return JSON.parse(readFileSync(counts, "utf8"))
  }
  return { request, stderr, until, upstream }
}

const refusedLine = "the upstream refused a subscription to test://template/"

describe("mcp gateway: template subscriptions past the upstream's bound", () => {
  it(
    "1,000 template instances: the refused ones dropped with a warning, nothing unsubscribed or asked again",
    async () => {
      const { request, stderr, until, upstream } = await gateway("handshake")
      for (let i = 0; i < 1000; i++) {
        const answer = await request("resources/subscribe", { uri: `demo+test://template/${i}/data` })
        expect(answer.error).toBeUndefined()
      }
      // The upstream refused some: the gateway said so.
      await until(() => stderr.some((line) => /refused a subscription|following the upstream/.test(line)))
      const counted = await upstream()
      expect(counted["resources/unsubscribe"] ?? 0).toBe(0)
      expect(counted["resources/subscribe"]).toBeLessThanOrEqual(1010)
      expect(stderr.some((line) => line.includes(refusedLine))).toBe(true)
      expect(stderr.some((line) => line.includes("following the upstream"))).toBe(false)
    },
    90_000
  )

  it(
    "2026-07-28: a listen refused past the bound loses its newest URIs, one each, and is not asked again",
    async () => {
      const { request, stderr, until, upstream } = await gateway("stateless")
      // All at once: the mirror listens again with what has been added meanwhile, not once a URI.
      const answers = await Promise.all(
        Array.from(
          { length: 1000 },
          (_, i) => request("resources/subscribe", { uri: `demo+test://template/${i}/data` })
        )
      )
      for (const answer of answers) expect(answer.error).toBeUndefined()
      await until(() => stderr.some((line) => /refused a subscription|following the upstream/.test(line)))
      const counted = await upstream()
      // The upstream lists some resources of its own: a few of the 1,000 are past its 1,000 URIs a listen.
      const dropped = stderr.filter((line) => line.includes(refusedLine)).length
      expect(dropped).toBeGreaterThan(0)
      expect(dropped).toBeLessThan(50)
      expect(counted["subscriptions/listen"]).toBeLessThan(200)
      expect(stderr.some((line) => line.includes("following the upstream"))).toBe(false)
    },
    90_000
  )
})
