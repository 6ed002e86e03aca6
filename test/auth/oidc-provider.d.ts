/**
 * The little of oidc-provider (which ships no types) that the authorization tests use.
 */
declare module "oidc-provider" {
  import type { EventEmitter } from "node:events"
  import type { IncomingMessage, ServerResponse } from "node:http"

  export class Provider extends EventEmitter {
    constructor(issuer: string, configuration?: Record<string, unknown>)
    readonly issuer: string
    /** The Koa application as a `node:http` request listener. */
    callback(): (request: IncomingMessage, response: ServerResponse) => void
  }

  export const errors: {
    readonly InvalidTarget: new(description?: string) => Error
  }

  export default Provider
}
