import { randomInt, randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { signWebhook, WEBHOOK_EVENT_TYPE_HEADER } from "@plant-store/types";
import type { BuiltDelivery, CaseResult, CheckContext, DeliveryParts } from "./check-case.js";
import { checkCases } from "./check-cases.js";
import type { CheckAnswer, CheckTransport } from "./check-exchange.js";
import { CheckOptionsSchema } from "./check-options-schema.js";
import { loadWebhookDocument } from "./document/load-webhook-document.js";
import { type CheckWebhook, resolveCheckWebhook, WebhookProblems } from "./document/resolve-check-webhook.js";
import { isObject } from "./document/resolve-ref.js";
import { documentCheckCases } from "./document-check-cases.js";
import { InvalidCheckOptionsError } from "./invalid-check-options-error.js";
import { sendOverHttp } from "./send-over-http.js";
import { type FetchHandler, sendToFetchHandler } from "./send-to-fetch-handler.js";

export interface ReceiverCheckOptions {
  /** The receiver's webhook URL: every request goes there and nowhere else. */
  url: string;
  /**
   * The bearer token the receiver accepts. Needed for New Plant, and with `spec` only when the webhook
   * asks for one (its `security`, else the document's); otherwise none is sent.
   */
  token?: string;
  /** `whsec_` secrets and/or `whsk_` signing keys the receiver holds (it holds the `whpk_` of a `whsk_`); the first signs the valid delivery. */
  secrets: readonly string[];
  /** How long to wait for each answer; default and at most the store's 15 s. */
  timeoutMs?: number;
  /** Call this handler in-process with a `Request` for `url` instead of sending over the network. */
  fetch?: FetchHandler;
  /**
   * A team's OpenAPI document to check a receiver of, instead of the Plant Store's New Plant: a path
   * (JSON, or YAML for `.yaml`/`.yml`) or the document itself.
   */
  spec?: string | object;
  /** The webhook of `spec` to check, by its event type as `createWebhookCatalog` names it; optional when it has one. */
  eventType?: string;
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
  /** The webhook of the document checked (only with `spec`). */
  eventType?: string;
  /** Its path as the toolkit's receivers take it by default (the catalog's; only with `spec`). */
  path?: string;
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
  const problems: string[] = [];
  let webhook: CheckWebhook | undefined;
  if (options.spec !== undefined) {
    try {
      const document =
        typeof options.spec === "string" ? await loadWebhookDocument(options.spec) : options.spec;
      if (!isObject(document)) throw new TypeError("must be a path or an OpenAPI document (an object)");
      webhook = resolveCheckWebhook(document, options.eventType);
    } catch (error) {
      problems.push(
        ...(error instanceof WebhookProblems ? error.problems : [`spec: ${(error as Error).message}`]),
      );
    }
  } else if (options.eventType !== undefined)
    problems.push("eventType: names a webhook of a document: give spec (--spec) too");
  // New Plant always asks for the token; a document's webhook when its security says so. While the
  // document cannot be read, whether one is needed is unknown, and only the document's problems are told.
  const tokenRequired = options.spec === undefined || webhook?.token.required === true;
  const tokenMissing = webhook !== undefined && tokenRequired && !options.token;
  const parsed = CheckOptionsSchema.safeParse({
    ...options,
    token: tokenRequired && !tokenMissing ? (options.token ?? "") : undefined,
  });
  if (!parsed.success)
    problems.push(
      ...parsed.error.issues.map((issue) => `${issue.path.join(".") || "options"}: ${issue.message}`),
    );
  if (tokenMissing)
    problems.push(
      `token: ${webhook?.eventType} asks for a bearer token (its security: ${webhook?.token.schemes.join(", ")}): give the token its receiver accepts`,
    );
  if (problems.length > 0 || !parsed.success) throw new InvalidCheckOptionsError(problems);
  if (options.fetch !== undefined && typeof options.fetch !== "function")
    throw new InvalidCheckOptionsError(["fetch: must be a function"]);
  const { token = "", secrets: keys, timeoutMs } = parsed.data;
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
    const body = parts.body ?? (webhook ? JSON.stringify(webhook.valid[0]?.value) : plantBody());
    const headers: Record<string, string> = {
      "content-type": parts.contentType ?? "application/json",
      "user-agent": "plant-receiver-check",
      "webhook-id": webhookId,
      "webhook-timestamp": String(timestamp),
    };
    if (parts.authorization !== null && tokenRequired)
      headers.authorization = parts.authorization ?? `Bearer ${token}`;
    // Only with a document: New Plant's requests stay as they were.
    if (webhook) headers[WEBHOOK_EVENT_TYPE_HEADER] = webhook.eventType;
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
  for (const check of webhook ? documentCheckCases(webhook) : checkCases) {
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
    ...(webhook ? { eventType: webhook.eventType, path: webhook.path } : {}),
    ok: count("fail") === 0,
    passed: count("pass"),
    failed: count("fail"),
    skipped: count("skip"),
    requests: answers.length,
    durationMs: Math.round(performance.now() - started),
    cases,
  };
}
