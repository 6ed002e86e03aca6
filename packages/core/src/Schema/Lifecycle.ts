/**
 * The lifecycle messages: the handshake-era `initialize` / `notifications/initialized` /
 * `ping` (2024-11-05 to 2025-11-25), and cancellation and progress (every revision).
 *
 * @since 0.1.0
 */
import { lifecycle } from "../internal/schema/lifecycle.js"

const built = lifecycle()

/**
 * Params of `initialize` (2024-11-05 to 2025-11-25).
 *
 * @since 0.1.0
 * @category schemas
 */
export const InitializeRequestParams = built.InitializeRequestParams

/**
 * @since 0.1.0
 * @category models
 */
export type InitializeRequestParams = typeof InitializeRequestParams.Type

/**
 * Result of `initialize` (2024-11-05 to 2025-11-25): the version the server chose,
 * its capabilities and identity.
 *
 * @since 0.1.0
 * @category schemas
 */
export const InitializeResult = built.InitializeResult

/**
 * @since 0.1.0
 * @category models
 */
export type InitializeResult = typeof InitializeResult.Type

/**
 * Params of `notifications/initialized` (2024-11-05 to 2025-11-25).
 *
 * @since 0.1.0
 * @category schemas
 */
export const InitializedNotificationParams = built.InitializedNotificationParams

/**
 * @since 0.1.0
 * @category models
 */
export type InitializedNotificationParams = typeof InitializedNotificationParams.Type

/**
 * Params of `ping` (2024-11-05 to 2025-11-25).
 *
 * @since 0.1.0
 * @category schemas
 */
export const PingRequestParams = built.PingRequestParams

/**
 * @since 0.1.0
 * @category models
 */
export type PingRequestParams = typeof PingRequestParams.Type

/**
 * Params of `notifications/cancelled` with a required `requestId`: 2024-11-05 to
 * 2025-06-18, and again 2026-07-28 (where a server also uses it to end a
 * `subscriptions/listen` stream). 2025-11-25 uses {@link CancelledNotificationParams20251125}.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CancelledNotificationParams = built.CancelledNotificationParams

/**
 * @since 0.1.0
 * @category models
 */
export type CancelledNotificationParams = typeof CancelledNotificationParams.Type

/**
 * Params of `notifications/cancelled` in 2025-11-25, where `requestId` is optional
 * (task-augmented requests are cancelled with `tasks/cancel` instead). 2026-07-28 makes
 * it required again: see {@link CancelledNotificationParams}.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CancelledNotificationParams20251125 = built.CancelledNotificationParams20251125

/**
 * @since 0.1.0
 * @category models
 */
export type CancelledNotificationParams20251125 = typeof CancelledNotificationParams20251125.Type

/**
 * Params of `notifications/progress` (every revision; `message` from 2025-03-26).
 * `progress` must increase with every notification; both numbers may be fractional.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ProgressNotificationParams = built.ProgressNotificationParams

/**
 * @since 0.1.0
 * @category models
 */
export type ProgressNotificationParams = typeof ProgressNotificationParams.Type
