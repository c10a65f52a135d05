#!/usr/bin/env node
// Writes spec/vectors.json: Standard Webhooks v1 signing vectors for the New Plant webhook.
// Signatures are computed here with node:crypto alone, so the tests can check them against two
// other implementations (the reference `standardwebhooks` library and @plant-store/types).
// Deterministic: secrets derive from fixed labels, so re-running it rewrites the same file.
// Run: node spec/scripts/generate-vectors.mjs
import { createHash, createHmac } from "node:crypto";
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const TOLERANCE_SECONDS = 300;
const T = 1767225600; // 2026-01-01T00:00:00Z

/** A `whsec_` secret of `bytes` bytes derived from a label (test data, never a real secret). */
function secret(label, bytes = 32) {
  return `whsec_${createHash("sha256").update(label).digest().subarray(0, bytes).toString("base64")}`;
}

function sign(id, timestamp, body, secrets) {
  return secrets
    .map((s) => {
      const key = Buffer.from(s.slice("whsec_".length), "base64");
      return `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`, "utf8").digest("base64")}`;
    })
    .join(" ");
}

const A = secret("plant-store vector secret A");
const B = secret("plant-store vector secret B (rotated in)");
const C = secret("plant-store vector secret C (never used to sign)");
const SHORT = secret("plant-store vector secret D (24 bytes)", 24);

const ID = "msg_2b9e1c0e-6a3f-4f4e-9d1a-3f0f4c8b7a21";
const BODY = '{"id":1,"name":"Monstera deliciosa","tag":"tropical"}';

/**
 * Each entry: what the sender signed (id, timestamp, body, secrets) and, where a receiver sees
 * something else, `received` overrides plus the receiver's own secrets and clock.
 */
const cases = [
  {
    name: "basic",
    description: "One secret, a plant with a tag.",
    id: ID,
    timestamp: T,
    body: BODY,
    secrets: [A],
  },
  {
    name: "no-tag",
    description: "A plant without the optional tag.",
    id: "msg_0f6d3c52-3a7e-4bb1-8c2e-5a1d9e7f4b10",
    timestamp: T + 1,
    body: '{"id":2,"name":"Ficus lyrata"}',
    secrets: [A],
  },
  {
    name: "unicode-body",
    description:
      "Non-ASCII body sent as raw UTF-8: the HMAC is over the UTF-8 bytes, not over escaped or UTF-16 text.",
    id: "msg_unicode",
    timestamp: T,
    body: '{"id":3,"name":"Gänseblümchen 🌼","tag":"日本の盆栽 — ñ"}',
    secrets: [A],
  },
  {
    name: "max-safe-id-and-unknown-field",
    description: "The largest id the contract allows and a field this contract version does not know.",
    id: "msg_max",
    timestamp: T,
    body: '{"id":9007199254740991,"name":"Welwitschia","color":"green"}',
    secrets: [A],
  },
  {
    name: "short-secret",
    description: "A 24-byte secret (the smallest size Standard Webhooks recommends).",
    id: ID,
    timestamp: T,
    body: BODY,
    secrets: [SHORT],
  },
  {
    name: "rotation-two-signatures-new-secret",
    description:
      "During rotation the sender signs with the old and the new secret; a receiver holding only the new one accepts.",
    id: ID,
    timestamp: T,
    body: BODY,
    secrets: [A, B],
    receiverSecrets: [B],
  },
  {
    name: "rotation-two-signatures-old-secret",
    description: "The same delivery is accepted by a receiver still holding only the old secret.",
    id: ID,
    timestamp: T,
    body: BODY,
    secrets: [A, B],
    receiverSecrets: [A],
  },
  {
    name: "rotation-receiver-holds-both",
    description: "The sender already signs with the new secret only; a receiver holding old and new accepts.",
    id: ID,
    timestamp: T,
    body: BODY,
    secrets: [B],
    receiverSecrets: [A, B],
  },
  {
    name: "tolerance-boundary-past",
    description: "Exactly 300 seconds old: still accepted (the tolerance is inclusive).",
    id: ID,
    timestamp: T,
    body: BODY,
    secrets: [A],
    now: T + TOLERANCE_SECONDS,
  },
  {
    name: "tolerance-boundary-future",
    description: "Exactly 300 seconds ahead of the receiver's clock: still accepted.",
    id: ID,
    timestamp: T,
    body: BODY,
    secrets: [A],
    now: T - TOLERANCE_SECONDS,
  },
  {
    name: "unknown-version-ignored",
    description:
      "A signature with an unknown version prefix next to a valid v1 signature: the unknown one is skipped.",
    id: ID,
    timestamp: T,
    body: BODY,
    secrets: [A],
    received: { signature: `v2,bm90IGEgcmVhbCBzaWduYXR1cmU= ${sign(ID, T, BODY, [A])}` },
  },
  {
    name: "wrong-secret",
    description: "Signed with a secret the receiver does not hold.",
    id: ID,
    timestamp: T,
    body: BODY,
    secrets: [A],
    receiverSecrets: [C],
    expected: "no-matching-signature",
  },
  {
    name: "rotation-receiver-has-neither",
    description: "Two signatures, neither made with the receiver's secret.",
    id: ID,
    timestamp: T,
    body: BODY,
    secrets: [A, B],
    receiverSecrets: [C],
    expected: "no-matching-signature",
  },
  {
    name: "tampered-body",
    description: "The body changed after signing (another name).",
    id: ID,
    timestamp: T,
    body: BODY,
    secrets: [A],
    received: { body: BODY.replace("Monstera deliciosa", "Monstera adansonii") },
    expected: "no-matching-signature",
  },
  {
    name: "reserialised-body",
    description:
      "The same JSON value re-serialised with spaces: the signature covers raw bytes, so a receiver must verify before parsing.",
    id: ID,
    timestamp: T,
    body: BODY,
    secrets: [A],
    received: { body: JSON.stringify(JSON.parse(BODY), null, 1) },
    expected: "no-matching-signature",
  },
  {
    name: "tampered-id",
    description: "The webhook-id header changed after signing.",
    id: ID,
    timestamp: T,
    body: BODY,
    secrets: [A],
    received: { id: "msg_someone-else" },
    expected: "no-matching-signature",
  },
  {
    name: "tampered-timestamp",
    description: "The webhook-timestamp header changed after signing (still within tolerance).",
    id: ID,
    timestamp: T,
    body: BODY,
    secrets: [A],
    received: { timestamp: T + 10 },
    now: T + 10,
    expected: "no-matching-signature",
  },
  {
    name: "unknown-version-only",
    description: "The only signature has an unknown version prefix (the right bytes, labelled v2).",
    id: ID,
    timestamp: T,
    body: BODY,
    secrets: [A],
    received: { signature: sign(ID, T, BODY, [A]).replace(/^v1,/, "v2,") },
    expected: "no-matching-signature",
  },
  {
    name: "malformed-signature",
    description: "A signature header without a version prefix.",
    id: ID,
    timestamp: T,
    body: BODY,
    secrets: [A],
    received: { signature: sign(ID, T, BODY, [A]).replace(/^v1,/, "") },
    expected: "no-matching-signature",
  },
  {
    name: "expired",
    description: "301 seconds old: refused as a possible replay, although the signature matches.",
    id: ID,
    timestamp: T,
    body: BODY,
    secrets: [A],
    now: T + TOLERANCE_SECONDS + 1,
    expected: "timestamp-too-old",
  },
  {
    name: "from-the-future",
    description: "301 seconds ahead of the receiver's clock: refused, although the signature matches.",
    id: ID,
    timestamp: T,
    body: BODY,
    secrets: [A],
    now: T - TOLERANCE_SECONDS - 1,
    expected: "timestamp-too-new",
  },
];

const vectors = cases.map((c) => ({
  name: c.name,
  description: c.description,
  id: c.id,
  timestamp: c.timestamp,
  body: c.body,
  secrets: c.secrets,
  signature: sign(c.id, c.timestamp, c.body, c.secrets),
  received: {
    id: c.received?.id ?? c.id,
    timestamp: c.received?.timestamp ?? c.timestamp,
    body: c.received?.body ?? c.body,
    signature: c.received?.signature ?? sign(c.id, c.timestamp, c.body, c.secrets),
  },
  receiverSecrets: c.receiverSecrets ?? c.secrets,
  now: c.now ?? c.timestamp,
  expected: c.expected ?? "valid",
}));

const out = fileURLToPath(new URL("../vectors.json", import.meta.url));
writeFileSync(out, `${JSON.stringify(vectors, null, 2)}\n`);
