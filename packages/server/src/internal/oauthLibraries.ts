/**
 * What the token verifiers (`tokenVerifier.ts`) use of jose and oauth4webapi, by name, imported
 * from here when a verifier first needs them. A bundler keeps of each package only these and what
 * they use: a Worker's bundle had both whole (112 KB minified, every byte parsed at the isolate's
 * start, a verifier made or not) for 32 KB now; jose's encryption, signing and key generation,
 * and oauth4webapi's flows, are left out.
 */
export { createLocalJWKSet, decodeJwt, decodeProtectedHeader, errors, jwtVerify } from "jose"
export {
  allowInsecureRequests,
  ClientSecretBasic,
  customFetch,
  discoveryRequest,
  introspectionRequest,
  processDiscoveryResponse,
  processIntrospectionResponse
} from "oauth4webapi"
