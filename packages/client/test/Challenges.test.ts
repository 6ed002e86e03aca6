/**
 * `WWW-Authenticate`, read (RFC 9110 §11.6.1): schemes and params lower case, quoted values
 * unescaped, token68, several challenges in one header, and malformed text ending the list.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Challenges from "../src/internal/challenges.js"

describe("WWW-Authenticate challenges", () => {
  it("reads params, quoted strings with escapes, token68 and several challenges", () => {
    assert.deepStrictEqual(Challenges.parse(`Bearer realm="a, b", ERROR=invalid_token, scope="x \\"y\\""`), [
      { scheme: "bearer", params: { realm: "a, b", error: "invalid_token", scope: "x \"y\"" } }
    ])
    assert.deepStrictEqual(Challenges.parse("Negotiate abc123==, Basic realm=x"), [
      { scheme: "negotiate", params: {}, token68: "abc123==" },
      { scheme: "basic", params: { realm: "x" } }
    ])
    assert.deepStrictEqual(Challenges.parse("Bearer, DPoP algs=\"ES256 PS256\""), [
      { scheme: "bearer", params: {} },
      { scheme: "dpop", params: { algs: "ES256 PS256" } }
    ])
  })

  it("stops where the text breaks, keeping what came before", () => {
    assert.deepStrictEqual(Challenges.parse(`Basic realm=x, Bearer error="unterminated`), [
      { scheme: "basic", params: { realm: "x" } },
      { scheme: "bearer", params: {} }
    ])
    assert.deepStrictEqual(Challenges.parse(""), [])
  })
})
