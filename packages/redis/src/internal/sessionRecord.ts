/**
 * What `RedisSessionStore` writes to Redis and reads back, as schemas.
 *
 * - A session's record (`session.v2:<id>`): one string, `<legacy 0|1> <cursor> <subject's bytes>`,
 *   a newline, the subject (none: empty) and the state's JSON, deflated. The scripts write the
 *   head (the cursor is theirs); the state is encoded here (`PackedState`), and the whole record
 *   decoded here (`StoredRecord`).
 * - A change (`session-changes`): a session's new state, or its end (`state: null`), and the
 *   instance that made it.
 * - An envelope (`inbox`, `inbox:<key>`): a JSON-RPC message of a session for another instance,
 *   the message checked as the wire checks one (`Wire.decodeValue`).
 */
import { type JsonRpc, Wire } from "@effect-mcp/core"
import type * as SessionStore from "@effect-mcp/server/SessionStore"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Zlib from "node:zlib"

/** A handshake's state: plain JSON, an object. */
const State = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/** What `ioredis` reads (`getBuffer`) and writes. */
const BufferFromSelf = Schema.declare((u): u is Buffer => Buffer.isBuffer(u), { identifier: "Buffer" })

/** Deflated bytes ↔ their text (UTF-8). */
const Deflated = Schema.transformOrFail(BufferFromSelf, Schema.String, {
  strict: true,
  decode: (bytes, _, ast) =>
    ParseResult.try({
      try: () => Zlib.inflateRawSync(bytes).toString("utf8"),
      catch: () => new ParseResult.Type(ast, bytes, "not deflated data")
    }),
  encode: (text) => ParseResult.succeed(Zlib.deflateRawSync(text))
})

/** A state as a record holds it: its JSON, deflated (a few hundred bytes, not a KB). */
export const PackedState: Schema.Schema<Readonly<Record<string, unknown>>, Buffer> = Schema.compose(
  Deflated,
  Schema.parseJson(State)
)

/** A record's parts, the state still packed. */
const Parts = Schema.Struct({
  legacy: Schema.Boolean,
  subject: Schema.UndefinedOr(Schema.String),
  state: BufferFromSelf
})

/** The head of a record: `<legacy> <cursor> <subject's bytes>`. */
const head = /^([01]) \S+ (\d+)$/

/** A record as stored ↔ its parts (written by the scripts, never here). */
const Unpacked = Schema.transformOrFail(BufferFromSelf, Parts, {
  strict: true,
  decode: (value, _, ast) => {
    const newline = value.indexOf(0x0a)
    const header = newline < 0 ? null : head.exec(value.subarray(0, newline).toString("latin1"))
    const length = header === null ? 0 : Number(header[2])
    if (header === null || newline + 1 + length > value.length) {
      return ParseResult.fail(new ParseResult.Type(ast, value, "not a session record"))
    }
    const subject = value.subarray(newline + 1, newline + 1 + length).toString("utf8")
    return ParseResult.succeed({
      legacy: header[1] === "1",
      subject: subject === "" ? undefined : subject,
      state: value.subarray(newline + 1 + length)
    })
  },
  encode: (parts, _, ast) =>
    ParseResult.fail(new ParseResult.Forbidden(ast, parts, "a record is written by the session store's scripts"))
})

/** A session's record as stored (its id is its key's). */
export const StoredRecord: Schema.Schema<Omit<SessionStore.SessionRecord, "id">, Buffer> = Schema.compose(
  Unpacked,
  Schema.Struct({ legacy: Schema.Boolean, subject: Schema.UndefinedOr(Schema.String), state: PackedState })
)

/** A change as the channel carries it: its JSON, `null` for a session that ended. */
export const ChangeJson: Schema.Schema<SessionStore.Change, string> = Schema.parseJson(Schema.Struct({
  id: Schema.String,
  state: Schema.transform(Schema.NullOr(State), Schema.UndefinedOr(Schema.typeSchema(State)), {
    strict: true,
    decode: (state) => state ?? undefined,
    encode: (state) => state ?? null
  }),
  origin: Schema.Number
}))

/**
 * One JSON-RPC message, checked as the wire checks one (`Wire.decodeValue`), at any depth: an
 * instance forwards what its own transport took in (its `maxDepth` may be above the default).
 */
const Message: Schema.Schema<JsonRpc.Message, unknown> = Schema.transformOrFail(
  Schema.Unknown,
  Schema.declare((u): u is JsonRpc.Message => typeof u === "object" && u !== null),
  {
    strict: true,
    decode: (value, _, ast) => {
      const decoded = Wire.decodeValue(value, { maxDepth: Number.POSITIVE_INFINITY })
      return decoded._tag === "Single"
        ? ParseResult.succeed(decoded.message)
        : ParseResult.fail(new ParseResult.Type(ast, value, "not one JSON-RPC message"))
    },
    encode: ParseResult.succeed
  }
)

/** A message of a session for another instance, as the channel carries it (its JSON). */
export const EnvelopeJson = Schema.parseJson(Schema.Struct({
  origin: Schema.Number,
  sessionId: Schema.String,
  message: Message
}))
