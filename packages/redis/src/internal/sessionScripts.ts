/**
 * The Lua scripts of `RedisSessionStore`: what Redis holds for a session (its record, its place in
 * the live set, the frames kept for its GET stream) and the instance keys. ARGV[1] is the prefix
 * and, for a session's, ARGV[2] its id; see the module's documentation for the keys.
 */
import type * as RedisConnection from "../RedisConnection.js"
import * as Changes from "./changes.js"
import * as Events from "./events.js"

/**
 * What the scripts share. A record is one string: `<legacy 0|1> <cursor> <subject's bytes>`, a
 * newline, the subject (none: empty) and the state's JSON, deflated. The cursor is an id of the
 * change log: changes after it may not have reached the session's GET stream.
 * ARGV[1] is the prefix, ARGV[2] the session.
 */
const prelude = `
local P, id = ARGV[1], ARGV[2]
` + Events.lua + Changes.lua + `
local record, live = SESSION .. id, P .. 'sessions'
local function parseRecord(v)
  local head = string.find(v, '\\n', 1, true)
  local legacy, cursor, length = string.match(string.sub(v, 1, head - 1), '^(%d) (%S+) (%d+)$')
  local subject = string.sub(v, head + 1, head + tonumber(length))
  return legacy, cursor, subject, string.sub(v, head + tonumber(length) + 1)
end
local function recordOf(legacy, cursor, subject, state)
  return legacy .. ' ' .. cursor .. ' ' .. #subject .. '\\n' .. subject .. state
end
-- The frames kept for a session's GET stream go, and leave the sum across sessions.
local function forgetPending(sid)
  local bytes = tonumber(redis.call('GET', P .. 'pending-bytes:' .. sid) or '0')
  redis.call('DEL', P .. 'pending:' .. sid, P .. 'pending-bytes:' .. sid)
  if bytes ~= 0 then redis.call('DECRBY', P .. 'pending:total', bytes) end
end
-- Expired sessions leave the live set, their events and frames with them (from the sums too): the
-- first 200 of them (the next calls take the rest; the live ones are counted by their expiry).
-- (A record whose expiry Redis has not reached yet, by the time it judges keys by: frozen when the
-- script started, where TIME has moved on, stays in the set at its real expiry, for a later call:
-- dropped from the set with its events kept, they would be counted in the sums for ever.)
local function pruneLive(now)
  for _, gone in ipairs(redis.call('ZRANGEBYSCORE', live, '-inf', now, 'LIMIT', 0, 200)) do
    local at = redis.call('PEXPIRETIME', SESSION .. gone)
    if at == -2 then
      forgetEvents(gone)
      forgetPending(gone)
      redis.call('ZREM', live, gone)
    elseif at > 0 then
      redis.call('ZADD', live, at, gone)
    else
      redis.call('ZREM', live, gone)
    end
  end
end
-- The cursor moves to slack ms ago (never back): what changed before, the instance holding the stream told.
local function advance(now, slack)
  local v = redis.call('GET', record)
  if not v then return end
  local legacy, cursor, subject, state = parseRecord(v)
  local to = (now - slack) .. '-0'
  if idAfter(to, cursor) then redis.call('SET', record, recordOf(legacy, to, subject, state), 'KEEPTTL') end
end
`

export const create: RedisConnection.Script = {
  name: "mcpSessionCreate",
  numberOfKeys: 0,
  // ARGV: prefix, id, legacy, subject, state, ttl, max.
  lua: prelude + `
local now = nowMillis()
pruneLive(now)
if redis.call('ZCOUNT', live, '(' .. now, '+inf') >= tonumber(ARGV[7]) then return 0 end
if redis.call('EXISTS', record) == 1 then return -1 end
redis.call('SET', record, recordOf(ARGV[3], now .. '-0', ARGV[4], ARGV[5]), 'PX', ARGV[6])
redis.call('ZADD', live, now + tonumber(ARGV[6]), id)
-- Events its initialize stream stored before it existed live as long as it now.
extendEvents(id, tonumber(ARGV[6]), now)
return 1`
}

export const update: RedisConnection.Script = {
  name: "mcpSessionUpdate",
  numberOfKeys: 0,
  // ARGV: prefix, id, state, ttl, channel, change.
  lua: prelude + `
local v = redis.call('GET', record)
if not v then return 0 end
local now = nowMillis()
local legacy, cursor, subject = parseRecord(v)
redis.call('SET', record, recordOf(legacy, cursor, subject, ARGV[3]), 'PX', ARGV[4])
redis.call('ZADD', live, now + tonumber(ARGV[4]), id)
extendEvents(id, tonumber(ARGV[4]), now)
redis.call('PUBLISH', ARGV[5], ARGV[6])
return 1`
}

