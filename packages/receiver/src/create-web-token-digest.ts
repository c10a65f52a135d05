import type { TokenDigest } from "./token-digest.js";

const utf8 = new TextEncoder();

/** SHA-256 on Web Crypto of a per-instance random key and the token; a comparison that always reads every byte. */
export function createWebTokenDigest(): TokenDigest {
  const prefix = Array.from(globalThis.crypto.getRandomValues(new Uint8Array(32)), (b) =>
    b.toString(16).padStart(2, "0"),
  ).join("");
  return {
    digest: async (token) =>
      new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", utf8.encode(`${prefix}${token}`))),
    equal(a, b) {
      let diff = a.length ^ b.length;
      for (let i = 0; i < b.length; i++) diff |= (a[i] ?? 0) ^ (b[i] as number);
      return diff === 0;
    },
  };
}
