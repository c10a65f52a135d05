import { performance } from "node:perf_hooks";
import type { AttemptResult } from "../attempt-result.js";
import type { ClaimedDelivery } from "../outbox.js";
import { endAttemptSpan, startAttemptSpan } from "../tracing/trace-attempt.js";
import type { DeliveryClient } from "./create-delivery-client.js";
import type { SsrfGuard } from "./create-ssrf-guard.js";
import { deliver } from "./deliver.js";
import { signDelivery } from "./sign-delivery.js";

// A name lookup slower than this takes its time out of the request's timeout, keeping the attempt within its budget.
const SLOW_LOOKUP_MS = 100;

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? code : "ERR_DELIVERY";
}

/**
 * A worker's attempt at a claimed delivery, whole: checks the endpoint's address (SSRF guard, the lookup
 * sharing the attempt's time), signs the body with the endpoint's secrets, sends it with `deliver`, all
 * inside its `attempt` span and with a `traceparent` naming that span; the result is what the outbox
 * records. Never throws (an error is the attempt's result).
 */
export async function attemptDelivery(
  delivery: ClaimedDelivery,
  client: DeliveryClient,
  guard: SsrfGuard,
  now: () => number = Date.now,
): Promise<AttemptResult> {
  const { span, traceparent } = startAttemptSpan(delivery);
  const result = await attempt(delivery, client, guard, traceparent, now);
  endAttemptSpan(span, result);
  return result;
}

async function attempt(
  delivery: ClaimedDelivery,
  client: DeliveryClient,
  guard: SsrfGuard,
  traceparent: string,
  now: () => number,
): Promise<AttemptResult> {
  const startedAt = new Date(now());
  const start = performance.now();
  try {
    // The lookup shares the attempt's time: a name whose DNS hangs fails the attempt (ERR_DNS_TIMEOUT)
    // instead of holding its slot and lease indefinitely.
    // With its endpoint: a guard may allow private targets per owner, and the listen relay by endpoint id.
    const { id, subscriberId } = delivery.endpoint;
    const pinnedAddress = await guard.check(delivery.endpoint.url, {
      timeoutMs: client.timeoutMs,
      endpoint: { id, subscriberId },
    });
    const lookupMs = performance.now() - start;
    const headers = signDelivery({
      webhookId: delivery.webhookId,
      body: delivery.body,
      secrets: delivery.endpoint.secrets,
      token: delivery.endpoint.token,
      eventType: delivery.eventType,
      signatureHeaders: delivery.endpoint.signatureHeaders,
      headers: delivery.endpoint.headers,
    });
    const result = await deliver(client, delivery.endpoint.url, {
      body: delivery.body,
      headers,
      traceparent,
      pinnedAddress,
      // A lookup of a few ms is not worth a timer of our own; a slow one shortens the request.
      ...(lookupMs >= SLOW_LOOKUP_MS ? { timeoutMs: client.timeoutMs - lookupMs } : {}),
    });
    // On the worker's clock, from before the name lookup.
    result.startedAt = startedAt;
    return result;
  } catch (error) {
    return {
      status: null,
      error: errorCode(error),
      startedAt,
      durationMs: Math.round(performance.now() - start),
      responseBody: "",
    };
  }
}
