import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import {
  checkVerificationResponse,
  parseWebhookKey,
  VERIFICATION_TIMEOUT_MS,
  WEBHOOK_VERIFICATION_TYPE,
  WebhookVerificationAnswerSchema,
} from "@plant-store/types";
import { isSuccessStatus } from "../is-success-status.js";
import { newWebhookId } from "../new-webhook-id.js";
import type { Endpoint } from "../outbox.js";
import type { DeliveryClient } from "./create-delivery-client.js";
import type { ResolvedTarget, SsrfGuard } from "./create-ssrf-guard.js";
import { deliver } from "./deliver.js";
import { signDelivery } from "./sign-delivery.js";

/** What the handshake needs of an endpoint: where it is and what it is sent with (an `Endpoint` will do). */
export type VerifiableEndpoint = Pick<Endpoint, "url" | "token" | "secrets"> &
  Partial<Pick<Endpoint, "signatureHeaders" | "headers">>;

export interface VerifyEndpointOptions {
  /** The deliveries' client: the same agents, no redirects followed, no retries. */
  client: DeliveryClient;
  /** The deliveries' guard: a URL it refuses is not verified (and nothing is sent to it). */
  ssrfGuard: SsrfGuard;
  /**
   * Longest wait for the answer, name lookup included; default VERIFICATION_TIMEOUT_MS (10 s). The
   * client's own timeout still applies when it is shorter.
   */
  timeoutMs?: number;
  /** The clock the request is signed with, in ms (tests). */
  now?: () => number;
}

/** Why an endpoint was not verified. */
export type VerificationFailureReason =
  /**
   * The endpoint has no `whsec_` secret (only `whsk_` keys, whose receivers hold only the public key):
   * the answer proves a shared secret, so nothing is sent.
   */
  | "no-secret"
  /** The SSRF guard refused its address (or its name did not resolve). */
  | "refused-target"
  /** No answer: connection refused or reset, TLS failure, or no answer in time (`error` says which). */
  | "no-answer"
  /** A 3xx: redirects are not followed (the signed request would go wherever it points). */
  | "redirect"
  /** An answer that is not 2xx. */
  | "status"
  /** A 2xx whose body is not JSON with a `challenge` and a `response` string (of the contract's form). */
  | "invalid-answer"
  /** A 2xx with another challenge than the one sent. */
  | "wrong-challenge"
  /** A 2xx whose `response` no current `whsec_` secret of the endpoint makes for this request. */
  | "wrong-response"
  /**
   * Never from `verifyEndpoint` itself: for a caller whose `markEndpointVerified(id, scope, url)` found
   * the URL changed while the handshake ran (the answer came from the old URL's owner).
   */
  | "url-changed";

/** The handshake's outcome. `webhookId` names the request (in the receiver's logs too). */
export type EndpointVerification =
  | { verified: true; webhookId: string; status: number; durationMs: number }
  | {
      verified: false;
      reason: VerificationFailureReason;
      /** One sentence for the portal and the logs. */
      message: string;
      webhookId: string;
      /** The answer's status, when one came. */
      status?: number;
      /** The error code when no answer came (`ETIMEDOUT`, `ECONNREFUSED`, `ERR_SSRF_BLOCKED`, ...). */
      error?: string;
      durationMs: number;
    };

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? code : "ERR_VERIFICATION";
}

/** The challenge and response an answer's body holds, or what is wrong with it. */
function answerOf(body: string): { challenge: string; response: string } | { problem: string } {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { problem: "a body that is not JSON" };
  }
  const answer = WebhookVerificationAnswerSchema.safeParse(json);
  if (answer.success) return answer.data;
  // Contract 1.0.0's answer (or an echo of the request): say what is missing, the most likely fix.
  const challengeOnly = WebhookVerificationAnswerSchema.pick({ challenge: true }).safeParse(json).success;
  return {
    problem: challengeOnly
      ? 'the challenge but no "response" proving the signing secret (a receiver made for contract 1.0.0, or an echo)'
      : 'a JSON body without {"challenge": "...", "response": "..."}',
  };
}

