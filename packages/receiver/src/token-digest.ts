import type { Maybe } from "./maybe.js";

/**
 * How a runtime digests a bearer token and compares two digests in constant time: node:crypto in
 * Node, Web Crypto elsewhere. The token checker's logic is written once over it.
 */
export interface TokenDigest {
  digest(token: string): Maybe<Uint8Array>;
  equal(a: Uint8Array, b: Uint8Array): boolean;
}
