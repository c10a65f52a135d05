#!/usr/bin/env node
// Writes spec/vectors.json: Standard Webhooks v1 (HMAC-SHA256, whsec_) and v1a (ed25519, whsk_ /
// whpk_) signing vectors for the New Plant webhook, and spec/sign-input-vectors.json: inputs a
// signer must refuse. Signatures are computed here with node:crypto alone, so the tests can check
// them against other implementations (the reference `standardwebhooks` library for v1, and both
// builds of @plant-store/types).
// Deterministic: secrets derive from fixed labels, so re-running it rewrites the same file.
// Run: node spec/scripts/generate-vectors.mjs
import { createHash, createHmac, createPrivateKey, createPublicKey, sign as ed25519Sign } from "node:crypto";
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const TOLERANCE_SECONDS = 300;
const T = 1767225600; // 2026-01-01T00:00:00Z

/** A `whsec_` secret of `bytes` bytes derived from a label (test data, never a real secret). */
function secret(label, bytes = 32) {
  return `whsec_${createHash("sha256").update(label).digest().subarray(0, bytes).toString("base64")}`;
}

const PKCS8_ED25519 = Buffer.from("302e020100300506032b657004220420", "hex");

/** The ed25519 private key of a `whsk_` key (a 32-byte seed, optionally followed by its public key). */
function ed25519Key(signingKey) {
  const seed = Buffer.from(signingKey.slice("whsk_".length), "base64").subarray(0, 32);
  return createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: "der", type: "pkcs8" });
}

/** A v1a key pair derived from a label: `whsk_` of seed and public key (as Svix issues them), `whpk_`. */
function keyPair(label) {
  const seed = createHash("sha256").update(label).digest();
  const probe = ed25519Key(`whsk_${seed.toString("base64")}`);
  const publicKey = Buffer.from(createPublicKey(probe).export({ format: "jwk" }).x, "base64url");
  return {
    signing: `whsk_${Buffer.concat([seed, publicKey]).toString("base64")}`,
    seedOnly: `whsk_${seed.toString("base64")}`,
    public: `whpk_${publicKey.toString("base64")}`,
  };
}

function sign(id, timestamp, body, secrets) {
  const message = Buffer.from(`${id}.${timestamp}.${body}`, "utf8");
  return secrets
    .map((s) => {
      if (s.startsWith("whsk_")) return `v1a,${ed25519Sign(null, message, ed25519Key(s)).toString("base64")}`;
      const key = Buffer.from(s.replace(/^whsec_/, ""), "base64");
      return `v1,${createHmac("sha256", key).update(message).digest("base64")}`;
    })
    .join(" ");
}

const A = secret("plant-store vector secret A");
const B = secret("plant-store vector secret B (rotated in)");
const C = secret("plant-store vector secret C (never used to sign)");
const SHORT = secret("plant-store vector secret D (24 bytes)", 24);

