import { type PulledEvent, PulledEventSchema } from "@plant-store/types";
import type { ReceiverOptions } from "./create-delivery-handler.js";
import { createMemoryCursorStore } from "./create-memory-cursor-store.js";
import type { WebhookReceiver } from "./create-webhook-receiver.js";
import type { CursorStore } from "./cursor-store.js";
import { CatchUpHandlerError } from "./errors/catch-up-handler-error.js";
import { CatchUpRequestError } from "./errors/catch-up-request-error.js";
import { InvalidReceiverOptionsError } from "./errors/invalid-receiver-options-error.js";
import type { IncomingHeaders } from "./header-value.js";
import { HANDLE_PULLED } from "./pulled-delivery.js";
import type { ReceiverLogger } from "./receiver-logger.js";
import { resolveReceiver } from "./resolve-receiver.js";

export interface CatchUpOptions {
  /** The endpoint's events URL on the store: `https://store.example/endpoints/7/events`. */
  url: string;
  /**
   * The credential the events API takes: the endpoint's own bearer token (the one its pushes carry), its
   * subscriber's token, or the operator's. Sent to `url` only, never logged.
   */
  token: string;
  /**
   * The receiver the pushes go through (`createWebhookReceiver(...)`, or the New Plant options): the
   * same secrets, catalog, handlers and de-duplication store, so an event is handled once whichever
   * way it came.
   */
  receiver: WebhookReceiver | ReceiverOptions;
  /** Where the cursor is kept between runs and restarts. Default: in memory. */
  cursorStore?: CursorStore;
  /** Where a first run (no cursor stored) starts: default the oldest event the store retains. */
  since?: Date;
  /** Between runs started by `start()`, in ms. Default 60 000. */
  intervalMs?: number;
  /** The longest wait after failed runs (each failure doubles it from `intervalMs`). Default 15 minutes, or `intervalMs` if longer. */
  maxBackoffMs?: number;
  /** Events asked for per request, 1 to 1000. Default 100. */
  pageSize?: number;
  /** Longest wait for one answer of the events API, in ms. Default 15 000. */
  requestTimeoutMs?: number;
  /** The fetch to call the events API with. Default `globalThis.fetch`. */
  fetch?: typeof fetch;
  logger?: ReceiverLogger;
  /** Called for every pulled event with what became of it: for metrics and a page. */
  onEvent?: (event: CatchUpEvent) => void;
}

/**
 * What became of one pulled event: handled (`received`), already handled by a push or an earlier run
 * (`duplicate`), or `refused` (its signature, timestamp, payload or event type failed the receiver's
 * checks: skipped, never handled, reported).
 */
export interface CatchUpEvent {
  webhookId: string;
  outcome: "received" | "duplicate" | "refused";
  /** For `refused`: the receiver's error code (`ERR_INVALID_SIGNATURE`, ...). */
  code?: string;
}

/** What one run did. */
export interface CatchUpRunResult {
  pages: number;
  received: number;
  duplicates: number;
  refused: number;
  /** The stored cursor was older than the store's retention: events after it are lost (see `state().expired`). */
  expired: boolean;
  cursor: string | null;
}

/**
 * `idle`: waiting for the next run; `running`; `backing-off`: the last run failed, the next waits
 * longer; `stopped`: `stop()` was called (or `start()` never was).
 */
export type CatchUpStatus = "idle" | "running" | "backing-off" | "stopped";

export interface CatchUpState {
  status: CatchUpStatus;
  /** The stored cursor as of the last run (null before the first page). */
  cursor: string | null;
  lastRunAt: Date | null;
  lastSuccessAt: Date | null;
  /** Why the last run failed; null after a run that succeeded. */
  lastError: string | null;
  /** Failed runs in a row. */
  failures: number;
  nextRunAt: Date | null;
  /** Totals since the catch-up was made. */
  received: number;
  duplicates: number;
  refused: number;
  /** The last time the store said the cursor had outlived its retention, and where it went on from. */
  expired: { at: Date; cursor: string; oldestCursor: string } | null;
}

export interface CatchUp {
  /** One run now: every page from the stored cursor to the end (a run already under way is joined). */
  run(): Promise<CatchUpRunResult>;
  /** Runs now, then every `intervalMs` (longer after failures), until `stop()`. */
  start(): void;
  /** No more runs; the request in flight is abandoned and the handler in flight finishes; resolves after it. */
  stop(): Promise<void>;
  state(): CatchUpState;
}

const encoder = new TextEncoder();
const silent: ReceiverLogger = { info() {}, warn() {}, error() {} };