const hasSharedSecret = (secrets: readonly string[]) =>
  secrets.some((secret) => {
    try {
      return parseWebhookKey(secret).type === "secret";
    } catch {
      return false;
    }
  });

/**
 * The verification handshake (the contract's `WebhookVerification`): POSTs a fresh challenge to the
 * endpoint's URL, signed and authenticated exactly like a delivery (its token, one signature per
 * secret, a fresh `msg_` id, `webhook-event-type: webhook.verification`), through the deliveries'
 * client and SSRF guard, and says whether the endpoint answered 2xx in time with the same challenge
 * and a `response` that one of its `whsec_` secrets makes (`checkVerificationResponse`): proof that
 * the server holds the secret, which an echo of the request is not.
 * Never throws for a failed handshake: the reason is in the result. It changes nothing: the caller
 * marks the endpoint verified (`outbox.markEndpointVerified`) on success.
 */
export async function verifyEndpoint(
  endpoint: VerifiableEndpoint,
  options: VerifyEndpointOptions,
): Promise<EndpointVerification> {
  const { client, ssrfGuard } = options;
  const timeoutMs = options.timeoutMs ?? VERIFICATION_TIMEOUT_MS;
  const webhookId = newWebhookId();
  // 32 bytes: as unguessable as the signing secrets themselves, so an answer cannot be prepared.
  const challenge = randomBytes(32).toString("base64url");
  const body = JSON.stringify({ type: WEBHOOK_VERIFICATION_TYPE, challenge });
  const start = performance.now();
  const elapsed = () => Math.round(performance.now() - start);
  const failed = (
    reason: VerificationFailureReason,
    message: string,
    extra: { status?: number; error?: string } = {},
  ): EndpointVerification => ({
    verified: false,
    reason,
    message,
    webhookId,
    ...extra,
    durationMs: elapsed(),
  });

  // Before anything is resolved or sent: without a shared secret no answer could pass.
  if (!hasSharedSecret(endpoint.secrets))
    return failed(
      "no-secret",
      "Not sent: the handshake proves a whsec_ signing secret and the endpoint has none (only whsk_ keys); add one",
    );
  let pinnedAddress: ResolvedTarget;
  try {
    pinnedAddress = await ssrfGuard.check(endpoint.url, { timeoutMs });
  } catch (error) {
    return failed("refused-target", `Not sent: ${(error as Error).message}`, { error: errorCode(error) });
  }
  const headers = signDelivery({
    webhookId,
    timestamp: Math.floor((options.now ?? Date.now)() / 1000),
    body,
    secrets: endpoint.secrets,
    token: endpoint.token,
    eventType: WEBHOOK_VERIFICATION_TYPE,
    // Under the names its receiver reads, and with its static headers: the gateway in front of it
    // (an API key) must let the handshake through as it lets deliveries through.
    signatureHeaders: endpoint.signatureHeaders ?? "standard",
    headers: endpoint.headers ?? {},
  });
  const result = await deliver(client, endpoint.url, {
    body,
    headers,
    pinnedAddress,
    timeoutMs: timeoutMs - elapsed(),
  });
  const { status } = result;
  if (status === null) {
    // Stryker disable next-line StringLiteral: unreachable fallback (deliver sets an error whenever no status came)
    const error = result.error ?? "ERR_VERIFICATION";
    return failed("no-answer", `No answer (${error})`, { error });
  }
  if (status >= 300 && status < 400)
    return failed("redirect", `Answered ${status}: redirects are not followed`, { status });
  if (!isSuccessStatus(status)) return failed("status", `Answered ${status}, not 2xx`, { status });
  const answer = answerOf(result.responseBody);
  if ("problem" in answer)
    return failed("invalid-answer", `Answered ${status} with ${answer.problem}`, { status });
  if (answer.challenge !== challenge)
    return failed("wrong-challenge", `Answered ${status} with another challenge`, { status });
  const proven = checkVerificationResponse({
    secrets: endpoint.secrets,
    webhookId,
    challenge,
    response: answer.response,
  });
  if (!proven)
    return failed(
      "wrong-response",
      `Answered ${status} with a response none of the endpoint's secrets makes for this request`,
      { status },
    );
  return { verified: true, webhookId, status, durationMs: elapsed() };
}
