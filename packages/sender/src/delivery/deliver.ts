import { performance } from "node:perf_hooks";
import type { Got } from "got";
import type { AttemptResult } from "../attempt-result.js";
import type { DeliveryClient } from "./create-delivery-client.js";
import type { ResolvedTarget } from "./create-ssrf-guard.js";
import { parseRetryAfter } from "./parse-retry-after.js";
import { responseExcerpt } from "./response-excerpt.js";
import type { DeliveryHeaders, SvixDeliveryHeaders } from "./sign-delivery.js";

export interface DeliveryMessage {
  body: string;
  headers: DeliveryHeaders | SvixDeliveryHeaders;
  /** The W3C `traceparent` header to send beside the signed ones (not covered by the signature). */
  traceparent?: string;
  /** Connect to this address instead of resolving the host again (set by the SSRF guard). */
  pinnedAddress?: ResolvedTarget;
  /**
   * What is left of the attempt's time, in ms, when less than the client's timeout (a slow name lookup
   * used the rest): the attempt ends with ETIMEDOUT after this long.
   */
  timeoutMs?: number;
}

type LookupCallback = (
  error: Error | null,
  address: string | Array<{ address: string; family: number }>,
  family?: number,
) => void;

function pinnedLookup(target: ResolvedTarget) {
  return (_hostname: string, options: unknown, callback?: LookupCallback) => {
    const cb = (typeof options === "function" ? options : callback) as LookupCallback;
    if (typeof options === "object" && options !== null && (options as { all?: boolean }).all) {
      cb(null, [{ address: target.address, family: target.family }]);
    } else {
      cb(null, target.address, target.family);
    }
  };
}

/** Each URL's host (an IPv6 literal without brackets), parsed once: the same at every attempt. */
const hosts = new Map<string, string>();
const MAX_HOSTS = 10_000;

function isLiteral(url: string, target: ResolvedTarget): boolean {
  let host = hosts.get(url);
  if (host === undefined) {
    host = new URL(url).hostname.replace(/^\[(.*)\]$/, "$1");
    if (hosts.size >= MAX_HOSTS) hosts.clear();
    hosts.set(url, host);
  }
  return host === target.address;
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && code.length > 0 ? code : "ERR_DELIVERY";
}

/**
 * POSTs an already signed body to `url` and reads the answer: the HTTP exchange alone, with no SSRF
 * check, signing or span of its own (`attemptDelivery` adds those for the worker; `verifyEndpoint`
 * sends its handshake through it too). Never throws: every outcome (an answer, a timeout, a refused
 * connection) is an AttemptResult. Only the first `maxResponseBytes` of the answer are read; then the
 * response is dropped, so a receiver cannot make the sender buffer a huge body.
 */
export async function deliver(
  client: DeliveryClient,
  url: string,
  message: DeliveryMessage,
): Promise<AttemptResult> {
  const startedAt = new Date();
  const start = performance.now();
  const elapsed = () => Math.round(performance.now() - start);
  const budget = message.timeoutMs;
  if (budget !== undefined && budget <= 0) {
    return Promise.resolve({ status: null, error: "ETIMEDOUT", startedAt, durationMs: 0, responseBody: "" });
  }
  let got: Got;
  try {
    // Resolved at once after the first delivery: got is imported on first use.
    got = await client.load();
  } catch (error) {
    return { status: null, error: errorCode(error), startedAt, durationMs: elapsed(), responseBody: "" };
  }
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    let deadline: NodeJS.Timeout | undefined;
    let status: number | null = null;
    let retryAfterMs: number | undefined;
    const chunks: Buffer[] = [];
    let kept = 0;
    const finish = (error: string | null) => {
      if (settled) return;
      settled = true;
      if (deadline) clearTimeout(deadline);
      const result: AttemptResult = {
        status: error === null ? status : null,
        error,
        startedAt,
        durationMs: elapsed(),
        responseBody: responseExcerpt(Buffer.concat(chunks).subarray(0, client.maxResponseBytes)),
      };
      if (error === null && retryAfterMs !== undefined) result.retryAfterMs = retryAfterMs;
      resolve(result);
    };
    const stream = got.stream(url, {
      method: "POST",
      body: message.body,
      headers:
        message.traceparent === undefined
          ? message.headers
          : { ...message.headers, traceparent: message.traceparent },
      // An IP-literal URL connects where it says: a lookup override would only cost got an options merge.
      ...(message.pinnedAddress && !isLiteral(url, message.pinnedAddress)
        ? { dnsLookup: pinnedLookup(message.pinnedAddress) as never }
        : {}),
    });
    stream.on(
      "response",
      (response: { statusCode: number; headers: Record<string, string | string[] | undefined> }) => {
        status = response.statusCode;
        const header = response.headers["retry-after"];
        retryAfterMs = parseRetryAfter(Array.isArray(header) ? header[0] : header);
      },
    );
    stream.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      kept += chunk.length;
      if (kept >= client.maxResponseBytes) {
        finish(null);
        stream.destroy();
      }
    });
    stream.on("end", () => finish(null));
    // Only when a slow lookup shortened the attempt: otherwise got's own timeout is the whole budget.
    if (budget !== undefined && budget < client.timeoutMs) {
      deadline = setTimeout(() => {
        finish("ETIMEDOUT");
        stream.destroy();
      }, budget);
    }
    stream.on("error", (error: unknown) => finish(status !== null ? null : errorCode(error)));
  });
}
