import { randomInt, randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { signWebhook } from "@plant-store/types";
import type { BuiltDelivery, CaseResult, CheckContext, DeliveryParts } from "./check-case.js";
import { checkCases } from "./check-cases.js";
import type { CheckAnswer, CheckTransport } from "./check-exchange.js";
import { CheckOptionsSchema } from "./check-options-schema.js";
import { InvalidCheckOptionsError } from "./invalid-check-options-error.js";
import { sendOverHttp } from "./send-over-http.js";
import { type FetchHandler, sendToFetchHandler } from "./send-to-fetch-handler.js";

export interface ReceiverCheckOptions {
  /** The receiver's webhook URL: every request goes there and nowhere else. */
  url: string;
  /** The bearer token the receiver accepts. */
  token: string;
  /** `whsec_` secrets and/or `whsk_` signing keys the receiver holds (it holds the `whpk_` of a `whsk_`); the first signs the valid delivery. */
  secrets: readonly string[];
  /** How long to wait for each answer; default and at most the store's 15 s. */
  timeoutMs?: number;
  /** Call this handler in-process with a `Request` for `url` instead of sending over the network. */
  fetch?: FetchHandler;
}

export interface CaseReport {
  id: string;
  title: string;
  expected: string;
  got: string;
  result: CaseResult;
  why: string;
  /** Requests this case sent. */
  requests: number;
}

export interface CheckReport {
  url: string;
  /** No case failed. */
  ok: boolean;
  passed: number;
  failed: number;
  skipped: number;
  /** Requests sent in all. */
  requests: number;
  durationMs: number;
  cases: CaseReport[];
}

/**
 * Sends the conformance cases to a running receiver, one at a time, and judges each answer against
 * the New Plant contract. Throws `InvalidCheckOptionsError` before sending anything when the
 * options are unusable; a receiver's failure is a failed case, never an exception.
 */
export async function runReceiverCheck(options: ReceiverCheckOptions): Promise<CheckReport> {
  const parsed = CheckOptionsSchema.safeParse(options);
  if (!parsed.success)
    throw new InvalidCheckOptionsError(
      parsed.error.issues.map((issue) => `${issue.path.join(".") || "options"}: ${issue.message}`),
    );
  if (options.fetch !== undefined && typeof options.fetch !== "function")
    throw new InvalidCheckOptionsError(["fetch: must be a function"]);
  const { token, secrets: keys, timeoutMs } = parsed.data;
  const url = new URL(parsed.data.url);
  const transport: CheckTransport = options.fetch
    ? sendToFetchHandler(url, options.fetch)
    : sendOverHttp(url);

  // Plant ids far from the small ones a test store hands out, and unique within the run.
  let nextPlantId = randomInt(1, 2 ** 40) * 1024;
  const plantId = () => nextPlantId++;
  const answers: Array<{ caseId: string; answer: CheckAnswer }> = [];
  let caseId = "";

  const plantBody = (extra: Record<string, unknown> = {}) =>
    JSON.stringify({ id: plantId(), name: "Monstera deliciosa", tag: "receiver-check", ...extra });

  const delivery = (parts: DeliveryParts = {}): BuiltDelivery => {
    const webhookId = parts.webhookId ?? `msg_check_${randomUUID()}`;
    const timestamp = parts.timestamp ?? Math.floor(Date.now() / 1000);
    const body = parts.body ?? plantBody();
    const headers: Record<string, string> = {
      "content-type": parts.contentType ?? "application/json",
      "user-agent": "plant-receiver-check",
      "webhook-id": webhookId,
      "webhook-timestamp": String(timestamp),
    };
    if (parts.authorization !== null) headers.authorization = parts.authorization ?? `Bearer ${token}`;
    const signature =
      parts.signature !== undefined
        ? parts.signature
        : signWebhook({
            id: webhookId,
            timestamp,
            body: parts.signedBody ?? body,
            secrets: parts.keys ?? keys.slice(0, 1),
          });
    if (signature !== null) headers["webhook-signature"] = signature;
    return { request: { headers, body: new TextEncoder().encode(body) }, webhookId, body };
  };

  const context: CheckContext = {
    token,
    keys,
    timeoutMs,
    plantBody,
    plantId,
    nowSeconds: () => Math.floor(Date.now() / 1000),
    delivery,
    async send(built) {
      const answer = await transport(built.request, timeoutMs);
      answers.push({ caseId, answer });
      return answer;
    },
    answers,
  };

  const started = performance.now();
  const cases: CaseReport[] = [];
  for (const check of checkCases) {
    caseId = check.id;
    const before = answers.length;
    const verdict = await check.run(context);
    cases.push({
      id: check.id,
      title: check.title,
      expected: check.expected,
      got: verdict.got,
      result: verdict.result,
      why: check.why,
      requests: answers.length - before,
    });
  }
  const count = (result: CaseResult) => cases.filter((c) => c.result === result).length;
  return {
    url: url.href,
    ok: count("fail") === 0,
    passed: count("pass"),
    failed: count("fail"),
    skipped: count("skip"),
    requests: answers.length,
    durationMs: Math.round(performance.now() - started),
    cases,
  };
}
