import { createHmac } from "node:crypto";
import { generateWebhookSecret, parseWebhookSecret } from "@plant-store/types";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { createVerifier, type VerifyFunction } from "./create-verifier.js";
import { InvalidReceiverOptionsError } from "./errors/invalid-receiver-options-error.js";

const secret = generateWebhookSecret();
const now = new Date("2026-01-01T00:00:00Z");
// A verifier made per call: code under test that ran while the file loads would count as run by no
// test at all in mutation testing, which then reruns every test for each of its mutants.
const make = () => createVerifier({ tokens: ["t0ken"], secrets: [secret], now: () => now });
const verify: VerifyFunction & { verify: VerifyFunction } = Object.assign(
  (...args: Parameters<VerifyFunction>) => make()(...args),
  { verify: (...args: Parameters<VerifyFunction>) => make().verify(...args) },
);

function signed(body: string, options: { id?: string; at?: Date; key?: string; token?: string } = {}) {
  const id = options.id ?? "msg_1";
  const at = options.at ?? now;
  return {
    authorization: `Bearer ${options.token ?? "t0ken"}`,
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(options.key ?? secret).sign(id, at, body),
  };
}

/**
 * Signs the exact bytes with an HMAC made here: the reference library decodes a Buffer as UTF-8 before
 * signing, so for bytes that are not UTF-8 it would sign something else and the check would fail on
 * the signature, not on the JSON.
 */
function signedBytes(body: Buffer, id = "msg_1") {
  const timestamp = String(Math.floor(now.getTime() / 1000));
  const signature = createHmac("sha256", parseWebhookSecret(secret))
    .update(`${id}.${timestamp}.`)
    .update(body)
    .digest("base64");
  return {
    authorization: "Bearer t0ken",
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": timestamp,
    "webhook-signature": `v1,${signature}`,
  };
}