export const touch: RedisConnection.Script = {
  name: "mcpSessionTouch",
  numberOfKeys: 0,
  // ARGV: prefix, id, ttl, held here (1: the cursor moves), slack.
  lua: prelude + `
if redis.call('PEXPIRE', record, ARGV[3]) == 0 then
  -- Gone: what was still kept for it (events appended since it expired) goes too.
  redis.call('ZREM', live, id)
  forgetEvents(id)
  forgetPending(id)
  return 0
end
local now = nowMillis()
redis.call('ZADD', live, now + tonumber(ARGV[3]), id)
extendEvents(id, tonumber(ARGV[3]), now)
if ARGV[4] == '1' then advance(now, tonumber(ARGV[5])) end
return 1`
}

export const remove: RedisConnection.Script = {
  name: "mcpSessionRemove",
  numberOfKeys: 0,
  // ARGV: prefix, id, channel, change.
  lua: prelude + `
redis.call('DEL', record)
redis.call('ZREM', live, id)
forgetPending(id)
forgetEvents(id)
redis.call('PUBLISH', ARGV[3], ARGV[4])
return 1`
}

export const advance: RedisConnection.Script = {
  name: "mcpSessionAdvance",
  numberOfKeys: 0,
  // ARGV: prefix, id, slack.
  lua: prelude + `
advance(nowMillis(), tonumber(ARGV[3]))
return 1`
}

/**
 * The changes logged after the session's cursor: their events, or 'all' when some were trimmed off
 * the log (or the session is gone: nothing then).
 */
export const missed: RedisConnection.Script = {
  name: "mcpSessionMissed",
  numberOfKeys: 0,
  // ARGV: prefix, id.
  lua: prelude + `
local v = redis.call('GET', record)
if not v then return {} end
local _, cursor = parseRecord(v)
local cut = redis.call('GET', P .. 'changes:cut')
-- Entries after the cursor were trimmed off: which is not known any more.
if cut and idAfter(cut, cursor) then return 'all' end
local out = {}
for _, entry in ipairs(redis.call('XRANGE', P .. 'changes', '(' .. cursor, '+')) do
  local fields = entry[2]
  for i = 1, #fields, 2 do
    if fields[i] == 'e' then table.insert(out, fields[i + 1]) end
  end
end
return out`
}

export const toStandalone: RedisConnection.Script = {
  name: "mcpSessionToStandalone",
  numberOfKeys: 0,
  // ARGV: prefix, id, channel, frame, max, maxBytes, maxTotal. Kept while the session lives, for the next holder:
  // 1 when published, 0 when kept, -1 when not (the session is gone), -2 when not (the sum across sessions is full).
  lua: prelude + `
if redis.call('PUBLISH', ARGV[3], ARGV[4]) > 0 then return 1 end
if redis.call('EXISTS', record) == 0 then return -1 end
local size, total = #ARGV[4], P .. 'pending:total'
if tonumber(redis.call('GET', total) or '0') + size > tonumber(ARGV[7]) then return -2 end
local pending, bytes = P .. 'pending:' .. id, P .. 'pending-bytes:' .. id
redis.call('RPUSH', pending, ARGV[4])
local held = redis.call('INCRBY', bytes, size)
redis.call('INCRBY', total, size)
while redis.call('LLEN', pending) > tonumber(ARGV[5]) or held > tonumber(ARGV[6]) do
  local gone = redis.call('LPOP', pending)
  if not gone then break end
  held = redis.call('DECRBY', bytes, #gone)
  redis.call('DECRBY', total, #gone)
end
return 0`
}

export const takePending: RedisConnection.Script = {
  name: "mcpSessionTakePending",
  numberOfKeys: 0,
  // ARGV: prefix, id.
  lua: prelude + `
local frames = redis.call('LRANGE', P .. 'pending:' .. id, 0, -1)
forgetPending(id)
return frames`
}

export const claim: RedisConnection.Script = {
  name: "mcpInstanceClaim",
  numberOfKeys: 1,
  // KEYS: the key's claim. ARGV: this instance's token, ttl. Claims it, or renews our claim.
  lua: `
local held = redis.call('GET', KEYS[1])
if held == false then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
if held == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0`
}
