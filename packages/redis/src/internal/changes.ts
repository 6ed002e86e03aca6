/**
 * The log of changes the bus published (`RedisNotificationBus` writes it), which the session
 * store reads to tell a session's GET stream what it missed while no instance held it.
 *
 * Keys, under the prefix `P`: `P changes` (a Redis Stream: one entry per change, its field `e` the
 * event as the bus publishes it, its id `<ms>-<n>` on Redis's clock) and `P changes:cut` (the id
 * of the last entry trimmed off it, so a reader after an older id knows it lost some).
 */

/** Lua: compares two stream ids (`<ms>-<n>`). Needs nothing defined before it. */
export const lua = `
local function idParts(id)
  local dash = string.find(id, '-', 1, true)
  if not dash then return tonumber(id) or 0, 0 end
  return tonumber(string.sub(id, 1, dash - 1)) or 0, tonumber(string.sub(id, dash + 1)) or 0
end
local function idAfter(a, b)
  local am, an = idParts(a)
  local bm, bn = idParts(b)
  return am > bm or (am == bm and an > bn)
end
`
