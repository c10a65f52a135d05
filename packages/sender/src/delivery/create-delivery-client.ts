import { Agent as HttpAgent } from "node:http";
import { Agent as HttpsAgent } from "node:https";
import { DELIVERY_TIMEOUT_MS } from "@plant-store/types";
import type { Got } from "got";
import { DeliveryClientNotLoadedError } from "../errors.js";

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
  /**
   * The configured got instance, once `load()` has resolved (the first delivery awaits it). Reading it
   * earlier throws `DeliveryClientNotLoadedError`.
   */
  readonly got: Got;
  /** Imports got (the first call only) and configures it; every call answers the same instance. */
  load(): Promise<Got>;
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
 *
 * got and its dozens of modules are imported on the first delivery, not with this package: a command
 * line, a web app that only enqueues, or a process that never delivers starts without them (got alone
 * took about 0.1 s to load on the project's 2-core machine).
 */
export function createDeliveryClient(options: DeliveryClientOptions = {}): DeliveryClient {
  const maxSockets = options.maxSockets ?? 16;
  const http = new HttpAgent({ keepAlive: true, maxSockets });
  const https = new HttpsAgent({ keepAlive: true, maxSockets });
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  let instance: Got | undefined;
  let loading: Promise<Got> | undefined;
  const load = async (): Promise<Got> => {
    const { default: got } = await import("got");
    instance = got.extend({
      agent: { http, https },
      timeout: { request: timeoutMs },
      followRedirect: false,
      throwHttpErrors: false,
      retry: { limit: 0 },
      headers: { "user-agent": options.userAgent ?? "plant-store-webhooks" },
    });
    return instance;
  };
  return {
    get got(): Got {
      if (instance === undefined)
        throw new DeliveryClientNotLoadedError(
          "got is loaded on the first delivery: await client.load() before reading client.got",
        );
      return instance;
    },
    load() {
      // A failed import (got missing from the install) is tried again on the next call.
      loading ??= load().catch((error: unknown) => {
        loading = undefined;
        throw error;
      });
      return loading;
    },
    timeoutMs,
    maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    close() {
      http.destroy();
      https.destroy();
    },
  };
}
