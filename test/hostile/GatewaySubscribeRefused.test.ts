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
import { countedGateway as gateway } from "../support/CountedGateway.js"

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
