import { Agent as HttpAgent } from "node:http";
import { Agent as HttpsAgent } from "node:https";
import { DELIVERY_TIMEOUT_MS } from "@plant-store/types";
import got, { type Got } from "got";

export interface DeliveryClientOptions {
  /** Total time per attempt, connect to last byte; default DELIVERY_TIMEOUT_MS (15 s). */
  timeoutMs?: number;
  /** Bytes of each answer kept for the attempt record; default 4 KiB. The rest is not read. */
  maxResponseBytes?: number;
  /** Sockets kept open per host; default 16. */
  maxSockets?: number;
  userAgent?: string;
}

export interface DeliveryClient {
  got: Got;
  timeoutMs: number;
  maxResponseBytes: number;
  /** Closes kept-alive sockets. */
  close(): void;
}

export const DEFAULT_MAX_RESPONSE_BYTES = 4096;

/**
 * One configured got instance for every attempt. got's own retry is off because the outbox owns
 * retries (and got would not retry a POST anyway); redirects are not followed, so a 3xx is a
 * failed attempt rather than a signed body replayed to wherever the receiver points.
 */
export function createDeliveryClient(options: DeliveryClientOptions = {}): DeliveryClient {
  const maxSockets = options.maxSockets ?? 16;
  const http = new HttpAgent({ keepAlive: true, maxSockets });
  const https = new HttpsAgent({ keepAlive: true, maxSockets });
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const instance = got.extend({
    agent: { http, https },
    timeout: { request: timeoutMs },
    followRedirect: false,
    throwHttpErrors: false,
    retry: { limit: 0 },
    headers: { "user-agent": options.userAgent ?? "plant-store-webhooks" },
  });
  return {
    got: instance,
    timeoutMs,
    maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    close() {
      http.destroy();
      https.destroy();
    },
  };
}
