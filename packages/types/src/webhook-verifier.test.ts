import { generateKeyPairSync, sign as nodeSign } from "node:crypto";
import { describe, expect, it } from "vitest";
import { InvalidSignInputError } from "./invalid-sign-input-error.js";
import * as node from "./node-signing.js";
import * as web from "./web-signing.js";
import { generateWebhookSecret } from "./webhook-secret.js";
import { InvalidWebhookSecretError } from "./webhook-secret-error.js";
import { WebhookVerificationError } from "./webhook-verification-error.js";

// The signing core's input rules and verdicts, one by one, each with the exact error a caller sees.

const now = new Date(1_767_225_600_000);
const seconds = now.getTime() / 1000;
// A fixed secret, not a generated one: nothing of the code under test runs outside a test, so
// mutation testing can tell which test covers what.
const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const body = '{"id":1,"name":"a"}';

function thrown(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error("nothing was thrown");
}

function ed25519() {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const raw = (key: { export(o: { format: "jwk" }): { d?: string; x?: string } }, part: "d" | "x") =>
    Buffer.from(key.export({ format: "jwk" })[part] ?? "", "base64url");
  const seed = raw(privateKey, "d");
  const pub = raw(publicKey, "x");
  return {
    privateKey,
    signingKey: `whsk_${Buffer.concat([seed, pub]).toString("base64")}`,
    publicKey: `whpk_${pub.toString("base64")}`,
  };
}

describe("the signer's input rules", () => {
  const message = { id: "msg_1", timestamp: seconds, body };

  it("needs at least one key", () => {
    for (const secrets of [[], undefined, "whsec_x"]) {
      const error = thrown(() => node.createWebhookSigner(secrets as never));
      expect(error).toBeInstanceOf(InvalidSignInputError);
      expect(error.message).toBe("secrets: at least one key is required");
    }
    // Without an input object at all: the same typed error, not a TypeError.
    expect(thrown(() => node.signWebhook(undefined as never))).toBeInstanceOf(InvalidSignInputError);
  });

  it("names the key that cannot sign, keeping the parser's error as the cause", () => {
    const bad = thrown(() => node.createWebhookSigner([secret, "whsec_!!"]));
    expect(bad).toBeInstanceOf(InvalidSignInputError);
    expect(bad.message).toBe("secrets[1]: Webhook secret must be base64 after its prefix");
    expect(bad.cause).toBeInstanceOf(InvalidWebhookSecretError);
    const empty = thrown(() => node.createWebhookSigner([new Uint8Array(0)]));
    expect(empty.message).toBe("secrets[0]: Webhook secret must be a non-empty string or non-empty bytes");
    const number = thrown(() => node.createWebhookSigner([42 as never]));
    expect(number.message).toBe("secrets[0]: Webhook secret must be a non-empty string or non-empty bytes");
    const { publicKey } = ed25519();
    expect(thrown(() => node.createWebhookSigner([publicKey])).message).toBe(
      "secrets[0]: a whpk_ public key cannot sign; give the sender the whsk_ signing key",
    );
    // A whsk_ key whose halves do not belong together: refused, with the crypto's error as the cause.
    const one = ed25519().signingKey.slice(5);
    const other = ed25519().signingKey.slice(5);
    const mixed = `whsk_${Buffer.concat([
      Buffer.from(one, "base64").subarray(0, 32),
      Buffer.from(other, "base64").subarray(32),
    ]).toString("base64")}`;
    const mismatch = thrown(() => node.createWebhookSigner([mixed]));
    expect(mismatch.message).toBe(
      "secrets[0]: Webhook signing key (whsk_): the public key half does not match the seed",
    );
    expect(mismatch.cause).toBeInstanceOf(InvalidWebhookSecretError);
  });

  it("refuses an id, a timestamp or a body it must not sign, and signs the edges it may", () => {
    const sign = node.createWebhookSigner([secret]);
    const refused: [Partial<typeof message>, string][] = [
      [{ id: "" }, "id: must be 1 to 256 printable ASCII characters without spaces"],
      [{ id: "msg 1" }, "id: must be 1 to 256 printable ASCII characters without spaces"],
      [{ id: 7 as never }, "id: must be 1 to 256 printable ASCII characters without spaces"],
      // An array passes a length-and-pattern check on its text ("msg_1"): only the type check refuses it.
      [{ id: ["msg_1"] as never }, "id: must be 1 to 256 printable ASCII characters without spaces"],
      [{ timestamp: -1 }, "timestamp: must be a non-negative integer number of seconds"],
      [{ timestamp: 1.5 }, "timestamp: must be a non-negative integer number of seconds"],
      [{ timestamp: 2 ** 53 }, "timestamp: must be a non-negative integer number of seconds"],
      [{ timestamp: "1767225600" as never }, "timestamp: must be a non-negative integer number of seconds"],
      [{ body: 12 as never }, "body: must be a string or bytes"],
      [{ body: undefined as never }, "body: must be a string or bytes"],
    ];
    for (const [change, text] of refused) {
      const error = thrown(() => sign({ ...message, ...change }));
      expect(error, JSON.stringify(change)).toBeInstanceOf(InvalidSignInputError);
      expect(error.message).toBe(text);
    }
    expect(sign({ ...message, timestamp: 0 })).toMatch(/^v1,/);
    expect(sign({ ...message, body: new Uint8Array(0) })).toBe(sign({ ...message, body: "" }));
  });
});

