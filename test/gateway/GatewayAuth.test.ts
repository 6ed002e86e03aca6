/**
 * `mcp gateway --config FILE` (apps/cli, built) in front of an HTTP upstream that asks for
 * authorization: the authorization server and resource server of test/auth/support.ts (oidc-provider,
 * and our resource server with its `whoami` tool). The gateway authorizes with the client's OAuth
 * (`McpAuth`): it says on stderr the URL a user opens (`mcp gateway: secure: to authorize, open
 * …`), the test's browser signs in and consents, and the upstream's tools are served under its name;
 * the tokens are kept in the configured token file, so the next gateway of that file is authorized
 * with no user at all.
 */
import { McpClient } from "@effect-mcp/client"
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Stream from "effect/Stream"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Auth from "../auth/support.js"
import { mcpOverStdio } from "./support.js"

const authorizeLine = /^mcp gateway: secure: to authorize, open (\S+)$/

/** The environment of a gateway: a home of its own, no `MCP_*` of the user's. */
const envOf = (home: string): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !name.startsWith("MCP_")) env[name] = value
  }
  return { ...env, HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") }
}

/**
 * Our client of a gateway of `file` over stdio; the authorization URLs the gateway says on its
 * stderr are kept in `urls` as they come, the first completing `first`.
 */
const gatewayClient = (file: string, home: string, urls: Array<string>, first: Deferred.Deferred<string>) =>
  mcpOverStdio(["gateway", "--config", file], {
    name: "gateway-auth-test",
    env: envOf(home),
    stderr: (line) => {
      const match = authorizeLine.exec(line)
      if (match !== null) {
        urls.push(match[1]!)
        Deferred.unsafeDone(first, Exit.succeed(match[1]!))
      }
    }
  })

/** The gateway's tool names once `name` is among them (it comes with a list change if it was late). */
const untilTool = (client: McpClient.Service, name: string) =>
  Effect.gen(function*() {
    const subscription = yield* client.subscribe({ toolsListChanged: true })
    const changes = yield* Stream.toPull(subscription.notifications)
    for (;;) {
      const names = (yield* client.listTools).map((tool) => tool.name)
      if (names.includes(name)) return names
      yield* changes
    }
  })

describe("mcp gateway: an HTTP upstream that asks for authorization", () => {
  it.scopedLive(
    "is authorized with OAuth (a user at the URL said on stderr), its tokens kept for the next gateway",
    () =>
      Effect.gen(function*() {
        const fixture = yield* Auth.start()
        const browser = Auth.makeBrowser()
        const dir = mkdtempSync(path.join(os.tmpdir(), "mcp-gateway-auth-"))
        const tokens = path.join(dir, "tokens.json")
        const file = path.join(dir, "gateway.json")
        writeFileSync(
          file,
          JSON.stringify({ mcpServers: { secure: { url: fixture.url, auth: { tokenStore: tokens } } } })
        )

        // 1. No tokens yet: the gateway asks a user, who authorizes; the upstream's tools are served.
        const urls: Array<string> = []
        const first = yield* Deferred.make<string>()
        yield* Effect.forkScoped(Effect.flatMap(Deferred.await(first), browser.onUrl))
        const client = yield* gatewayClient(file, path.join(dir, "home"), urls, first)
        assert.include(yield* untilTool(client, "secure_whoami"), "secure_whoami")
        const answer = yield* client.callTool("secure_whoami", {})
        assert.deepStrictEqual(answer.content, [{ type: "text", text: Auth.whoamiAnswer }])
        assert.strictEqual(urls.length, 1)
        assert.strictEqual(browser.delivered.length, 1)
        assert.include(readFileSync(tokens, "utf8"), fixture.issuer)

        // 2. A second gateway of the same token file: authorized by the tokens kept, no user asked.
        const again: Array<string> = []
        const never = yield* Deferred.make<string>()
        const second = yield* gatewayClient(file, path.join(dir, "home"), again, never)
        assert.include(yield* untilTool(second, "secure_whoami"), "secure_whoami")
        const answered = yield* second.callTool("secure_whoami", {})
        assert.deepStrictEqual(answered.content, [{ type: "text", text: Auth.whoamiAnswer }])
        assert.deepStrictEqual(again, [])
        assert.strictEqual(fixture.seen.authorizations, 1)
      }),
    60_000
  )
})
