import { startTestReceiver, type TestReceiver } from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runReceiverCheck } from "../../src/index.js";

// The kit signs with @plant-store/types' core; the reference library must agree on every request:
// what the kit means to be validly signed verifies with `standardwebhooks`, the rest does not.
const secret = generateWebhookSecret();
const nextSecret = generateWebhookSecret();
let receiver: TestReceiver;

beforeAll(async () => {
  receiver = await startTestReceiver();
});

afterAll(async () => {
  await receiver?.close();
});

/** Cases whose request is meant to carry no valid signature (or a timestamp outside the window). */
const UNVERIFIABLE = new Set([
  "timestamp-stale",
  "timestamp-future",
  "signature-wrong",
  "signature-truncated",
  "signature-missing",
  "signature-over-reserialised",
  "body-byte-changed",
]);

function verifiesWithReference(headers: Record<string, unknown>, body: string): boolean {
  const wanted = {
    "webhook-id": String(headers["webhook-id"] ?? ""),
    "webhook-timestamp": String(headers["webhook-timestamp"] ?? ""),
    "webhook-signature": String(headers["webhook-signature"] ?? ""),
  };
  return [secret, nextSecret].some((key) => {
    try {
      new Webhook(key).verify(body, wanted);
      return true;
    } catch {
      return false;
    }
  });
}

describe("the check's signatures, verified by the reference standardwebhooks library", () => {
  it("verify for exactly the cases meant to be validly signed, the valid delivery first", async () => {
    const report = await runReceiverCheck({
      url: `${receiver.url}/plant/webhook`,
      token: "reference-token",
      secrets: [secret, nextSecret],
    });
    // The cases ran in order, each sending `requests` of the requests received, in order.
    const caseOfRequest = report.cases.flatMap((c) => Array.from({ length: c.requests }, () => c.id));
    expect(receiver.requests).toHaveLength(caseOfRequest.length);
    const verdicts = receiver.requests.map((request, index) => [
      caseOfRequest[index],
      verifiesWithReference(request.headers, request.body),
    ]);
    expect(verdicts).toStrictEqual(caseOfRequest.map((id) => [id, !UNVERIFIABLE.has(id as string)]));
    expect(verdicts[0]).toStrictEqual(["valid", true]);
    // Every request went to the one URL given.
    expect(new Set(receiver.requests.map((request) => request.path))).toStrictEqual(
      new Set(["/plant/webhook"]),
    );
  });
});