describe("the verifier's options", () => {
  it("refuses a tolerance that is not a non-negative integer, and takes 0", () => {
    for (const toleranceSeconds of [-1, 1.5, Number.NaN, 2 ** 53]) {
      const error = thrown(() => node.createWebhookVerifier({ secrets: [secret], toleranceSeconds }));
      expect(error, String(toleranceSeconds)).toBeInstanceOf(RangeError);
      expect(error.message).toBe("toleranceSeconds must be a non-negative integer");
    }
    const exact = node.createWebhookVerifier({ secrets: [secret], toleranceSeconds: 0, now: () => now });
    const signature = node.signWebhook({ id: "msg_1", timestamp: seconds, body, secrets: [secret] });
    expect(exact(body, { id: "msg_1", timestamp: String(seconds), signature }).timestamp).toBe(seconds);
  });

  it("needs at least one key", () => {
    for (const secrets of [[], undefined]) {
      const error = thrown(() => node.createWebhookVerifier({ secrets: secrets as never }));
      expect(error).toBeInstanceOf(InvalidWebhookSecretError);
      expect(error.message).toBe("At least one webhook secret or public key is required");
    }
    expect(thrown(() => node.createWebhookVerifier({ secrets: [new Uint8Array(0)] })).message).toBe(
      "Webhook secret must be a non-empty string or non-empty bytes",
    );
  });
});

