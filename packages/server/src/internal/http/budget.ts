/**
 * The bytes waiting to be written, per connection and across all connections: what a client that
 * does not read its answers pins. A platform adapter opens one account per connection (per
 * response where the platform shows no connection), adds the bytes of each write, and releases
 * them as they are written out (taken by the operating system).
 *
 * A write that takes its connection past `perConnection` closes that connection. A write that
 * takes the total past `total` closes connections until it fits again, the one whose bytes have
 * waited longest without any of them being written first: the reader that does not read, never a
 * reader that keeps up while one that does not is there. The write's own connection is closed
 * only when it is that one (its bytes cannot be queued). Each close is one line in the log.
 *
 * Why close rather than wait: a write is counted once its bytes are made, and waiting would keep
 * them made; only closing a connection gives its bytes back.
 */

/** The bounds, in bytes. */
export interface Limits {
  readonly perConnection: number
  readonly total: number
}

/** 32 MiB a connection: more than the largest answer the library makes under its own default limits. */
export const defaultPerConnection = 32 * 1024 * 1024
/** 64 MiB in all: what a 256 MB heap can hold waiting while it goes on serving (and building answers). */
export const defaultTotal = 64 * 1024 * 1024

/** What one connection has waiting. */
export interface Account {
  /**
   * `bytes` more are waiting. False when they cannot be: the connection was closed (now, over a
   * bound, or before); nothing of them should be written then.
   */
  readonly add: (bytes: number) => boolean
  /** `bytes` of what was added were written out. */
  readonly release: (bytes: number) => void
  /** The connection closed: nothing of it waits any more. */
  readonly close: () => void
  /** Closed (by the budget, or by `close`). */
  readonly closed: () => boolean
}

const mib = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MiB`

class Entry implements Account {
  waiting = 0
  done = false
  constructor(readonly budget: Budget, readonly drop: () => void) {}
  add(bytes: number): boolean {
    return this.budget.add(this, bytes)
  }
  release(bytes: number): void {
    this.budget.release(this, bytes)
  }
  close(): void {
    this.budget.forget(this)
  }
  closed(): boolean {
    return this.done
  }
}

export class Budget {
  /** Bytes waiting over every connection. */
  total = 0
  /** The accounts with bytes waiting, the one whose bytes were last written longest ago first. */
  private readonly waiting = new Set<Entry>()

  constructor(readonly limits: Limits, readonly log: (line: string) => void) {}

  /** An account for a new connection; `drop` closes the connection at once. */
  open(drop: () => void): Account {
    return new Entry(this, drop)
  }

  add(entry: Entry, bytes: number): boolean {
    if (entry.done) return false
    if (bytes <= 0) return true
    if (entry.waiting === 0) this.waiting.add(entry)
    entry.waiting += bytes
    this.total += bytes
    if (entry.waiting > this.limits.perConnection) {
      this.drop(
        entry,
        `${entry.waiting} bytes waiting on it, over maxBufferedBytes (${mib(this.limits.perConnection)} a connection)`
      )
      return false
    }
    while (this.total > this.limits.total) {
      const victim = this.waiting.values().next().value!
      this.drop(
        victim,
        `${victim.waiting} bytes waiting on it, the longest unread, while ${this.total} bytes wait in all, over ` +
          `maxBufferedBytesTotal (${mib(this.limits.total)})`
      )
      if (victim === entry) return false
    }
    return true
  }

  release(entry: Entry, bytes: number): void {
    if (entry.done || bytes <= 0) return
    const released = Math.min(bytes, entry.waiting)
    entry.waiting -= released
    this.total -= released
    // Something was written: it goes last in the line of those to close.
    this.waiting.delete(entry)
    if (entry.waiting > 0) this.waiting.add(entry)
  }

  forget(entry: Entry): void {
    if (entry.done) return
    entry.done = true
    this.total -= entry.waiting
    entry.waiting = 0
    this.waiting.delete(entry)
  }

  private drop(entry: Entry, why: string): void {
    this.forget(entry)
    this.log(`effect-mcp: closed a connection that does not read its answers: ${why}`)
    entry.drop()
  }
}
