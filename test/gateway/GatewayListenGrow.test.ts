/**
 * `mcp gateway` over stdio in front of our demo, at the wire: a downstream client follows a listed
 * resource (`demo+test://watched-resource`) while it subscribes to template instances one after
 * another, each while the resource changes upstream. Each round waits for an update after its
 * change (a test that loses one runs out of time).
 *
 * In the 2026-07-28 era the mirror follows every URI with one `subscriptions/listen`, and a URI
 * added needs a new listen. Before, the mirror closed its listen, waited 100 ms, listened again and
 * listed tools, prompts, resources and templates again, for each URI added: an update in that gap
 * was lost to every client following it (the first round's never came), and each URI cost four
 * lists upstream. Now the new listen is acknowledged before the old one is closed, the old one read
 * on meanwhile, and nothing is listed again.
 *
 * In both eras a listed URI's subscriber was acknowledged at once, before the mirror's follower
 * had subscribed to it upstream: a change while the follower was starting never reached it (the
 * handshake era's first round failed so). Now it is acknowledged once the URI is followed.
 */
import { describe, expect, it } from "@effect/vitest"
import { countedGateway } from "../support/CountedGateway.js"

const watched = "demo+test://watched-resource"
const rounds = 10

describe("mcp gateway: a URI added while a followed resource changes", () => {
  for (const era of ["stateless", "handshake"] as const) {
    it(`${era}: every update arrives, and nothing is listed again`, async () => {
      const { notifications, request, until, upstream } = await countedGateway(era)
      const updates = () =>
        notifications.filter((n) => n.method === "notifications/resources/updated" && n.params?.uri === watched)
          .length
      expect((await request("resources/subscribe", { uri: watched })).error).toBeUndefined()
      const before = await upstream()
      for (let i = 0; i < rounds; i++) {
        const seen = updates()
        const [subscribed, changed] = await Promise.all([
          request("resources/subscribe", { uri: `demo+test://template/${i}/data` }),
          request("tools/call", { name: "demo_updateWatchedResource", arguments: {} })
        ])
        expect(subscribed.error).toBeUndefined()
        expect(changed.result?.isError).not.toBe(true)
        // Its update (updates of one URI may be passed on as one, or twice while two listens are
        // read: each round waits for one after its change).
        await until(() => updates() > seen)
      }
      const after = await upstream()
      // The follower's first listing may still be under way when `before` is read: one more at most.
      for (const list of ["tools/list", "prompts/list", "resources/list", "resources/templates/list"]) {
        expect({ list, more: (after[list] ?? 0) - (before[list] ?? 0) <= 1 }).toEqual({ list, more: true })
      }
      if (era === "stateless") {
        expect((after["subscriptions/listen"] ?? 0) - (before["subscriptions/listen"] ?? 0)).toBeLessThanOrEqual(rounds)
      }
    }, 90_000)
  }
})
