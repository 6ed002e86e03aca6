/**
 * Who a request's quotas count against (its holder), and counts per holder.
 *
 * A holder is what a client cannot choose for free: the holder of its access token where it has
 * one (`auth:<subject at issuer>`, as tasks and sessions are bound), else the address its HTTP
 * connection comes from (`peer:<address>`; an IPv6 address by its /64, which one host holds
 * whole). The name a client gives itself (`clientInfo`) is never one. Where neither is known
 * (stdio, an in-memory pair), one connection is one client, and the per-client limits apply. Over
 * an HTTP platform that gives no address (and no `holderOf` naming one), nothing tells clients
 * apart: there is no holder, only the global caps apply, and a 2026-07-28 task belongs to
 * {@link anyone} (whoever holds its id).
 */
import { AuthInfo } from "@effect-mcp/core"
import * as Option from "effect/Option"

/** The holder of a request with this token (if any) from this peer (if known), or undefined. */
export const holderOf = (
  auth: Option.Option<AuthInfo.AuthInfo> | AuthInfo.AuthInfo | undefined,
  peer: string | undefined
): string | undefined => {
  const token = auth === undefined || auth instanceof AuthInfo.AuthInfo ? auth : Option.getOrUndefined(auth)
  if (token !== undefined) return `auth:${AuthInfo.holder(token)}`
  return peer === undefined ? undefined : `peer:${peer}`
}

/**
 * The task owner of a request nothing names (no token, no address, and no connection to bind to:
 * an HTTP platform that gives no client address): its task is reached by whoever holds its id,
 * which is unguessable, as the revision asks where tasks cannot be bound to a requestor.
 */
export const anyone = "anyone"

/**
 * The owner a new task of `owner` is kept under: its own, but a task of {@link anyone} under one of
 * its own (`anyone:<id>`), so that no one's tasks fill a share of everyone's (the store's global
 * bounds apply to them).
 */
export const keptOwner = (owner: string, taskId: string): string => owner === anyone ? `${anyone}:${taskId}` : owner

/** May a request whose tasks belong to `owner` reach task `taskId`, kept under `kept`? */
export const reaches = (owner: string | undefined, taskId: string, kept: string): boolean =>
  owner !== undefined && kept === keptOwner(owner, taskId)

/** The default share of one holder in a global cap: a tenth of it (at least one). */
export const shareOf = (max: number): number => Math.max(1, Math.ceil(max / 10))

/** How many of something each holder holds. */
export class Counts {
  private readonly counts = new Map<string, number>()

  constructor(readonly max: number) {}

  /** Is `holder` at its share? (An unknown holder never is.) */
  full(holder: string | undefined): boolean {
    return holder !== undefined && (this.counts.get(holder) ?? 0) >= this.max
  }

  add(holder: string | undefined): void {
    if (holder !== undefined) this.counts.set(holder, (this.counts.get(holder) ?? 0) + 1)
  }

  remove(holder: string | undefined): void {
    if (holder === undefined) return
    const n = (this.counts.get(holder) ?? 0) - 1
    if (n > 0) this.counts.set(holder, n)
    else this.counts.delete(holder)
  }
}

// ---------------------------------------------------------------------------- addresses

/** The longest address kept (a forwarded one is the client's text). */
const maxAddress = 64

/** An IPv6 address as its /64 prefix (`2001:db8:0:1::/64`), or undefined when it is not one. */
const ipv6Prefix = (address: string): string | undefined => {
  const zone = address.indexOf("%")
  const bare = zone < 0 ? address : address.slice(0, zone)
  const halves = bare.split("::")
  if (halves.length > 2) return undefined
  const part = (text: string | undefined) => (text === undefined || text === "" ? [] : text.split(":"))
  const head = part(halves[0])
  const tail = part(halves[1])
  // An IPv4 address at the end stands for two groups.
  const width = (groups: ReadonlyArray<string>) => groups.reduce((n, g) => n + (g.includes(".") ? 2 : 1), 0)
  const missing = 8 - width(head) - width(tail)
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined
  const groups = halves.length === 1 ? head : [...head, ...Array<string>(missing).fill("0"), ...tail]
  const prefix = groups.slice(0, 4)
  if (!prefix.every((g) => /^[0-9a-f]{1,4}$/i.test(g))) return undefined
  return `${prefix.map((g) => parseInt(g, 16).toString(16)).join(":")}::/64`
}

/**
 * An address as a holder is named by: IPv4 as it is (`::ffff:` dropped), IPv6 by its /64, at
 * most 64 characters of anything else.
 */
export const normalizeAddress = (address: string): string => {
  const trimmed = address.trim()
  const v4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(trimmed)
  if (v4 !== null) return v4[1]
  if (trimmed.includes(":")) return ipv6Prefix(trimmed) ?? trimmed.slice(0, maxAddress)
  return trimmed.slice(0, maxAddress)
}

/**
 * The address of an HTTP client: its connection's (`remote`), or behind `trustedProxies` proxies
 * (each appending the address it got the request from to `X-Forwarded-For`), the entry that many
 * from the right of the header, the connection's address counted last. A header with fewer
 * entries names the first of them.
 */
export const clientAddress = (
  remote: string | undefined,
  forwardedFor: string | undefined,
  trustedProxies: number
): string | undefined => {
  if (trustedProxies <= 0 || forwardedFor === undefined) {
    return remote === undefined ? undefined : normalizeAddress(remote)
  }
  const chain = forwardedFor.split(",").map((entry) => entry.trim()).filter((entry) => entry !== "")
  if (remote !== undefined) chain.push(remote)
  if (chain.length === 0) return undefined
  return normalizeAddress(chain[Math.max(0, chain.length - 1 - trustedProxies)])
}
