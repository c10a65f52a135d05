import * as nodeCrypto from "node:crypto";
import type { SignedBody } from "./webhook-crypto.js";

/** SHA-256's block size: the length HMAC pads its key to (RFC 2104). */
const BLOCK = 64;
/** Messages up to this many bytes take the one-shot path; longer ones (rare: bodies are small) `createHmac`. */
const SCRATCH = 8192;
/** Messages up to this many bytes hash a view of the buffer kept for their length (see below). */
const VIEWS = 512;

/**
 * HMAC-SHA256 under one key, as base64, for many messages (`prefix` then `body`).
 *
 * `createHmac` builds a stream object and an OpenSSL HMAC context per call, and that context looks its
 * digest up again each time: the receive path's largest single cost, and a native object per request
 * for the garbage collector. `crypto.hash` (Node 20.12+) is a one-shot digest whose algorithm is looked
 * up once, so HMAC is built here from two of them as RFC 2104 defines it,
 * `H((K ^ opad) || H((K ^ ipad) || message))`, with both padded keys prepared once and the message
 * written into a buffer kept for the key: no object per call but the two digests' strings. Node without
 * `crypto.hash`, and messages longer than the buffer, use `createHmac`. Proven equal to `createHmac`
 * by a differential test over keys of every length up to three blocks and messages of every kind.
 */
export function createNodeHmacSha256(key: Uint8Array): (prefix: string, body: SignedBody) => string {
  // A key object made once: given bytes, createHmac would import the key again on every call.
  const secret = nodeCrypto.createSecretKey(key);
  // Straight to base64: a digest as a Buffer costs an ArrayBuffer per call.
  const slow = (prefix: string, body: SignedBody) =>
    nodeCrypto.createHmac("sha256", secret).update(prefix).update(body).digest("base64");
  const hash = (nodeCrypto as { hash?: typeof nodeCrypto.hash }).hash;
  if (typeof hash !== "function") return slow;

  // A key longer than a block is hashed first (RFC 2104); a shorter one is padded with zeros.
  const k = key.length > BLOCK ? nodeCrypto.createHash("sha256").update(key).digest() : key;
  const inner = Buffer.alloc(BLOCK + SCRATCH);
  const outer = Buffer.alloc(BLOCK + 32);
  // Stryker disable next-line EqualityOperator: equivalent: one step further writes byte 64 of each buffer, which every message overwrites before it is hashed
  for (let i = 0; i < BLOCK; i++) {
    inner[i] = (k[i] ?? 0) ^ 0x36;
    outer[i] = (k[i] ?? 0) ^ 0x5c;
  }
  // The inner digest's input is the start of `inner`, as long as the message: a view of that length
  // made once and kept (for messages up to VIEWS bytes, which are nearly all), since making one per
  // message (`subarray`) cost a tenth of the MAC.
  const views: Buffer[] = [];
  return (prefix, body) => {
    // UTF-8 takes at most 3 bytes per UTF-16 unit: a bound that needs no measuring.
    const most = 3 * prefix.length + (typeof body === "string" ? 3 * body.length : body.length);
    if (most > SCRATCH) return slow(prefix, body);
    // Without an encoding, Buffer#write writes UTF-8. Text is written in one call, prefix and body
    // joined, unless the prefix ends in the first half of a surrogate pair: alone it is written as
    // U+FFFD (as createHmac's update writes it), joined it could pair with the body's first unit.
    let end: number;
    // Stryker disable next-line ConditionalExpression: equivalent as false: prefix and body written apart are the same bytes, only slower
    if (typeof body === "string" && (prefix.charCodeAt(prefix.length - 1) & 0xfc00) !== 0xd800)
      end = BLOCK + inner.write(prefix + body, BLOCK);
    else if (typeof body === "string") {
      end = BLOCK + inner.write(prefix, BLOCK);
      end += inner.write(body, end);
    } else {
      end = BLOCK + inner.write(prefix, BLOCK);
      inner.set(body, end);
      end += body.length;
    }
    let view = views[end];
    // Stryker disable next-line ConditionalExpression: equivalent: a view made afresh hashes the same bytes
    if (view === undefined) {
      view = inner.subarray(0, end);
      // Stryker disable next-line ConditionalExpression,EqualityOperator,ArithmeticOperator: equivalent: the bound only caps how many views are kept
      if (end <= BLOCK + VIEWS) views[end] = view;
    }
    // The inner digest as "binary" (latin1) text is its 32 bytes one per character, written back as those bytes.
    outer.write(hash("sha256", view, "binary"), BLOCK, "binary");
    return hash("sha256", outer, "base64");
  };
}
