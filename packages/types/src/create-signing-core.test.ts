import { createHmac, generateKeyPairSync, verify } from "node:crypto";
import { openapi, signInputVectors, vectors } from "@plant-store/spec";
import fc from "fast-check";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { InvalidSignInputError } from "./invalid-sign-input-error.js";
import * as node from "./node-signing.js";
import * as web from "./web-signing.js";
import { generateWebhookSecret } from "./webhook-secret.js";
import { WebhookVerificationError } from "./webhook-verification-error.js";

// The two builds of the one core, run on the same vectors: node:crypto (plain values) and Web
// Crypto (promises). Anything one accepts and the other refuses fails here.
const builds = [
  ["node:crypto", node],
  ["Web Crypto", web],
] as const;

const named = vectors.map((v) => [v.name, v] as const);

async function verdict(build: (typeof builds)[number][1], vector: (typeof vectors)[number]) {
  const verify = build.createWebhookVerifier({
    secrets: vector.receiverSecrets,
    now: () => new Date(vector.now * 1000),
  });
  const { id, timestamp, body, signature } = vector.received;
  try {
    await verify(body, { id, timestamp: String(timestamp), signature });
    return "valid";
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.reason;
    throw error;
  }
}

describe.each(builds)("signing core on %s", (_runtime, build) => {
  it.each(named)("signs vector %s to the expected header", async (_name, vector) => {
    const { id, timestamp, body, secrets } = vector;
    expect(await build.signWebhook({ id, timestamp, body, secrets })).toBe(vector.signature);
  });

  it.each(named)("judges vector %s as the vector says", async (_name, vector) => {
    expect(await verdict(build, vector)).toBe(vector.expected);
  });

  it.each(signInputVectors.map((v) => [v.name, v] as const))(
    "refuses to sign %s with InvalidSignInputError",
    async (_name, vector) => {
      const input = { ...vector, timestamp: vector.timestamp as number };
      await expect(async () => build.signWebhook(input)).rejects.toThrow(InvalidSignInputError);
      await expect(async () => build.signWebhook(input)).rejects.toMatchObject({
        code: "ERR_INVALID_SIGN_INPUT",
      });
    },
  );

  it("signs a bytes body and raw key bytes the same as a string body and whsec_ secrets", async () => {
    const vector = vectors.find((v) => v.name === "basic");
    if (vector === undefined) throw new Error("no basic vector");
    const key = Buffer.from((vector.secrets[0] as string).slice(6), "base64");
    const header = await build.signWebhook({
      id: vector.id,
      timestamp: vector.timestamp,
      body: new TextEncoder().encode(vector.body),
      secrets: [new Uint8Array(key)],
    });
    expect(header).toBe(vector.signature);
  });

  it("makes key pairs whose whsk_ signs what its whpk_ and an independent node:crypto check accept", async () => {
    const pair = await build.generateWebhookKeyPair();
    expect(pair.signingKey).toMatch(/^whsk_[A-Za-z0-9+/]{86}==$/);
    expect(pair.publicKey).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
    const message = { id: "msg_pair", timestamp: 1_767_225_600, body: '{"id":1,"name":"a"}' };
    const header = await build.createWebhookSigner([pair.signingKey])(message);
    const raw = Buffer.from(pair.publicKey.slice(5), "base64");
    const jwk = { kty: "OKP", crv: "Ed25519", x: raw.toString("base64url") };
    const signed = Buffer.from(`${message.id}.${message.timestamp}.${message.body}`);
    expect(verify(null, signed, { key: jwk, format: "jwk" }, Buffer.from(header.slice(4), "base64"))).toBe(
      true,
    );
    const check = build.createWebhookVerifier({
      secrets: [pair.publicKey],
      now: () => new Date(1_767_225_600_000),
    });
    expect(
      await check(message.body, { id: message.id, timestamp: String(message.timestamp), signature: header }),
    ).toEqual({ webhookId: "msg_pair", timestamp: 1_767_225_600 });
  });

  it("refuses a whsk_ key whose public half is not its seed's", async () => {
    const a = await build.generateWebhookKeyPair();
    const b = await build.generateWebhookKeyPair();
    const mixed = `whsk_${Buffer.concat([
      Buffer.from(a.signingKey.slice(5), "base64").subarray(0, 32),
      Buffer.from(b.publicKey.slice(5), "base64"),
    ]).toString("base64")}`;
    await expect(async () =>
      build.createWebhookSigner([mixed])({ id: "msg_1", timestamp: 1, body: "{}" }),
    ).rejects.toThrow(/does not match the seed/);
  });

  it("refuses a whsk_ signing key on the receiving side, naming the whpk_ key to use instead", () => {
    const pair = node.generateWebhookKeyPair();
    expect(() => build.createWebhookVerifier({ secrets: [pair.signingKey] })).toThrow(/whpk_ public key/);
  });

  it("accepts whatever the reference library signs for any id, body and key, and signs the same", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.stringMatching(/^[\x21-\x7e]{1,64}$/),
        fc.string({ unit: "grapheme", maxLength: 200 }),
        fc.uint8Array({ minLength: 16, maxLength: 64 }),
        async (id, body, key) => {
          const secret = `whsec_${Buffer.from(key).toString("base64")}`;
          const timestamp = Math.floor(Date.now() / 1000);
          const reference = new Webhook(secret).sign(id, new Date(timestamp * 1000), body);
          expect(await build.signWebhook({ id, timestamp, body, secrets: [secret] })).toBe(reference);
          const check = build.createWebhookVerifier({ secrets: [secret] });
          expect(await check(body, { id, timestamp: String(timestamp), signature: reference })).toEqual({
            webhookId: id,
            timestamp,
          });
        },
      ),
      { numRuns: 150 },
    );
  });

  it("refuses a v1a signature with anything before its version, though the bytes after it verify", async () => {
    const pair = node.generateWebhookKeyPair();
    const signature = await build.createWebhookSigner([pair.signingKey])({
      id: "msg_1",
      timestamp: 1000,
      body: "{}",
    });
    const check = build.createWebhookVerifier({ secrets: [pair.publicKey], now: () => new Date(1_000_000) });
    expect(await check("{}", { id: "msg_1", timestamp: "1000", signature })).toMatchObject({
      webhookId: "msg_1",
    });
    for (const spelling of [`x${signature}`, ` ${signature}`.replace(" ", "\t"), `,${signature}`]) {
      await expect(async () =>
        check("{}", { id: "msg_1", timestamp: "1000", signature: spelling }),
      ).rejects.toMatchObject({ reason: "no-matching-signature" });
    }
  });

  it("refuses every one-byte change of the body under v1a", async () => {
    const pair = node.generateWebhookKeyPair();
    const sign = build.createWebhookSigner([pair.signingKey]);
    const check = build.createWebhookVerifier({ secrets: [pair.publicKey], now: () => new Date(1_000_000) });
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 1, maxLength: 64 }),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        async (bytes, at, flip) => {
          const signature = await sign({ id: "msg_1", timestamp: 1000, body: bytes });
          const tampered = Uint8Array.from(bytes);
          tampered[at % tampered.length] = (tampered[at % tampered.length] as number) ^ flip;
          await expect(async () =>
            check(tampered, { id: "msg_1", timestamp: "1000", signature }),
          ).rejects.toMatchObject({
            reason: "no-matching-signature",
          });
        },
      ),
      { numRuns: 50 },
    );
  });
});

