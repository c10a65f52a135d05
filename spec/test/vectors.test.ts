import { createHmac } from "node:crypto";
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
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

  it.each(named)("%s: the reference library signs the same signature", (_name, vector) => {
    const signature = vector.secrets
      .map((secret) => new Webhook(secret).sign(vector.id, new Date(vector.timestamp * 1000), vector.body))
      .join(" ");
    expect(signature).toBe(vector.signature);
  });

  it.each(named)(
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

  it.each(named)("%s: the reference library's verdict is the expected one", (_name, vector) => {
    expect(referenceVerdict(vector)).toBe(vector.expected);
  });
});