describe("the verifier's verdicts", () => {
  const verify = (...args: Parameters<ReturnType<typeof node.createWebhookVerifier>>) =>
    node.createWebhookVerifier({ secrets: [secret], now: () => now })(...args);
  const signed = (id = "msg_1", timestamp = seconds) => ({
    id,
    timestamp: String(timestamp),
    signature: node.signWebhook({ id, timestamp, body, secrets: [secret] }),
  });

  function failure(headers: { id: string; timestamp: string; signature: string }, check = verify) {
    const error = thrown(() => check(body, headers)) as WebhookVerificationError;
    expect(error).toBeInstanceOf(WebhookVerificationError);
    return { reason: error.reason, message: error.message, header: error.header };
  }

  it("names each malformed header before looking at the signature", () => {
    const good = signed();
    expect(failure({ ...good, id: "msg 1" })).toEqual({
      reason: "invalid-header",
      message: "Malformed webhook-id",
      header: "webhook-id",
    });
    expect(failure({ ...good, timestamp: "1.5" })).toEqual({
      reason: "invalid-header",
      message: "Malformed webhook-timestamp",
      header: "webhook-timestamp",
    });
    expect(failure({ ...good, signature: "" })).toEqual({
      reason: "invalid-header",
      message: "Malformed webhook-signature",
      header: "webhook-signature",
    });
  });

  it("says no signature matched, or which way the timestamp is out, with no header named", () => {
    expect(failure({ ...signed(), signature: signed("msg_2").signature })).toEqual({
      reason: "no-matching-signature",
      message: "No matching signature",
      header: undefined,
    });
    expect(failure(signed("msg_1", seconds - 301))).toEqual({
      reason: "timestamp-too-old",
      message: "Timestamp too old",
      header: undefined,
    });
    expect(failure(signed("msg_1", seconds + 301))).toEqual({
      reason: "timestamp-too-new",
      message: "Timestamp too new",
      header: undefined,
    });
  });

  it("finds the matching signature among several, with the matching key among several", () => {
    const other = generateWebhookSecret();
    const rotated = node.createWebhookVerifier({ secrets: [other, secret], now: () => now });
    const good = signed();
    const foreign = node.signWebhook({ id: "msg_1", timestamp: seconds, body, secrets: [other] });
    const wrong = signed("msg_2").signature;
    expect(rotated(body, { ...good, signature: `${wrong} ${good.signature}` }).webhookId).toBe("msg_1");
    expect(rotated(body, { ...good, signature: `${good.signature} ${wrong}` }).webhookId).toBe("msg_1");
    expect(rotated(body, { ...good, signature: `v2,abc ${foreign}` }).webhookId).toBe("msg_1");
    expect(failure({ ...good, signature: `${wrong} v1a,${"A".repeat(85)}A==` }, rotated).reason).toBe(
      "no-matching-signature",
    );
  });

  it("verifies v1a only in its one spelling, at once on node:crypto", () => {
    const { privateKey, publicKey } = ed25519();
    const check = node.createWebhookVerifier({ secrets: [publicKey, secret], now: () => now });
    const id = "msg_v1a";
    const raw = nodeSign(null, Buffer.from(`${id}.${seconds}.${body}`), privateKey).toString("base64");
    const headers = (signature: string) => ({ id, timestamp: String(seconds), signature });
    const result = check(body, headers(`v1a,${raw}`));
    // node:crypto answers at once: a plain value, never a promise.
    expect(result).not.toBeInstanceOf(Promise);
    expect(result.webhookId).toBe(id);
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const last = raw.charAt(85);
    for (const variant of [
      raw.slice(0, 86),
      `${raw.slice(0, 86)}=`,
      `${raw}=`,
      raw.replace(/\+/g, "-").replace(/\//g, "_"),
      // Same 64 bytes: the four bits the last character carries past them are not zero.
      `${raw.slice(0, 85)}${alphabet.charAt(alphabet.indexOf(last) + 1)}==`,
    ]) {
      if (variant === raw) continue;
      expect(Buffer.from(variant, "base64")).toEqual(Buffer.from(raw, "base64"));
      expect(failure(headers(`v1a,${variant}`), check).reason, variant).toBe("no-matching-signature");
    }
    // A v1 value under the v1a label is not a v1a signature, and the other way round.
    const v1 = node.signWebhook({ id, timestamp: seconds, body, secrets: [secret] });
    expect(check(body, headers(v1)).webhookId).toBe(id);
    expect(failure(headers(`v1a,${v1.slice(3)}`), check).reason).toBe("no-matching-signature");
    expect(failure(headers(`v1,${raw}`), check).reason).toBe("no-matching-signature");
  });
});

describe("the Web build", () => {
  it("the Web build's verifier refuses what the Node build refuses", async () => {
    const verify = web.createWebhookVerifier({ secrets: [secret], now: () => now });
    const signature = node.signWebhook({ id: "msg_1", timestamp: seconds, body, secrets: [secret] });
    await expect(verify(body, { id: "msg_1", timestamp: String(seconds), signature })).resolves.toEqual({
      webhookId: "msg_1",
      timestamp: seconds,
    });
    await expect(
      verify(`${body} `, { id: "msg_1", timestamp: String(seconds), signature }),
    ).rejects.toMatchObject({ reason: "no-matching-signature" });
  });
});
