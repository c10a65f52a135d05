import { generateWebhookSecret } from "@plant-store/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runReceiverCheck } from "../../src/index.js";
import { type Flaw, type FlawedReceivers, startFlawedReceivers } from "../fixtures/start-flawed-receivers.js";

// The kit is only worth something if it catches each mistake it names: every receiver here does
// every check but one, and must fail exactly the cases about that one.
const token = "flawed-receiver-token";
const secret = generateWebhookSecret();
let receivers: FlawedReceivers;

beforeAll(async () => {
  receivers = await startFlawedReceivers(token, secret);
});

afterAll(async () => {
  await receivers?.close();
});

const expectedFailures: Record<Flaw, string[]> = {
  none: [],
  "no-signature-check": [
    "signature-wrong",
    "signature-truncated",
    "signature-missing",
    "signature-over-reserialised",
    "body-byte-changed",
  ],
  "no-timestamp-window": ["timestamp-stale", "timestamp-future"],
  "signature-over-reparsed-body": ["body-as-sent", "signature-over-reserialised"],
  "no-bearer-check": ["token-missing", "token-wrong", "token-other-scheme"],
  "500-on-unknown-fields": ["unknown-fields"],
  "200-on-invalid-payload": ["payload-invalid"],
  "no-deduplication": ["duplicate"],
  "never-answers-a-duplicate": ["duplicate", "answer-time"],
};

describe("runReceiverCheck against receivers that each miss one check", () => {
  it.each(Object.entries(expectedFailures) as Array<[Flaw, string[]]>)(
    "%s fails exactly %j",
    async (flaw, failures) => {
      const report = await runReceiverCheck({
        url: receivers.url(flaw),
        token,
        secrets: [secret],
        // Only the receiver that never answers waits this long, once.
        timeoutMs: flaw === "never-answers-a-duplicate" ? 1000 : 15_000,
      });
      const failed = report.cases.filter((c) => c.result === "fail").map((c) => c.id);
      expect(failed, JSON.stringify(report.cases.filter((c) => c.result === "fail"))).toStrictEqual(failures);
      expect(report.ok).toBe(failures.length === 0);
      // With one whsec_ secret there is no v1a key and no second key to try.
      expect(report.cases.filter((c) => c.result === "skip").map((c) => c.id)).toStrictEqual([
        "v1a",
        "every-key",
      ]);
      expect(report.failed).toBe(failures.length);
    },
  );
});