describe("the two builds", () => {
  it("sign every generated key pair's deliveries identically (ed25519 is deterministic)", async () => {
    const { privateKey } = generateKeyPairSync("ed25519");
    const jwk = privateKey.export({ format: "jwk" });
    const seed = Buffer.from(jwk.d ?? "", "base64url");
    const secrets = [`whsk_${seed.toString("base64")}`, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"];
    const message = { id: "msg_same", timestamp: 1_767_225_600, body: '{"id":7,"name":"Ficus"}' };
    expect(await web.signWebhook({ ...message, secrets })).toBe(node.signWebhook({ ...message, secrets }));
  });
});

describe("the verifier's canonical-base64 rule", () => {
  it("refuses a v1 value that a lenient decoder reads as the right bytes but is not its one spelling", () => {
    const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const now = new Date(1_767_225_600_000);
    const check = node.createWebhookVerifier({ secrets: [secret], now: () => now });
    const bytes = '{"id":1,"name":"a"}';
    // An id whose signature has a `+` or `/`, so the base64url spelling differs from it.
    let id = "msg_0";
    let good = "";
    for (let i = 0; !/[+/]/.test(good); i++) {
      id = `msg_${i}`;
      good = new Webhook(secret).sign(id, now, bytes);
    }
    const headers = (signature: string) => ({ id, timestamp: String(now.getTime() / 1000), signature });
    expect(check(bytes, headers(good)).webhookId).toBe(id);
    const value = good.slice(3);
    const last = value.charAt(42);
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const variants = [
      `${value}!!`,
      value.slice(0, 43),
      `${value}=`,
      `${value.slice(0, 20)}\t${value.slice(20)}`,
      value.replace(/\+/g, "-").replace(/\//g, "_"),
      // Same 32 bytes: the two bits the last character carries past byte 32 are not zero.
      `${value.slice(0, 42)}${alphabet.charAt(alphabet.indexOf(last) + 1)}=`,
    ];
    for (const variant of variants) {
      expect(Buffer.from(variant, "base64")).toEqual(Buffer.from(value, "base64"));
      expect(() => check(bytes, headers(`v1,${variant}`)), variant).toThrow(WebhookVerificationError);
    }
  });
});

describe.each(builds)("the verification answer on %s", (_runtime, build) => {
  // The document's example (components.pathItems.WebhookVerification, 200): spec/test/verification.test.ts
  // recomputes it with node:crypto alone.
  const example =
    openapi.components.pathItems.WebhookVerification.post.responses["200"].content["application/json"]
      .examples.answer;
  const secret = "whsec_4LhSXqhTq/I3QcScrtBgluRP8fJOpMvGN2zR7PU+aJo=";
  const webhookId = "msg_2b9e1c0e-6a3f-4f4e-9d1a-3f0f4c8b7a21";
  const { challenge } = example.value;
  const other = generateWebhookSecret();
  const check = (secrets: readonly string[], response: unknown, overrides = {}) =>
    build.checkVerificationResponse({ secrets, webhookId, challenge, response, ...overrides });

  it("answers the document's example with its response", async () => {
    expect(await build.answerVerificationChallenge({ secrets: [secret], webhookId, challenge })).toBe(
      example.value.response,
    );
  });

  it("answers one v1 part per whsec_ secret, in order, and skips whpk_ public keys", async () => {
    const { publicKey } = await build.generateWebhookKeyPair();
    const answer = await build.answerVerificationChallenge({
      secrets: [other, publicKey, secret],
      webhookId,
      challenge,
    });
    const mac = createHmac("sha256", Buffer.from(other.slice(6), "base64"))
      .update(`webhook.verification.${webhookId}.${challenge}`)
      .digest("base64");
    expect(answer).toBe(`v1,${mac} ${example.value.response}`);
  });

  it("cannot answer without a whsec_ secret: a public key proves nothing", async () => {
    const { publicKey } = await build.generateWebhookKeyPair();
    await expect(async () =>
      build.answerVerificationChallenge({ secrets: [publicKey], webhookId, challenge }),
    ).rejects.toThrow(/answer proves a whsec_ secret, and none was given/);
    await expect(async () =>
      build.answerVerificationChallenge({ secrets: [], webhookId, challenge }),
    ).rejects.toThrow(InvalidSignInputError);
  });

  it.each([
    ["a webhook id with a space", { webhookId: "msg 1" }],
    ["an empty webhook id", { webhookId: "" }],
    ["a challenge one too short", { challenge: "a".repeat(15) }],
    ["a challenge one too long", { challenge: "a".repeat(257) }],
    ["a challenge outside base64url", { challenge: `${"a".repeat(20)}=` }],
  ])("refuses to answer or check %s", async (_name, overrides) => {
    const input = { secrets: [secret], webhookId, challenge, ...overrides };
    await expect(async () => build.answerVerificationChallenge(input)).rejects.toThrow(InvalidSignInputError);
    await expect(async () => build.checkVerificationResponse({ ...input, response: "v1,x" })).rejects.toThrow(
      InvalidSignInputError,
    );
  });

  it("names what is wrong with its input, for JavaScript callers too", async () => {
    const fails = async (run: () => unknown, message: string) => {
      await expect(async () => run()).rejects.toThrow(new InvalidSignInputError(message));
    };
    const idRule = "webhookId: must be 1 to 256 printable ASCII characters without spaces";
    const challengeRule = "challenge: must be 16 to 256 base64url characters";
    // Values a lenient check would read as text of the right form (an array as "msg_verify").
    const id = ["msg_verify"] as unknown as string;
    const digits = 1_234_567_890_123_456 as unknown as string;
    for (const run of [build.answerVerificationChallenge, build.checkVerificationResponse] as const) {
      const input = { secrets: [secret], webhookId, challenge, response: example.value.response };
      await fails(() => run({ ...input, webhookId: id }), idRule);
      await fails(() => run({ ...input, challenge: digits }), challengeRule);
    }
    const notAList = secret as unknown as string[];
    await fails(
      () => build.answerVerificationChallenge({ secrets: notAList, webhookId, challenge }),
      "secrets: at least one whsec_ secret is required",
    );
    await fails(
      () => build.checkVerificationResponse({ secrets: notAList, webhookId, challenge, response: "v1,x" }),
      "secrets: must be a list of keys",
    );
    await expect(async () =>
      build.answerVerificationChallenge({ secrets: ["whsec_"], webhookId, challenge }),
    ).rejects.toMatchObject({
      name: "InvalidSignInputError",
      message: expect.stringMatching(/^secrets: /),
      cause: expect.any(Error),
    });
  });

  it("accepts an answer made with any current secret, in either order of a rotation", async () => {
    const both = await build.answerVerificationChallenge({ secrets: [other, secret], webhookId, challenge });
    expect(await check([secret], both)).toBe(true);
    expect(await check([other], both)).toBe(true);
    expect(await check([generateWebhookSecret(), secret], example.value.response)).toBe(true);
    expect(await check([secret, generateWebhookSecret()], example.value.response)).toBe(true);
  });

  it("refuses another secret's answer, another request's and another challenge's", async () => {
    expect(await check([other], example.value.response)).toBe(false);
    expect(await check([secret], example.value.response, { webhookId: "msg_other" })).toBe(false);
    expect(await check([secret], example.value.response, { challenge: `${challenge.slice(0, -1)}F` })).toBe(
      false,
    );
  });

  it("refuses what an echo server can send: the request's own signature, the challenge, nothing", async () => {
    const body = JSON.stringify({ type: "webhook.verification", challenge });
    const signature = await build.signWebhook({
      id: webhookId,
      timestamp: 1_767_225_600,
      body,
      secrets: [secret],
    });
    for (const response of [
      signature,
      challenge,
      "",
      undefined,
      null,
      7,
      { response: example.value.response },
    ])
      expect(await check([secret], response)).toBe(false);
  });

  it("finds the matching part among others, and only as its exact canonical spelling", async () => {
    const { response } = example.value;
    expect(await check([secret], `v1a,abc ${response} v2,x`)).toBe(true);
    expect(await check([secret], response.replace(/=$/, ""))).toBe(false);
    expect(await check([secret], ` ${response}`)).toBe(true);
    expect(await check([secret], response.replace("v1,", "v1a,"))).toBe(false);
    expect(await check([secret], `${response}x`)).toBe(false);
  });

  it("is never satisfied for an endpoint with only whsk_ keys (its receivers hold no secret)", async () => {
    const { signingKey } = await build.generateWebhookKeyPair();
    expect(await check([signingKey], example.value.response)).toBe(false);
  });
});
