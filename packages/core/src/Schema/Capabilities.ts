/**
 * Client and server capabilities. One shape serves every revision: fields a revision
 * does not know are optional, and unknown fields survive decoding.
 *
 * @since 0.1.0
 */
import * as Internal from "../internal/schema/capabilities.js"

/**
 * What a client supports.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ClientCapabilities = Internal.ClientCapabilities

/**
 * @since 0.1.0
 * @category models
 */
export type ClientCapabilities = typeof ClientCapabilities.Type

/**
 * What a server supports.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ServerCapabilities = Internal.serverCapabilities().ServerCapabilities

/**
 * @since 0.1.0
 * @category models
 */
export type ServerCapabilities = typeof ServerCapabilities.Type