const K = keyPair("plant-store vector ed25519 key K");
const L = keyPair("plant-store vector ed25519 key L (never used to sign)");
/** Secret A without its `=` padding, as the Python library and npm `standardwebhooks` accept it. */
const A_UNPADDED = A.replace(/=+$/, "");

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
  {
    name: "unpadded-secret",
    description:
      "The secret written without its base64 '=' padding (accepted by the Python library and npm standardwebhooks): the same key.",
    id: ID,
    timestamp: T,
    body: BODY,
    secrets: [A_UNPADDED],
  },
  {
    name: "secret-without-prefix",
    description: "The secret without its whsec_ prefix, as the reference libraries accept it.",
    id: ID,
    timestamp: T,
    body: BODY,
    secrets: [A.slice("whsec_".length)],
  },
  {
    name: "garbage-next-to-valid",
    description:
      "A v1 value that is not base64 beside a valid one: the bad one is skipped, the delivery accepted.",
    id: ID,
    timestamp: T,
    body: BODY,
    secrets: [A],
    received: { signature: `v1,not-a-signature ${sign(ID, T, BODY, [A])}` },
  },
  {
    name: "non-canonical-base64",
    description: "The right signature with one '=' too many: not the signature's one spelling, so refused.",
    id: ID,
    timestamp: T,
    body: BODY,
    secrets: [A],
    received: { signature: `${sign(ID, T, BODY, [A])}=` },
    expected: "no-matching-signature",
  },
  {
    name: "unpadded-signature",
    description: "The right signature without its '=' padding: not the signature's one spelling, so refused.",
    id: ID,
    timestamp: T,
    body: BODY,
    secrets: [A],
    received: { signature: sign(ID, T, BODY, [A]).replace(/=+$/, "") },
    expected: "no-matching-signature",
  },
  {
    name: "v1a-basic",
    description:
      "v1a: signed with an ed25519 whsk_ key (seed and public key), verified with its whpk_ public key.",
    id: ID,
    timestamp: T,
    body: BODY,
    secrets: [K.signing],
    receiverSecrets: [K.public],
  },
  {
    name: "v1a-seed-only",
    description: "v1a: a whsk_ key holding only the 32-byte seed signs the same as the full key.",
    id: ID,
    timestamp: T,
    body: BODY,
    secrets: [K.seedOnly],
    receiverSecrets: [K.public],
  },
  {
    name: "v1a-unicode-body",
    description: "v1a over a non-ASCII body: ed25519 signs the UTF-8 bytes of id.timestamp.body.",
    id: "msg_unicode",
    timestamp: T,
    body: '{"id":3,"name":"Gänseblümchen 🌼","tag":"日本の盆栽 — ñ"}',
    secrets: [K.signing],
    receiverSecrets: [K.public],
  },
  {
    name: "v1-and-v1a-receiver-holds-public-key",
    description:
      "Migration: the sender signs with a whsec_ secret and a whsk_ key; a receiver holding only the whpk_ key accepts.",
    id: ID,
    timestamp: T,
    body: BODY,
    secrets: [A, K.signing],
    receiverSecrets: [K.public],
  },
  {
    name: "v1-and-v1a-receiver-holds-secret",
    description: "The same delivery is accepted by a receiver holding only the whsec_ secret (it skips v1a).",
    id: ID,
    timestamp: T,
    body: BODY,
    secrets: [A, K.signing],
    receiverSecrets: [A],
  },
  {
    name: "v1a-receiver-holds-both-kinds",
    description: "A receiver holding a whsec_ secret and a whpk_ key accepts a v1a-only delivery.",
    id: ID,
    timestamp: T,
    body: BODY,
    secrets: [K.signing],
    receiverSecrets: [C, K.public],
  },
  {
    name: "v1a-wrong-public-key",
    description: "v1a signed with one key, the receiver holds another key's whpk_.",
    id: ID,
    timestamp: T,
    body: BODY,
    secrets: [K.signing],
    receiverSecrets: [L.public],
    expected: "no-matching-signature",
  },
  {
    name: "v1a-only-receiver-holds-secret",
    description: "Only a v1a signature, and the receiver holds only a whsec_ secret: nothing it can check.",
    id: ID,
    timestamp: T,
    body: BODY,
    secrets: [K.signing],
    receiverSecrets: [A],
    expected: "no-matching-signature",
  },
  {
    name: "v1a-tampered-body",
    description: "v1a: the body changed after signing.",
    id: ID,
    timestamp: T,
    body: BODY,
    secrets: [K.signing],
    received: { body: BODY.replace("Monstera deliciosa", "Monstera adansonii") },
    receiverSecrets: [K.public],
    expected: "no-matching-signature",
  },
  {
    name: "v1a-labelled-v1",
    description: "The v1a signature's bytes labelled v1: never checked as ed25519.",
    id: ID,
    timestamp: T,
    body: BODY,
    secrets: [K.signing],
    received: { signature: sign(ID, T, BODY, [K.signing]).replace(/^v1a,/, "v1,") },
    receiverSecrets: [K.public],
    expected: "no-matching-signature",
  },
  {
    name: "v1a-expired",
    description: "v1a: 301 seconds old, refused although the signature matches.",
    id: ID,
    timestamp: T,
    body: BODY,
    secrets: [K.signing],
    receiverSecrets: [K.public],
    now: T + TOLERANCE_SECONDS + 1,
    expected: "timestamp-too-old",
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

/**
 * Inputs a signer must refuse rather than sign (found running the reference suites' cases: the
 * npm library floors a fractional timestamp, and a string or negative one, or an empty key, would
 * be signed as given). `timestamp` is any JSON value.
 */
const signInputVectors = [
  {
    name: "fractional-timestamp",
    description: "Seconds with a fraction would sign id.1767225600.5.body.",
    timestamp: T + 0.5,
  },
  { name: "string-timestamp", description: "A timestamp given as text.", timestamp: String(T) },
  { name: "negative-timestamp", description: "A time before 1970.", timestamp: -1 },
  { name: "unsafe-timestamp", description: "Past the safe-integer range, so not exact.", timestamp: 2 ** 53 },
  { name: "empty-key", description: "An empty secret.", secrets: [""] },
  { name: "no-keys", description: "No secret at all.", secrets: [] },
  { name: "bare-prefix", description: "Only the whsec_ prefix.", secrets: ["whsec_"] },
  {
    name: "public-key-cannot-sign",
    description: "A whpk_ public key given to the signer.",
    secrets: [K.public],
  },
  { name: "empty-id", description: "An empty webhook-id.", id: "" },
  { name: "id-with-space", description: "A webhook-id a receiver would refuse (space).", id: "msg one" },
  { name: "id-too-long", description: "A webhook-id of 257 characters.", id: "m".repeat(257) },
].map((c) => ({
  name: c.name,
  description: c.description,
  id: c.id ?? ID,
  timestamp: c.timestamp ?? T,
  body: BODY,
  secrets: c.secrets ?? [A],
  expected: "invalid-sign-input",
}));
writeFileSync(
  fileURLToPath(new URL("../sign-input-vectors.json", import.meta.url)),
  `${JSON.stringify(signInputVectors, null, 2)}\n`,
);
