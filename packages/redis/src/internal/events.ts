/**
 * What the event store keeps in Redis, as Lua shared by its scripts and by the session store's
 * (a session's record and its events expire together, and go together).
 *
 * Keys, under the prefix `P` (and the format's name, `events.v2:`, see `format.ts`; written
 * `events:` here): per session `P events:{<id>}:meta` (a hash: `bytes` counted, `n`
 * an arrival counter, per stream `l:<s>` its last position, `f:<s>` its first kept one, `b:<s>`
 * the bytes of its kept events), `…:heads` (a sorted set: each stream with kept events by the
 * arrival of its oldest), `…:streams` (a sorted set: each stream by its first arrival) and
 * `…:s:<s>` (a list: the stream's kept events, positions `f` to `l`, each `<arrival>:<data>`);
 * across sessions `P events:held` (a sorted set: each session by the bytes it holds),
 * `P events:total` (their sum) and `P events:expiry` (a sorted set: each session by when its
 * keys expire, so the sum forgets what Redis expired).
 */
import * as Format from "./format.js"

/**
 * Bytes counted per event beyond its data (its list entry and arrival); and a fifth of the data on
 * top, what the allocator rounds the list's nodes up to (at or above `MEMORY USAGE` for events up
 * to tens of KB; a quarter above it for small ones).
 */
export const eventOverhead = 24
/** Bytes counted per stream (its list, its fields in the meta hash, its entries in the two sets). */
export const streamOverhead = 256
/** Bytes counted per session (its meta hash and sets, its entries in the global sets). */
export const sessionOverhead = 600

/** The bytes counted for an event of `dataBytes` bytes of data (UTF-8). */
export const eventBytes = (dataBytes: number): number => dataBytes + Math.floor(dataBytes / 5) + eventOverhead

/**
 * Lua: the functions every event script and the session store's scripts use (and `SESSION`,
 * `EVENTS`: `format.ts`). Needs `P` (the prefix) defined before it.
 */
export const lua = Format.lua + `
local HELD, TOTAL, EXPIRY = EVENTS .. 'held', EVENTS .. 'total', EVENTS .. 'expiry'
local EVENT_OVERHEAD, STREAM_OVERHEAD, SESSION_OVERHEAD = ${eventOverhead}, ${streamOverhead}, ${sessionOverhead}
local function nowMillis()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function eventKeys(id)
  local base = EVENTS .. '{' .. id .. '}:'
  return { id = id, meta = base .. 'meta', heads = base .. 'heads', streams = base .. 'streams', s = base .. 's:' }
end
local function arrivalOf(e)
  return string.sub(e, 1, string.find(e, ':', 1, true) - 1)
end
local function sizeOf(e)
  local data = #e - string.find(e, ':', 1, true)
  return data + math.floor(data / 5) + EVENT_OVERHEAD
end
-- Every stream a session's records name.
local function streamsOf(k)
  local seen, out = {}, {}
  for _, s in ipairs(redis.call('ZRANGE', k.streams, 0, -1)) do
    if not seen[s] then seen[s] = true table.insert(out, s) end
  end
  for _, f in ipairs(redis.call('HKEYS', k.meta)) do
    local s = string.sub(f, 3)
    if string.sub(f, 1, 2) == 'l:' and not seen[s] then seen[s] = true table.insert(out, s) end
  end
  return out
end
-- The session's entry in the sums across sessions, after its bytes changed.
local function account(k)
  local held = 0
  if redis.call('EXISTS', k.meta) == 1 then
    held = tonumber(redis.call('HGET', k.meta, 'bytes') or '0') + SESSION_OVERHEAD
  end
  local before = tonumber(redis.call('ZSCORE', HELD, k.id) or '0')
  if held == 0 then
    redis.call('ZREM', HELD, k.id)
    redis.call('ZREM', EXPIRY, k.id)
  else
    redis.call('ZADD', HELD, held, k.id)
  end
  if held ~= before then redis.call('INCRBY', TOTAL, held - before) end
end
-- Every key of a session goes, and its bytes leave the sum.
local function forgetEvents(id)
  local k = eventKeys(id)
  for _, s in ipairs(streamsOf(k)) do redis.call('DEL', k.s .. s) end
  redis.call('DEL', k.meta, k.heads, k.streams)
  account(k)
end
-- A session's keys live \`ttl\` from \`now\` (its record was touched).
local function extendEvents(id, ttl, now)
  local k = eventKeys(id)
  if redis.call('PEXPIRE', k.meta, ttl) == 0 then return end
  redis.call('PEXPIRE', k.heads, ttl)
  redis.call('PEXPIRE', k.streams, ttl)
  for _, s in ipairs(redis.call('ZRANGE', k.streams, 0, -1)) do redis.call('PEXPIRE', k.s .. s, ttl) end
  redis.call('ZADD', EXPIRY, now + ttl, id)
end
`
