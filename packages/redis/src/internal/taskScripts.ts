/**
 * The Lua scripts of `RedisTaskStore`: each change is one script, which checks, writes the record
 * and its indexes, and publishes the change, all at once. The keys are built from the prefix
 * (ARGV[1]); see the module's documentation for what they hold.
 */
import type * as RedisConnection from "../RedisConnection.js"

/** What every script shares: the keys, and the removal of a task (published). ARGV[1] is the prefix. */
const prelude = `
local P = ARGV[1]
local META = P .. 'tasks:meta'
local EXPIRY = P .. 'tasks:expiry'
local LEASES = P .. 'tasks:leases'
local BYTES = P .. 'tasks:bytes'
local OWNER_BYTES = P .. 'tasks:ownerbytes'
local SEQ = P .. 'tasks:seq'
local CHANNEL = P .. 'tasks'
local function taskKey(id) return P .. 'task:' .. id end
local function ownerKey(owner) return P .. 'tasks:owner:' .. owner end
local function parseMeta(m)
  local a = string.find(m, ':', 1, true)
  local b = string.find(m, ':', a + 1, true)
  return tonumber(string.sub(m, 1, a - 1)), tonumber(string.sub(m, a + 1, b - 1)), string.sub(m, b + 1)
end
local function publish(id, json)
  redis.call('PUBLISH', CHANNEL, '{"taskId":' .. cjson.encode(id) .. ',"record":' .. json .. '}')
end
local function drop(id)
  local existed = redis.call('DEL', taskKey(id)) == 1
  redis.call('ZREM', EXPIRY, id)
  redis.call('ZREM', LEASES, id)
  local m = redis.call('HGET', META, id)
  if m then
    existed = true
    redis.call('HDEL', META, id)
    local _, bytes, owner = parseMeta(m)
    redis.call('ZREM', ownerKey(owner), id)
    redis.call('DECRBY', BYTES, bytes)
    if redis.call('HINCRBY', OWNER_BYTES, owner, -bytes) <= 0 then redis.call('HDEL', OWNER_BYTES, owner) end
  end
  if existed then publish(id, 'null') end
  return existed
end
local function prune(now, limit)
  local ids = redis.call('ZRANGEBYSCORE', EXPIRY, '-inf', now, 'LIMIT', 0, limit)
  for _, id in ipairs(ids) do drop(id) end
  return #ids
end
`

/**
 * ARGV: prefix, id, owner, json, held, version, expireAt|"", leaseAt|"", now, maxTasks,
 * maxPerOwner, maxBytes, maxOwnerBytes, maxRecordBytes. A task's size is its JSON's bytes (`#`: as
 * Redis holds it, UTF-8) and what its runner holds. What expired goes first: it must not count.
 */
export const create: RedisConnection.Script = {
  name: "mcpTaskStoreCreate",
  numberOfKeys: 0,
  lua: prelude + `
local id, owner, json, version, expireAt, leaseAt, now = ARGV[2], ARGV[3], ARGV[4], ARGV[6], ARGV[7], ARGV[8], ARGV[9]
local size = #json + tonumber(ARGV[5])
if size > tonumber(ARGV[14]) then return 'record' end
prune(now, tonumber(ARGV[10]) + 1)
local key = taskKey(id)
if redis.call('EXISTS', key) == 1 or redis.call('HEXISTS', META, id) == 1 then return 'exists' end
if redis.call('HLEN', META) >= tonumber(ARGV[10]) then return 'tasks' end
if redis.call('ZCARD', ownerKey(owner)) >= tonumber(ARGV[11]) then return 'owner' end
if tonumber(redis.call('GET', BYTES) or '0') + size > tonumber(ARGV[12]) then return 'bytes' end
if tonumber(redis.call('HGET', OWNER_BYTES, owner) or '0') + size > tonumber(ARGV[13]) then return 'ownerBytes' end
if expireAt == '' then
  redis.call('SET', key, json)
else
  redis.call('SET', key, json, 'PXAT', expireAt)
  redis.call('ZADD', EXPIRY, expireAt, id)
end
redis.call('HSET', META, id, version .. ':' .. size .. ':' .. owner)
redis.call('ZADD', ownerKey(owner), redis.call('INCR', SEQ), id)
if leaseAt ~= '' then redis.call('ZADD', LEASES, leaseAt, id) end
redis.call('INCRBY', BYTES, size)
redis.call('HINCRBY', OWNER_BYTES, owner, size)
publish(id, json)
return 'ok'
`
}

