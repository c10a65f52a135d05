import { DELIVERY_TIMEOUT_MS, generateWebhookSecret, signWebhook } from "@plant-store/types";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  createDeliveryHandler,
  type DeliveryAnswer,
  type DeliveryRequest,
  type ReceiverOptions,
} from "./create-delivery-handler.js";
import { InvalidReceiverOptionsError } from "./errors/invalid-receiver-options-error.js";
import type { ReceiverLogger } from "./receiver-logger.js";

// The receive path called as an adapter calls it, without a server: what it answers (status, body,
// whether to close the connection, the outcome for metrics), what it reads and what it logs.

const secret = generateWebhookSecret();

interface Sent {
  request: DeliveryRequest;
  /** Every `readBody(limit, timeoutMs)` call. */
  reads: Array<[number, number]>;
}

function delivery(
  options: {
    id?: string;
    token?: string;
    body?: string;
    method?: string;
    tamper?: boolean;
    hasBody?: boolean;
  } = {},
): Sent {
  const id = options.id ?? "msg_1";
  const body = options.body ?? JSON.stringify({ id: 7, name: "Monstera" });
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = signWebhook({ secrets: [secret], id, timestamp, body }) as string;
  const reads: Array<[number, number]> = [];
  const bytes = new TextEncoder().encode(options.tamper ? `${body} ` : body);
  return {
    reads,
    request: {
      method: options.method ?? "POST",
      headers: {
        authorization: `Bearer ${options.token ?? "t0ken"}`,
        "content-type": "application/json",
        "webhook-id": id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": signature,
      },
      hasBody: options.hasBody ?? true,
      readBody(limit, timeoutMs) {
        reads.push([limit, timeoutMs]);
        return bytes;
      },
    },
  };
}

function recordingLogger() {
  const lines: Array<{ level: string; object: object; message?: string }> = [];
  const at =
    (level: string) =>
    (object: object, message?: string): void => {
      lines.push({ level, object, ...(message === undefined ? {} : { message }) });
    };
  const logger: ReceiverLogger = {
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
  };
  return { logger, lines };
}

const make = (options: Partial<ReceiverOptions> = {}) =>
  createDeliveryHandler({ tokens: ["t0ken"], secrets: [secret], onNewPlant: () => undefined, ...options });

/** New Plant's one route: where an adapter would have matched the request. */
const routeOf = ({ routes: [route] }: ReturnType<typeof make>) => {
  if (route === undefined) throw new Error("no route");
  return route;
};

const answer = async (handler: ReturnType<typeof make>, sent: Sent): Promise<DeliveryAnswer> =>
  await handler.handle(sent.request, routeOf(handler));

afterEach(() => {
  vi.useRealTimers();
});

describe("createDeliveryHandler's options", () => {
  it("refuses a path that is not a string starting with /", () => {
    for (const path of ["plant/webhook", "", 42 as unknown as string]) {
      expect(() => make({ path }), String(path)).toThrow(
        new InvalidReceiverOptionsError("Invalid receiver options: path: must start with /"),
      );
    }
    expect(make().routes[0]?.path).toBe("/plant/webhook");
    expect(make({ path: "/hooks/plants" }).routes[0]?.path).toBe("/hooks/plants");
  });

  it("refuses a body timeout that is not a positive integer, and reads the body within the one given", async () => {
    for (const bodyTimeoutMs of [0, -1, 1.5, Number.NaN]) {
      expect(() => make({ bodyTimeoutMs }), String(bodyTimeoutMs)).toThrow(
        new InvalidReceiverOptionsError(
          "Invalid receiver options: bodyTimeoutMs: must be a positive integer",
        ),
      );
    }
    const sent = delivery();
    expect((await answer(make({ bodyTimeoutMs: 1, maxBodyBytes: 2048 }), sent)).status).toBe(200);
    expect(sent.reads).toEqual([[2048, 1]]);
    const byDefault = delivery();
    await answer(make(), byDefault);
    expect(byDefault.reads[0]?.[1]).toBe(DELIVERY_TIMEOUT_MS);
  });
});

