import { createHmac, createPublicKey, verify } from "node:crypto";
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { signInputVectors } from "../src/sign-input-vectors.js";
import type { TestVectorVerdict } from "../src/test-vector.js";
import { vectors } from "../src/vectors.js";

// The reference library reads the clock itself; each vector fixes the receiver's clock, so only
// Date is faked (no timers), and only while a vector is being verified.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
});
afterEach(() => {
  vi.useRealTimers();
});

/** The reference library's error message for each verdict. */
const referenceMessage: Record<Exclude<TestVectorVerdict, "valid">, string> = {
  "no-matching-signature": "No matching signature found",
  "timestamp-too-old": "Message timestamp too old",
  "timestamp-too-new": "Message timestamp too new",
};

/** The reference verdict: a delivery is valid when any secret the receiver holds verifies it. */
function referenceVerdict(vector: (typeof vectors)[number]): TestVectorVerdict {
  vi.setSystemTime(vector.now * 1000);
  const headers = {
    "webhook-id": vector.received.id,
    "webhook-timestamp": String(vector.received.timestamp),
    "webhook-signature": vector.received.signature,
  };
  let failure: TestVectorVerdict | undefined;
  for (const secret of vector.receiverSecrets) {
    try {
      new Webhook(secret).verify(vector.received.body, headers);
      return "valid";
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      const verdict = Object.entries(referenceMessage).find(([, message]) => message === error.message)?.[0];
      if (verdict === undefined) throw error;
      failure = verdict as TestVectorVerdict;
    }
  }
  if (failure === undefined) throw new Error(`${vector.name} has no receiver secrets`);
  return failure;
}

const named = vectors.map((v) => [v.name, v] as const);
/** The reference library knows v1 only: it signs and judges the vectors whose keys are all whsec_. */
const isV1Key = (key: string) => !key.startsWith("whsk_") && !key.startsWith("whpk_");
const v1Signed = named.filter(([, v]) => v.secrets.every(isV1Key));
const v1Judged = named.filter(([, v]) => v.receiverSecrets.every(isV1Key));

const SPKI_ED25519 = Buffer.from("302a300506032b6570032100", "hex");

/** An independent v1a check: node:crypto's ed25519 verify over id.timestamp.body with the raw whpk_ key. */
function ed25519Accepts(publicKey: string, vector: (typeof vectors)[number]): boolean {
  const raw = Buffer.from(publicKey.slice("whpk_".length), "base64");
  const key = createPublicKey({ key: Buffer.concat([SPKI_ED25519, raw]), format: "der", type: "spki" });
  const { id, timestamp, body, signature } = vector.received;
  const message = Buffer.from(`${id}.${timestamp}.${body}`, "utf8");
  return signature
    .split(" ")
    .filter((part) => part.startsWith("v1a,"))
    .some((part) => verify(null, message, key, Buffer.from(part.slice(4), "base64")));
}

describe("spec/vectors.json", () => {
  it("covers valid deliveries, rotation, unicode and every failure", () => {
    const verdicts = new Set(vectors.map((v) => v.expected));
    expect([...verdicts].sort()).toStrictEqual([
      "no-matching-signature",
      "timestamp-too-new",
      "timestamp-too-old",
      "valid",
    ]);
    expect(vectors.some((v) => v.secrets.length > 1 && v.expected === "valid")).toBe(true);
    expect(vectors.some((v) => Buffer.byteLength(v.body) > v.body.length)).toBe(true);
    expect(new Set(vectors.map((v) => v.name)).size).toBe(vectors.length);
  });

  it("has v1a (ed25519) vectors, valid and refused, and inputs a signer must refuse", () => {
    const v1a = vectors.filter((v) => v.secrets.some((s) => s.startsWith("whsk_")));
    expect(
      v1a.some((v) => v.expected === "valid" && v.receiverSecrets.every((s) => s.startsWith("whpk_"))),
    ).toBe(true);
    expect(v1a.some((v) => v.expected === "no-matching-signature")).toBe(true);
    expect(signInputVectors.length).toBeGreaterThan(5);
    expect(new Set(signInputVectors.map((v) => v.expected))).toStrictEqual(new Set(["invalid-sign-input"]));
  });

  it.each(named.filter(([, v]) => v.secrets.some((s) => s.startsWith("whsk_"))))(
    "%s: each v1a signature verifies with node:crypto's ed25519 under the signing key's public half",
    (_name, vector) => {
      for (const part of vector.signature.split(" ").filter((p) => p.startsWith("v1a,"))) {
        expect(Buffer.from(part.slice(4), "base64")).toHaveLength(64);
      }
      const own = vector.secrets
        .filter((s) => s.startsWith("whsk_"))
        .map((s) => {
          const bytes = Buffer.from(s.slice(5), "base64");
          return bytes.length === 64 ? `whpk_${bytes.subarray(32).toString("base64")}` : undefined;
        })
        .filter((k): k is string => k !== undefined);
      const holder = own[0] ?? vector.receiverSecrets.find((s) => s.startsWith("whpk_"));
      if (holder === undefined) throw new Error(`${vector.name}: no public key to check with`);
      expect(
        ed25519Accepts(holder, { ...vector, received: { ...vector, signature: vector.signature } }),
      ).toBe(true);
    },
  );

  it.each(named.filter(([, v]) => v.receiverSecrets.some((s) => s.startsWith("whpk_"))))(
    "%s: an independent ed25519 check agrees with the expected signature verdict",
    (_name, vector) => {
      const accepted = vector.receiverSecrets
        .filter((s) => s.startsWith("whpk_"))
        .some((k) => ed25519Accepts(k, vector));
      const secrets = vector.receiverSecrets.filter(isV1Key);
      const hmacAccepted =
        secrets.length > 0 &&
        referenceVerdict({ ...vector, receiverSecrets: secrets }) !== "no-matching-signature";
      expect(accepted || hmacAccepted).toBe(vector.expected !== "no-matching-signature");
    },
  );

  it.each(v1Signed)("%s: the reference library signs the same signature", (_name, vector) => {
    const signature = vector.secrets
      .map((secret) => new Webhook(secret).sign(vector.id, new Date(vector.timestamp * 1000), vector.body))
      .join(" ");
    expect(signature).toBe(vector.signature);
  });

  it.each(v1Signed)(
    "%s: node:crypto HMAC-SHA256 over id.timestamp.body gives the same signature",
    (_name, vector) => {
      const signature = vector.secrets
        .map((secret) => {
          const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
          const mac = createHmac("sha256", key).update(
            Buffer.from(`${vector.id}.${vector.timestamp}.${vector.body}`, "utf8"),
          );
          return `v1,${mac.digest("base64")}`;
        })
        .join(" ");
      expect(signature).toBe(vector.signature);
    },
  );

  it.each(v1Judged)("%s: the reference library's verdict is the expected one", (_name, vector) => {
    expect(referenceVerdict(vector)).toBe(vector.expected);
  });
});
