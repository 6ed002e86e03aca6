/**
 * Who a client without a token is, for its quotas: the address as a holder is named by (IPv6 by
 * its /64, which one host holds whole; IPv4-mapped addresses as IPv4), and the address behind
 * trusted proxies (`X-Forwarded-For`, that many entries from its right).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Holders from "../src/internal/holders.js"

describe("holders", () => {
  it("an address: IPv4 as it is, IPv4-mapped as IPv4, IPv6 by its /64, anything else cut at 64 characters", () => {
    assert.strictEqual(Holders.normalizeAddress("203.0.113.7"), "203.0.113.7")
    assert.strictEqual(Holders.normalizeAddress("::ffff:127.0.0.1"), "127.0.0.1")
    assert.strictEqual(Holders.normalizeAddress("2001:db8:0:1:aaaa:bbbb:cccc:dddd"), "2001:db8:0:1::/64")
    // Every address of one /64 is one holder, however it is written.
    for (const address of ["2001:db8::1:0:0:0:1", "2001:0db8:0000:0001::ffff", "2001:db8:0:1::1%eth0"]) {
      assert.strictEqual(Holders.normalizeAddress(address), "2001:db8:0:1::/64", address)
    }
    assert.strictEqual(Holders.normalizeAddress("::1"), "0:0:0:0::/64")
    assert.strictEqual(Holders.normalizeAddress("64:ff9b::198.51.100.1"), "64:ff9b:0:0::/64")
    assert.strictEqual(Holders.normalizeAddress("x".repeat(100)), "x".repeat(64))
  })

  it("behind trusted proxies, the X-Forwarded-For entry that many from its right; without, the connection's", () => {
    assert.strictEqual(Holders.clientAddress("10.0.0.1", "198.51.100.9", 0), "10.0.0.1")
    assert.strictEqual(Holders.clientAddress("10.0.0.1", "198.51.100.9", 1), "198.51.100.9")
    // What the client wrote first is not taken: only what the trusted proxies added.
    assert.strictEqual(Holders.clientAddress("10.0.0.2", "6.6.6.6, 198.51.100.9, 10.0.0.1", 2), "198.51.100.9")
    // A header shorter than the proxies: its first entry.
    assert.strictEqual(Holders.clientAddress("10.0.0.1", "198.51.100.9", 3), "198.51.100.9")
    // No header: the connection's.
    assert.strictEqual(Holders.clientAddress("10.0.0.1", undefined, 1), "10.0.0.1")
    assert.isUndefined(Holders.clientAddress(undefined, undefined, 0))
  })

  it("a share is a tenth of the cap, at least one; counts per holder, an unknown holder never full", () => {
    assert.deepStrictEqual([1, 2, 10, 300, 10_000].map(Holders.shareOf), [1, 1, 1, 30, 1_000])
    const counts = new Holders.Counts(2)
    counts.add("peer:a")
    assert.isFalse(counts.full("peer:a"))
    counts.add("peer:a")
    assert.isTrue(counts.full("peer:a"))
    assert.isFalse(counts.full("peer:b"))
    assert.isFalse(counts.full(undefined))
    counts.remove("peer:a")
    assert.isFalse(counts.full("peer:a"))
  })

  it("a task nothing names is kept under an owner of its own, and reached by its id alone", () => {
    assert.strictEqual(Holders.keptOwner("peer:203.0.113.1", "t1"), "peer:203.0.113.1")
    assert.strictEqual(Holders.keptOwner(Holders.anyone, "t1"), "anyone:t1")
    assert.isTrue(Holders.reaches(Holders.anyone, "t1", "anyone:t1"))
    assert.isTrue(Holders.reaches("peer:203.0.113.1", "t1", "peer:203.0.113.1"))
    // A named client's task is not reached unnamed, nor an unnamed one's by a named client.
    assert.isFalse(Holders.reaches(Holders.anyone, "t1", "peer:203.0.113.1"))
    assert.isFalse(Holders.reaches("peer:203.0.113.1", "t1", "anyone:t1"))
    assert.isFalse(Holders.reaches(Holders.anyone, "t2", "anyone:t1"))
    assert.isFalse(Holders.reaches(undefined, "t1", "anyone:t1"))
  })
})
