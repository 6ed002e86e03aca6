/**
 * Logging: `logging/setLevel` (2024-11-05 to 2025-11-25; replaced by the per-request
 * `_meta["io.modelcontextprotocol/logLevel"]` in 2026-07-28) and `notifications/message`.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { JsonValue, LoggingLevel, metaField, RequestParams } from "./Base.js"

/**
 * The eight syslog levels (RFC 5424), lowest first.
 *
 * @since 0.1.0
 * @category schemas
 */
export {
  /**
   * The syslog severities of `logging/setLevel` and `notifications/message`.
   *
   * @since 0.1.0
   * @category models
   */
  LoggingLevel
} from "./Base.js"

/**
 * The levels in order of severity, lowest first.
 *
 * @since 0.1.0
 * @category models
 */
export const levels: ReadonlyArray<LoggingLevel> = LoggingLevel.literals

/**
 * Whether `level` is at least as severe as `threshold` (a message at `level` passes a
 * `threshold` set with `logging/setLevel`).
 *
 * @since 0.1.0
 * @category predicates
 */
export const isAtLeast = (level: LoggingLevel, threshold: LoggingLevel): boolean =>
  levels.indexOf(level) >= levels.indexOf(threshold)

/**
 * Params of `logging/setLevel`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SetLevelRequestParams = Schema.Struct({
  ...RequestParams.fields,
  level: LoggingLevel
}).annotations({ identifier: "SetLevelRequestParams" })

/**
 * @since 0.1.0
 * @category models
 */
export type SetLevelRequestParams = typeof SetLevelRequestParams.Type

/**
 * Params of `notifications/message`: a log entry with any JSON `data`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const LoggingMessageNotificationParams = Schema.Struct({
  ...metaField,
  level: LoggingLevel,
  logger: Schema.optional(Schema.String),
  data: JsonValue
}).annotations({ identifier: "LoggingMessageNotificationParams" })

/**
 * @since 0.1.0
 * @category models
 */
export type LoggingMessageNotificationParams = typeof LoggingMessageNotificationParams.Type
