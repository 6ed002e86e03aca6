/** DPoP (RFC 9449): the resource's key, and the proofs of its requests. */
import * as Effect from "effect/Effect"
import * as oauth from "oauth4webapi"
import type { Dpop, Env, Resource } from "./common.js"

/** The resource's DPoP key, made once, when DPoP is on. */
export const dpopOf = (env: Env, resource: Resource) =>
  Effect.gen(function*() {
    if (env.options.dpop !== true) return undefined
    if (resource.dpop !== undefined) return resource.dpop
    const keyPair = yield* Effect.promise(() => oauth.generateKeyPair("ES256", { extractable: true }))
    const { exportJWK } = yield* Effect.promise(() => import("jose"))
    const { crv, kty, x, y } = yield* Effect.promise(() => exportJWK(keyPair.publicKey))
    return resource.dpop = {
      handle: oauth.DPoP({}, keyPair),
      privateKey: keyPair.privateKey,
      jwk: { crv, kty, x, y },
      nonce: undefined
    }
  })

/**
 * A DPoP proof for one request to the resource (RFC 9449 §4): its method and URL (without query
 * and fragment), the access token's hash, and the server's nonce when it gave one.
 */
export const proof = (dpop: Dpop, method: string, url: string, accessToken: string) =>
  Effect.promise(async () => {
    const { SignJWT, base64url } = await import("jose")
    const target = new URL(url)
    const ath = base64url.encode(
      new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(accessToken)))
    )
    return new SignJWT({
      htm: method,
      htu: `${target.origin}${target.pathname}`,
      ath,
      jti: crypto.randomUUID(),
      ...(dpop.nonce !== undefined ? { nonce: dpop.nonce } : {})
    })
      .setProtectedHeader({ alg: "ES256", typ: "dpop+jwt", jwk: dpop.jwk })
      .setIssuedAt()
      .sign(dpop.privateKey)
  })
