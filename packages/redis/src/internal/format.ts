/**
 * The format of what the session and event stores keep, named in their keys. A session's record
 * is one string under `session.v2:<id>` (it was a hash under `session:<id>`), and its events are
 * lists under `events.v2:…` (they were Redis Streams under `events:…`). Instances of the earlier
 * format on the same Redis and prefix never read these keys, nor these instances theirs: no
 * WRONGTYPE either way. A session lives on the instances of its own format (on the others it is
 * unknown: 404, and its client initializes again), and the earlier keys expire by their own TTL.
 */

/** The record of a session: `<prefix>session.v2:<id>`. */
export const session = "session.v2:"

/** What the event store keeps: `<prefix>events.v2:{<id>}:…`, and its sums across sessions. */
export const events = "events.v2:"

/** Lua: `SESSION` and `EVENTS`, the beginnings of those keys. Needs `P` (the prefix) defined before it. */
export const lua = `
local SESSION, EVENTS = P .. '${session}', P .. '${events}'
`
