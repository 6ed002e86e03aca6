/**
 * `mcp login <url>` and `mcp logout <url>`: a server's OAuth tokens, kept and forgotten.
 *
 * @since 0.1.0
 */
import { NodeTokenStore } from "@effect-mcp/platform-node"
import { Args, Command, Options } from "@effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { auth, authOf, era, timeout, withClient } from "./internal/cli.js"
import * as Target from "./Target.js"

/**
 * @since 0.1.0
 * @category commands
 */
export const login = Command.make("login", {
  url: Args.text({ name: "url" }).pipe(Args.withDescription("the server's http(s):// URL")),
  open: Options.boolean("open").pipe(Options.withDescription("open the authorization URL in a browser")),
  era,
  timeout,
  ...auth
}, (o) =>
  withClient(o.url, { era: o.era, timeout: o.timeout, auth: authOf(o, o.open) }, (client) =>
    // Any request the server protects starts the authorization; tools/list is one every server has.
    Effect.zipRight(
      client.serverCapabilities.tools !== undefined ? client.listTools : Effect.void,
      Console.error(`mcp: authorized for ${o.url} (tokens in ${Target.tokenStorePath(authOf(o))})`)
    ))).pipe(Command.withDescription("Authorizes with a server's OAuth authorization server and keeps the tokens"))

/**
 * @since 0.1.0
 * @category commands
 */
export const logout = Command.make("logout", {
  url: Args.text({ name: "url" }).pipe(Args.withDescription("the server's http(s):// URL")),
  ...auth
}, (o) => {
  const path = Target.tokenStorePath(authOf(o))
  return Effect.flatMap(
    NodeTokenStore.makeFile(path, Target.tokenStoreOptions),
    (store) =>
      Effect.flatMap(store.load(o.url), (found) =>
        Option.isNone(found)
          ? Console.error(`mcp: nothing kept for ${o.url}`)
          : Effect.zipRight(store.remove(o.url), Console.error(`mcp: forgot the tokens of ${found.value.resource}`)))
  )
}).pipe(Command.withDescription("Forgets the tokens and registrations kept for a server"))