describe("createDeliveryHandler's answers", () => {
  it("answers a delivery 200 once and its copy as a duplicate, logging each at debug level only", async () => {
    const { logger, lines } = recordingLogger();
    const handler = make({ logger });
    const [first, copy] = [await answer(handler, delivery()), await answer(handler, delivery())];
    expect(first).toEqual({
      status: 200,
      headers: {},
      body: JSON.stringify({ received: true, duplicate: false }),
      closeConnection: false,
      outcome: { outcome: "received", webhookId: "msg_1" },
    });
    // The copy differs in its body and outcome only.
    expect({ ...copy, body: JSON.parse(copy.body) }).toEqual({
      ...first,
      body: { received: true, duplicate: true },
      outcome: { outcome: "duplicate", webhookId: "msg_1" },
    });
    expect(lines).toEqual([
      { level: "debug", object: { webhookId: "msg_1", duplicate: false }, message: "plant webhook received" },
      { level: "debug", object: { webhookId: "msg_1", duplicate: true }, message: "plant webhook received" },
    ]);
  });

  it("refuses before the body: closes the connection when a body was announced, and logs a warning", async () => {
    const { logger, lines } = recordingLogger();
    const handler = make({ logger });
    const sent = delivery({ token: "wrong" });
    const refused = await answer(handler, sent);
    expect(refused).toMatchObject({
      status: 401,
      closeConnection: true,
      outcome: { outcome: "rejected", code: "ERR_INVALID_TOKEN" },
    });
    expect(refused.outcome).not.toHaveProperty("webhookId");
    expect(JSON.parse(refused.body)).toEqual({ error: 401, message: "Missing or invalid bearer token" });
    expect(sent.reads).toEqual([]);
    expect(lines).toEqual([
      {
        level: "warn",
        object: { status: 401, code: "ERR_INVALID_TOKEN" },
        message: "plant webhook rejected",
      },
    ]);
    expect((await answer(handler, delivery({ token: "wrong", hasBody: false }))).closeConnection).toBe(false);
  });

  it("answers 405 with Allow to another method, before reading anything", async () => {
    const sent = delivery({ method: "PUT" });
    const refused = await answer(make(), sent);
    expect(refused).toMatchObject({ status: 405, closeConnection: true, outcome: { outcome: "rejected" } });
    expect(refused.headers).toMatchObject({ Allow: "POST" });
    expect(sent.reads).toEqual([]);
  });

  it("keeps the connection once the body was read, whatever the refusal", async () => {
    const refused = await answer(make(), delivery({ tamper: true }));
    expect(refused).toMatchObject({
      status: 401,
      closeConnection: false,
      outcome: { outcome: "rejected", code: "ERR_INVALID_SIGNATURE" },
    });
  });

  it.each([
    [
      "throws",
      () => {
        throw new Error("disk full");
      },
    ],
    [
      "rejects",
      async () => {
        throw new Error("disk full");
      },
    ],
  ])(
    "answers 500 when the handler %s, naming the id, and logs the cause as an error",
    async (_, onNewPlant) => {
      const { logger, lines } = recordingLogger();
      const failed = await answer(make({ logger, onNewPlant }), delivery({ id: "msg_failing" }));
      expect(failed).toMatchObject({
        status: 500,
        closeConnection: false,
        outcome: { outcome: "failed", code: "ERR_HANDLER_FAILED", webhookId: "msg_failing" },
      });
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({
        level: "error",
        object: { status: 500, code: "ERR_HANDLER_FAILED", webhookId: "msg_failing" },
        message: "plant webhook failed",
      });
      expect((lines[0]?.object as { err?: Error } | undefined)?.err?.message).toBe("disk full");
    },
  );

  it("answers 500 to a copy still waiting for the first one's handler after maxWaitMs", async () => {
    let finish = (): void => undefined;
    const handler = make({
      maxWaitMs: 20,
      onNewPlant: () =>
        new Promise<void>((resolve) => {
          finish = resolve;
        }),
    });
    const first = handler.handle(delivery().request, routeOf(handler));
    const copy = await answer(handler, delivery());
    expect(copy).toMatchObject({
      status: 500,
      outcome: { outcome: "failed", code: "ERR_DELIVERY_IN_PROGRESS", webhookId: "msg_1" },
    });
    finish();
    expect((await first).outcome).toEqual({ outcome: "received", webhookId: "msg_1" });
  });
});

describe("createDeliveryHandler's default store", () => {
  it("keeps every id for twice the tolerance even when full, then makes room", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const handler = make({ toleranceSeconds: 3 });
    const full = 100_000;
    for (let i = 0; i < full; i++) {
      const sent = await answer(handler, delivery({ id: `msg_${i}` }));
      if (sent.status !== 200) throw new Error(`msg_${i}: ${sent.status}`);
    }
    // 5 s later every id is still younger than 6 s: none may be forgotten.
    vi.advanceTimersByTime(5_000);
    const { logger, lines } = recordingLogger();
    const elsewhere = await answer(
      make({ toleranceSeconds: 3, logger }),
      delivery({ id: "msg_other_handler" }),
    );
    expect(elsewhere.status, "a handler of its own has room").toBe(200);
    expect(lines.filter((line) => line.level === "error")).toEqual([]);
    expect((await answer(handler, delivery({ id: "msg_late" }))).outcome).toMatchObject({
      outcome: "failed",
      code: "ERR_INTERNAL",
      webhookId: "msg_late",
    });
    vi.advanceTimersByTime(1_100);
    expect((await answer(handler, delivery({ id: "msg_late" }))).outcome).toEqual({
      outcome: "received",
      webhookId: "msg_late",
    });
  }, 60_000);
});