/**
 * ARGV: prefix, id, version, json, held, nextVersion, leaseAt|"", now, maxBytes, maxOwnerBytes,
 * maxRecordBytes (sized as in create). 1 when set, 0 when not (gone, expired, or at another
 * version), else a bound's name.
 */
export const compareAndSet: RedisConnection.Script = {
  name: "mcpTaskStoreCompareAndSet",
  numberOfKeys: 0,
  lua: prelude + `
local id, json, nextVersion, leaseAt = ARGV[2], ARGV[4], ARGV[6], ARGV[7]
local size = #json + tonumber(ARGV[5])
local key = taskKey(id)
local m = redis.call('HGET', META, id)
if not m or redis.call('EXISTS', key) == 0 then return 0 end
local expiresAt = redis.call('ZSCORE', EXPIRY, id)
if expiresAt and tonumber(expiresAt) <= tonumber(ARGV[8]) then return 0 end
local version, bytes, owner = parseMeta(m)
if version ~= tonumber(ARGV[3]) then return 0 end
if size > tonumber(ARGV[11]) then return 'record' end
if tonumber(redis.call('GET', BYTES) or '0') - bytes + size > tonumber(ARGV[9]) then return 'bytes' end
if tonumber(redis.call('HGET', OWNER_BYTES, owner) or '0') - bytes + size > tonumber(ARGV[10]) then return 'ownerBytes' end
redis.call('SET', key, json, 'KEEPTTL')
redis.call('HSET', META, id, nextVersion .. ':' .. size .. ':' .. owner)
redis.call('INCRBY', BYTES, size - bytes)
redis.call('HINCRBY', OWNER_BYTES, owner, size - bytes)
if leaseAt == '' then redis.call('ZREM', LEASES, id) else redis.call('ZADD', LEASES, leaseAt, id) end
publish(id, json)
return 1
`
}

/** ARGV: prefix, id. */
export const remove: RedisConnection.Script = {
  name: "mcpTaskStoreRemove",
  numberOfKeys: 0,
  lua: prelude + `
if drop(ARGV[2]) then return 1 end
return 0
`
}

/** ARGV: prefix, now, limit. How many expired tasks it removed (each published, once, wherever it ran). */
export const sweep: RedisConnection.Script = {
  name: "mcpTaskStoreSweep",
  numberOfKeys: 0,
  lua: prelude + `
return prune(ARGV[2], tonumber(ARGV[3]))
`
}

/**
 * ARGV: prefix, owner, cursor|"", limit, now. `{more, json...}`: a page of the owner's live tasks,
 * newest first, after the cursor (none when the cursor is not the owner's), and whether more follow.
 */
export const list: RedisConnection.Script = {
  name: "mcpTaskStoreList",
  numberOfKeys: 0,
  lua: prelude + `
local key = ownerKey(ARGV[2])
local limit = tonumber(ARGV[4])
local now = tonumber(ARGV[5])
local bound = '+inf'
if ARGV[3] ~= '' then
  local score = redis.call('ZSCORE', key, ARGV[3])
  if not score then return {0} end
  bound = '(' .. score
end
local out = {0}
local found = 0
while true do
  local batch = redis.call('ZREVRANGEBYSCORE', key, bound, '-inf', 'WITHSCORES', 'LIMIT', 0, 100)
  if #batch == 0 then return out end
  for i = 1, #batch, 2 do
    local id = batch[i]
    bound = '(' .. batch[i + 1]
    local expiresAt = redis.call('ZSCORE', EXPIRY, id)
    if not (expiresAt and tonumber(expiresAt) <= now) then
      local json = redis.call('GET', taskKey(id))
      if json then
        if found == limit then
          out[1] = 1
          return out
        end
        found = found + 1
        out[#out + 1] = json
      end
    end
  end
end
`
}
