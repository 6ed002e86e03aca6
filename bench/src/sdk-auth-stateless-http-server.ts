/**
 * The official TypeScript SDK serving the `add` tool over Streamable HTTP in the stateless
 * 2026-07-28 revision with bearer authorization: `sdk-stateless-http-server.ts` (modern only,
 * `createMcpHandler` behind `toNodeHandler` and the `Host` / `Origin` guards) with the SDK's
 * `requireBearerAuth` gate in front of `handler.fetch`, as its documentation shows for fetch-shaped
 * hosts (the `Request` is the one `toNodeHandler` already built; the verified `AuthInfo` is passed
 * on as `authInfo`), with `expectedResource` and `resourceMetadataUrl` set.
 *
 * The verifier is `verifyAccessToken` on jose: `jwtVerify` (issuer, audience, RS256/ES256, `exp`)
 * against `createRemoteJWKSet` (cached) of the `jwks_uri` read once at startup from the issuer's
 * RFC 8414 metadata: the same issuer, key set and checks as ours; a token jose refuses is thrown
 * as `OAuthError` `invalid_token` (401; the gate answers any other error 500).
 *
 * `node dist/sdk-auth-stateless-http-server.js --port N --issuer URL --resource URL`
 */
import { localhostHostValidation, localhostOriginValidation, toNodeHandler } from "@modelcontextprotocol/node"
import {
  type AuthInfo,
  createMcpHandler,
  getOAuthProtectedResourceMetadataUrl,
  McpServer,
  OAuthError,
  OAuthErrorCode,
  requireBearerAuth
} from "@modelcontextprotocol/server"
import { createRemoteJWKSet, jwtVerify } from "jose"
import { createServer } from "node:http"
import * as z from "zod"
import { arg, port, ready } from "./control.js"

const issuer = arg("issuer")
const resource = arg("resource")

const inputSchema = z.object({ a: z.number(), b: z.number() })
const outputSchema = z.object({ sum: z.number() })

const newServer = () => {
  const server = new McpServer({ name: "sdk-add", version: "1.0.0" }, {
    capabilities: { tools: { listChanged: true } }
  })
  server.registerTool(
    "add",
    { description: "Add two numbers", inputSchema, outputSchema },
    async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }], structuredContent: { sum: a + b } })
  )
  return server
}

const handler = createMcpHandler(newServer, {
  legacy: "reject",
  onerror: (error) => process.stderr.write(`sdk: ${error.message}\n`)
})

// RFC 8414 metadata, read once: its `jwks_uri` is the key set jose fetches (and caches).
const metadataResponse = await fetch(new URL("/.well-known/oauth-authorization-server", issuer))
const metadata = await metadataResponse.json() as { issuer: string; jwks_uri: string }
if (metadata.issuer !== issuer) throw new Error(`the metadata's issuer ${metadata.issuer} is not ${issuer}`)
const keys = createRemoteJWKSet(new URL(metadata.jwks_uri))

const scopesOf = (scope: unknown): Array<string> =>
  typeof scope === "string" ? scope.split(" ").filter((s) => s !== "") : []

const gate = requireBearerAuth({
  verifier: {
    verifyAccessToken: async (token): Promise<AuthInfo> => {
      // A token refused is `invalid_token` (401); anything else the gate answers 500.
      const { payload } = await jwtVerify(token, keys, {
        issuer,
        audience: resource,
        algorithms: ["RS256", "ES256"],
        requiredClaims: ["exp"]
      }).catch((error) => {
        throw new OAuthError(OAuthErrorCode.InvalidToken, error instanceof Error ? error.message : "invalid token")
      })
      const audience = Array.isArray(payload.aud) ? payload.aud[0] : payload.aud
      return {
        token,
        clientId: typeof payload.client_id === "string" ? payload.client_id : String(payload.azp ?? ""),
        scopes: scopesOf(payload.scope),
        // `requiredClaims` made sure of it.
        expiresAt: payload.exp!,
        ...(audience !== undefined ? { resource: new URL(audience) } : {}),
        extra: { subject: payload.sub }
      }
    }
  },
  expectedResource: new URL(resource),
  resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(new URL(resource))
})

const serve = toNodeHandler({
  fetch: async (request, options) => {
    const auth = await gate(request)
    if (auth instanceof Response) return auth
    return handler.fetch(request, { ...options, authInfo: auth })
  }
})

const validHost = localhostHostValidation()
const validOrigin = localhostOriginValidation()

createServer((request, response) => {
  if (!validHost(request, response) || !validOrigin(request, response)) return
  void serve(request as Parameters<typeof serve>[0], response)
}).listen(port(), "127.0.0.1", () => ready())