function invalid(message: string): InvalidReceiverOptionsError {
  return new InvalidReceiverOptionsError(`Invalid catch-up options: ${message}`);
}

const isPositiveInteger = (value: unknown) => Number.isSafeInteger(value) && (value as number) > 0;

/** An event as the contract documents it (`PulledEvent`); anything else is refused (and skipped) like a bad signature. */
function readEvent(value: unknown): PulledEvent | undefined {
  const parsed = PulledEventSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/**
 * Catches up on what pushes missed, from the store's events API (`GET /endpoints/{id}/events`): pages
 * from the stored cursor (a first run from the oldest retained event, or `since`), verifies each event
 * and runs its handler through the receiver's own path and de-duplication, then stores the page's
 * cursor. An event that fails verification is skipped, reported and never handled; one whose handler
 * fails stops the run before its page's cursor is stored, so the next run takes it again. A cursor
 * the store no longer serves (410) is reported and the catch-up goes on from the oldest one it does.
 */
export function createCatchUp(options: CatchUpOptions): CatchUp {
  const problems: string[] = [];
  let key = "";
  try {
    const url = new URL(options.url);
    if (url.protocol !== "http:" && url.protocol !== "https:") problems.push("url: must be http or https");
    url.search = "";
    url.hash = "";
    key = url.href;
  } catch {
    problems.push("url: must be an absolute URL");
  }
  if (typeof options.token !== "string" || options.token.length === 0)
    problems.push("token: must not be empty");
  const intervalMs = options.intervalMs ?? 60_000;
  if (!isPositiveInteger(intervalMs)) problems.push("intervalMs: must be a positive integer");
  const maxBackoffMs = options.maxBackoffMs ?? Math.max(intervalMs, 15 * 60_000);
  if (!isPositiveInteger(maxBackoffMs)) problems.push("maxBackoffMs: must be a positive integer");
  const pageSize = options.pageSize ?? 100;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 1000)
    problems.push("pageSize: must be an integer from 1 to 1000");
  const requestTimeoutMs = options.requestTimeoutMs ?? 15_000;
  if (!isPositiveInteger(requestTimeoutMs)) problems.push("requestTimeoutMs: must be a positive integer");
  if (options.since !== undefined && Number.isNaN(options.since.getTime()))
    problems.push("since: must be a date");
  if (problems.length > 0) throw invalid(problems.join("; "));
  const { receiver } = resolveReceiver(options.receiver, undefined);
  const cursorStore = options.cursorStore ?? createMemoryCursorStore();
  const fetchEvents = options.fetch ?? globalThis.fetch;
  const logger = options.logger ?? silent;

  const state: CatchUpState = {
    status: "stopped",
    cursor: null,
    lastRunAt: null,
    lastSuccessAt: null,
    lastError: null,
    failures: 0,
    nextRunAt: null,
    received: 0,
    duplicates: 0,
    refused: 0,
    expired: null,
  };
  let started = false;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let current: Promise<CatchUpRunResult> | undefined;
  const requests = new Set<AbortController>();

  /** One page of the events API, or the 410's oldest cursor. */
  const fetchPage = async (
    cursor: string | undefined,
  ): Promise<{ events: unknown[]; next: string | null } | { oldestCursor: string }> => {
    const url = new URL(key);
    url.searchParams.set("limit", String(pageSize));
    if (cursor !== undefined) url.searchParams.set("after", cursor);
    else if (options.since !== undefined) url.searchParams.set("since", options.since.toISOString());
    const controller = new AbortController();
    requests.add(controller);
    const timeout = setTimeout(() => controller.abort(), requestTimeoutMs);
    try {
      let response: Response;
      try {
        response = await fetchEvents(url, {
          headers: { authorization: `Bearer ${options.token}`, accept: "application/json" },
          signal: controller.signal,
        });
      } catch (error) {
        throw new CatchUpRequestError(0, `The events API did not answer: ${(error as Error).message}`, {
          cause: error,
        });
      }
      const text = await response.text().catch(() => "");
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      const fields = (body ?? {}) as Record<string, unknown>;
      if (response.status === 410 && typeof fields.oldestCursor === "string")
        return { oldestCursor: fields.oldestCursor };
      if (!response.ok) {
        const message = typeof fields.message === "string" ? fields.message : `status ${response.status}`;
        throw new CatchUpRequestError(
          response.status,
          `The events API answered ${response.status}: ${message}`,
        );
      }
      const { events, next } = fields;
      if (!Array.isArray(events) || (next !== null && typeof next !== "string"))
        throw new CatchUpRequestError(
          response.status,
          "The events API answered something that is not a page of events",
        );
      return { events, next };
    } finally {
      clearTimeout(timeout);
      requests.delete(controller);
    }
  };

  /** One pulled event through the receiver: what became of it; throws when it must be taken again. */
  const handleEvent = async (value: unknown): Promise<CatchUpEvent> => {
    const event = readEvent(value);
    if (event === undefined) {
      const webhookId = (value as { webhookId?: unknown } | null)?.webhookId;
      return {
        webhookId: typeof webhookId === "string" ? webhookId : "",
        outcome: "refused",
        code: "ERR_INVALID_EVENT",
      };
    }
    const headers: IncomingHeaders = {};
    for (const [name, header] of Object.entries(event.headers)) headers[name.toLowerCase()] = header;
    const answer = await receiver[HANDLE_PULLED]({ headers, body: encoder.encode(event.body) });
    const { outcome, code } = answer.outcome;
    if (outcome === "received" || outcome === "duplicate") return { webhookId: event.webhookId, outcome };
    if (outcome === "failed") throw new CatchUpHandlerError(event.webhookId, answer.status, code ?? "failed");
    // Refused by a check (or a handshake, which is never an event): skipped for good.
    return { webhookId: event.webhookId, outcome: "refused", code: code ?? "ERR_NOT_AN_EVENT" };
  };

  const runOnce = async (): Promise<CatchUpRunResult> => {
    state.status = "running";
    state.lastRunAt = new Date();
    const result: CatchUpRunResult = {
      pages: 0,
      received: 0,
      duplicates: 0,
      refused: 0,
      expired: false,
      cursor: null,
    };
    let cursor = await cursorStore.get(key);
    state.cursor = cursor ?? null;
    while (!stopped) {
      const page = await fetchPage(cursor);
      if ("oldestCursor" in page) {
        logger.error(
          { url: key, cursor, oldestCursor: page.oldestCursor },
          "catch-up cursor expired: the store deleted events after it (retention); going on from the oldest it serves",
        );
        state.expired = { at: new Date(), cursor: cursor ?? "", oldestCursor: page.oldestCursor };
        result.expired = true;
        cursor = page.oldestCursor;
        await cursorStore.set(key, cursor);
        state.cursor = cursor;
        continue;
      }
      if (page.events.length === 0) break;
      result.pages++;
      for (const value of page.events) {
        if (stopped) return { ...result, cursor: cursor ?? null };
        const handled = await handleEvent(value);
        if (handled.outcome === "received") {
          result.received++;
          state.received++;
        } else if (handled.outcome === "duplicate") {
          result.duplicates++;
          state.duplicates++;
        } else {
          result.refused++;
          state.refused++;
          logger.warn(
            { webhookId: handled.webhookId, code: handled.code },
            "catch-up event refused, skipped",
          );
        }
        options.onEvent?.(handled);
      }
      if (page.next === null) break;
      cursor = page.next;
      await cursorStore.set(key, cursor);
      state.cursor = cursor;
      // A short page is the end: asking again would answer an empty one.
      if (page.events.length < pageSize) break;
    }
    result.cursor = cursor ?? null;
    if (result.pages > 0 || result.expired) logger.info({ url: key, ...result }, "catch-up run");
    return result;
  };

  const run = (): Promise<CatchUpRunResult> => {
    if (current) return current;
    const running = runOnce().then(
      (result) => {
        state.lastSuccessAt = new Date();
        state.lastError = null;
        state.failures = 0;
        return result;
      },
      (error: unknown) => {
        state.failures++;
        state.lastError = error instanceof Error ? error.message : String(error);
        throw error;
      },
    );
    current = running.finally(() => {
      current = undefined;
      state.status = stopped || !started ? "stopped" : state.failures > 0 ? "backing-off" : "idle";
    });
    return current;
  };

  const schedule = (delayMs: number) => {
    if (stopped) return;
    state.nextRunAt = new Date(Date.now() + delayMs);
    timer = setTimeout(() => {
      timer = undefined;
      state.nextRunAt = null;
      run().then(
        () => schedule(intervalMs),
        (error: unknown) => {
          logger.warn({ url: key, failures: state.failures, err: error }, "catch-up run failed; backing off");
          schedule(Math.min(maxBackoffMs, intervalMs * 2 ** state.failures));
        },
      );
    }, delayMs);
  };

  return {
    run,
    start() {
      if (stopped) throw invalid("start: this catch-up was stopped; make a new one");
      if (started) return;
      started = true;
      state.status = "idle";
      schedule(0);
    },
    async stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      state.nextRunAt = null;
      for (const controller of requests) controller.abort();
      await current?.catch(() => undefined);
      state.status = "stopped";
    },
    state: () => ({ ...state }),
  };
}