describe("createVerifier", () => {
  it("accepts a delivery signed by the reference library and returns the typed plant", () => {
    const body = JSON.stringify({ id: 7, name: "Monstera deliciosa", tag: "tropical", extra: 1 });
    const result = verify(body, signed(body));
    expect(result).toEqual({
      ok: true,
      plant: { id: 7, name: "Monstera deliciosa", tag: "tropical", extra: 1 },
      delivery: { webhookId: "msg_1", timestamp: now },
    });
    expect(verify.verify(Buffer.from(body), signed(body)).ok).toBe(true);
  });

  it("finds every header under any spelling of its name, as a hand-made header record may have it", () => {
    const body = JSON.stringify({ id: 7, name: "Monstera deliciosa" });
    const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    const headers = Object.fromEntries(
      Object.entries({ ...signed(body), traceparent }).map(([name, value]) => [
        name.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase()),
        value,
      ]),
    );
    expect(Object.keys(headers)).toContain("Webhook-Signature");
    const result = verify(body, headers);
    expect(result.ok && result.delivery).toEqual({ webhookId: "msg_1", timestamp: now, traceparent });
    // The search compares whole names: a header whose name only starts like one is not it.
    const { Traceparent: _, ...rest } = headers;
    const lookalike = verify(body, { ...rest, "Traceparent-X": traceparent });
    expect(lookalike.ok && lookalike.delivery.traceparent).toBeUndefined();
  });

  it("refuses a wrong token before looking at anything else", () => {
    const result = verify("not json", { ...signed("x"), authorization: "Bearer nope" });
    expect(result.ok === false && result.error.code).toBe("ERR_INVALID_TOKEN");
  });

  it("accepts the bearer scheme in any case", () => {
    const body = JSON.stringify({ id: 1, name: "a" });
    expect(verify(body, { ...signed(body), authorization: "bEaReR t0ken" }).ok).toBe(true);
  });

  it("refuses a body whose bytes changed after signing", () => {
    const body = JSON.stringify({ id: 1, name: "a" });
    const result = verify(body.replace("a", "b"), signed(body));
    expect(result.ok === false && result.error.code).toBe("ERR_INVALID_SIGNATURE");
  });

  it("refuses a signature made with another secret", () => {
    const body = JSON.stringify({ id: 1, name: "a" });
    const result = verify(body, signed(body, { key: generateWebhookSecret() }));
    expect(result.ok === false && result.error.status).toBe(401);
  });

  it("refuses timestamps just outside the tolerance in both directions and accepts the edges", () => {
    const body = JSON.stringify({ id: 1, name: "a" });
    const at = (s: number) => new Date(now.getTime() + s * 1000);
    expect(verify(body, signed(body, { at: at(-300) })).ok).toBe(true);
    expect(verify(body, signed(body, { at: at(300) })).ok).toBe(true);
    const old = verify(body, signed(body, { at: at(-301) }));
    const future = verify(body, signed(body, { at: at(301) }));
    expect(old.ok === false && old.error.message).toMatch(/too old/);
    expect(future.ok === false && future.error.message).toMatch(/too new/);
  });

  it("names every invalid field", () => {
    const body = JSON.stringify({ id: "1", name: "" });
    const result = verify(body, signed(body));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.status).toBe(400);
    expect(result.error.message).toMatch(/^Invalid NewPlant: /);
    expect(result.error.message).toContain("id: Invalid input: expected number, received string");
    expect(result.error.message).toContain("name: ");
  });

  it("refuses correctly signed bytes that are not UTF-8 with 400 ERR_INVALID_JSON", () => {
    const body = Buffer.from([0x7b, 0xff, 0x7d]);
    const result = verify(body, signedBytes(body));
    expect(result.ok === false && [result.error.status, result.error.code]).toEqual([
      400,
      "ERR_INVALID_JSON",
    ]);
  });

  it("refuses a correctly signed body that starts with a UTF-8 byte-order mark as not JSON", () => {
    const json = Buffer.from(JSON.stringify({ id: 1, name: "a" }));
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), json]);
    const result = verify(body, signedBytes(body));
    expect(result.ok === false && [result.error.status, result.error.code]).toEqual([
      400,
      "ERR_INVALID_JSON",
    ]);
    expect(verify(json, signedBytes(json)).ok).toBe(true);
  });

  it("refuses text that is not JSON with 400 ERR_INVALID_JSON", () => {
    const text = "{not json";
    const bad = verify(text, signed(text));
    expect(bad.ok === false && bad.error.code).toBe("ERR_INVALID_JSON");
  });

  it("names a missing header without echoing any value", () => {
    const body = JSON.stringify({ id: 1, name: "a" });
    const { "webhook-id": _, ...headers } = signed(body);
    const result = verify(body, headers);
    expect(result.ok === false && result.error.message).toBe("Missing webhook-id header");
  });

  it("refuses construction without tokens or with a malformed secret, naming both problems", () => {
    expect(() => createVerifier({ tokens: [], secrets: ["nope"] })).toThrow(InvalidReceiverOptionsError);
    expect(() => createVerifier({ tokens: [], secrets: ["nope"] })).toThrow(/tokens.*secrets\[0\]/);
  });

  it("names each header that is missing, repeated or malformed, and which one", () => {
    const body = JSON.stringify({ id: 1, name: "a" });
    const cases: [string, Record<string, string | string[]>, string][] = [
      [
        "webhook-timestamp",
        { "webhook-timestamp": undefined as unknown as string },
        "Missing webhook-timestamp header",
      ],
      [
        "webhook-signature",
        { "webhook-signature": undefined as unknown as string },
        "Missing webhook-signature header",
      ],
      ["webhook-id", { "webhook-id": ["msg_1", "msg_2"] }, "Malformed webhook-id header"],
      ["webhook-timestamp", { "webhook-timestamp": "12.5" }, "Malformed webhook-timestamp header"],
      ["webhook-id", { "webhook-id": "msg 1" }, "Malformed webhook-id header"],
      ["webhook-signature", { "webhook-signature": "" }, "Malformed webhook-signature header"],
    ];
    for (const [header, change, message] of cases) {
      const headers = Object.fromEntries(
        Object.entries({ ...signed(body), ...change }).filter(([, value]) => value !== undefined),
      );
      const result = verify(body, headers);
      expect(result.ok, message).toBe(false);
      if (result.ok) continue;
      expect([result.error.status, result.error.code, result.error.message]).toEqual([
        401,
        "ERR_INVALID_WEBHOOK_HEADERS",
        message,
      ]);
      expect((result.error as { header?: string }).header).toBe(header);
    }
  });

  it("tells a wrong signature (ERR_INVALID_SIGNATURE) from a timestamp out of tolerance, and states the tolerance", () => {
    const body = JSON.stringify({ id: 1, name: "a" });
    const tight = createVerifier({
      tokens: ["t0ken"],
      secrets: [secret],
      toleranceSeconds: 10,
      now: () => now,
    });
    const old = tight(body, signed(body, { at: new Date(now.getTime() - 11_000) }));
    expect(old.ok === false && [old.error.code, old.error.message]).toEqual([
      "ERR_TIMESTAMP_OUT_OF_TOLERANCE",
      "Webhook timestamp is too old (tolerance 10 seconds)",
    ]);
    const future = tight(body, signed(body, { at: new Date(now.getTime() + 11_000) }));
    expect(future.ok === false && future.error.message).toBe(
      "Webhook timestamp is too new (tolerance 10 seconds)",
    );
    expect(tight(body, signed(body, { at: new Date(now.getTime() + 10_000) })).ok).toBe(true);
    const forged = tight(body, signed(body, { key: generateWebhookSecret() }));
    expect(forged.ok === false && forged.error.code).toBe("ERR_INVALID_SIGNATURE");
  });

  it("refuses a body over maxBodyBytes with 413, by bytes, and accepts one at the limit", () => {
    const body = JSON.stringify({ id: 1, name: "\u00e9" });
    const bytes = Buffer.byteLength(body);
    const exact = createVerifier({
      tokens: ["t0ken"],
      secrets: [secret],
      maxBodyBytes: bytes,
      now: () => now,
    });
    expect(exact(body, signed(body)).ok).toBe(true);
    const smaller = createVerifier({
      tokens: ["t0ken"],
      secrets: [secret],
      maxBodyBytes: bytes - 1,
      now: () => now,
    });
    const refused = smaller(body, signed(body));
    expect(refused.ok === false && [refused.error.status, refused.error.code]).toEqual([
      413,
      "ERR_PAYLOAD_TOO_LARGE",
    ]);
  });

  it("holds configured tokens to the one token rule (BearerTokenSchema: visible ASCII), naming each bad one", () => {
    for (const token of ["", "a b", "t\u00e9", "t\u007f", "t\r\n", "t\u0000", 7 as unknown as string]) {
      const make = () => createVerifier({ tokens: ["good", token], secrets: [secret] });
      expect(make, JSON.stringify(token)).toThrow(InvalidReceiverOptionsError);
      expect(make, JSON.stringify(token)).toThrow(/tokens\[1\]: /);
    }
    expect(() => createVerifier({ tokens: ["a b"], secrets: [secret] })).toThrow(
      "Invalid receiver options: tokens[0]: must be visible ASCII (0x21-0x7e): no spaces, control or non-ASCII characters",
    );
    expect(() => createVerifier({ tokens: [""], secrets: [secret] })).toThrow(
      /^Invalid receiver options: tokens\[0\]: must not be empty, must be visible ASCII \(0x21-0x7e\): no spaces, control or non-ASCII characters$/,
    );
    expect(() => createVerifier({ tokens: ["!~"], secrets: [secret] })).not.toThrow();
  });

  it("names every unusable option in one message", () => {
    const attempt = (options: Record<string, unknown>) => () =>
      createVerifier({ tokens: ["t0ken"], secrets: [secret], ...options } as never);
    // Exactly this problem: no token rule is checked on tokens that are not there.
    expect(attempt({ tokens: undefined })).toThrow(
      /^Invalid receiver options: tokens: at least one is required$/,
    );
    expect(attempt({ secrets: [] })).toThrow("Invalid receiver options: secrets: at least one is required");
    expect(attempt({ secrets: undefined })).toThrow(
      /^Invalid receiver options: secrets: at least one is required$/,
    );
    expect(attempt({ toleranceSeconds: -1 })).toThrow("toleranceSeconds: must be a non-negative integer");
    expect(attempt({ toleranceSeconds: 1.5 })).toThrow("toleranceSeconds: must be a non-negative integer");
    expect(attempt({ toleranceSeconds: 0 })).not.toThrow();
    expect(attempt({ maxBodyBytes: 0 })).toThrow("maxBodyBytes: must be a positive integer");
    expect(attempt({ maxBodyBytes: 2.5 })).toThrow("maxBodyBytes: must be a positive integer");
    expect(attempt({ maxBodyBytes: 1 })).not.toThrow();
    // Refused by the receiver's own options check, as one of its problems (not later by the core).
    expect(attempt({ secrets: [`whsk_${Buffer.alloc(32, 1).toString("base64")}`] })).toThrow(
      "Invalid receiver options: secrets[0]: a whsk_ signing key belongs to the sender; give the receiver its whpk_ public key",
    );
    expect(attempt({ secrets: [`whsk_${Buffer.alloc(32, 1).toString("base64")}`] })).toThrow(
      InvalidReceiverOptionsError,
    );
    expect(attempt({ tokens: [], secrets: [], maxBodyBytes: 0 })).toThrow(
      "Invalid receiver options: tokens: at least one is required; secrets: at least one is required; maxBodyBytes: must be a positive integer",
    );
  });
});
