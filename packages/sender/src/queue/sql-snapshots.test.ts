import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { AttemptReport } from "../outbox.js";
import { createRetryPolicy } from "../retry/create-retry-policy.js";
import { createSecretCodec } from "../secrets/create-secret-codec.js";
import type { Operation, Step } from "./operation.js";
import { addEndpoint } from "./operations/add-endpoint.js";
import { addSubscriber } from "./operations/add-subscriber.js";
import { attemptTimeline } from "./operations/attempt-timeline.js";
import { authenticateSubscriber } from "./operations/authenticate-subscriber.js";
import { claimDue } from "./operations/claim-due.js";
import { countEndpoints } from "./operations/count-endpoints.js";
import { endpointStats } from "./operations/endpoint-stats.js";
import { enqueueMessages } from "./operations/enqueue-messages.js";
import { ensureEndpoint } from "./operations/ensure-endpoint.js";
import { getDelivery } from "./operations/get-delivery.js";
import { getEndpoint } from "./operations/get-endpoint.js";
import { getMessage } from "./operations/get-message.js";
import { getSubscriber } from "./operations/get-subscriber.js";
import { listAlerts } from "./operations/list-alerts.js";
import { listAttempts } from "./operations/list-attempts.js";
import { listDeliveries } from "./operations/list-deliveries.js";
import { listEndpoints } from "./operations/list-endpoints.js";
import { listEvents } from "./operations/list-events.js";
import { listExcluded } from "./operations/list-excluded.js";
import { listSubscribers } from "./operations/list-subscribers.js";
import { markEndpointVerified } from "./operations/mark-endpoint-verified.js";
import { migrateSchema } from "./operations/migrate-schema.js";
import { recordAttempts } from "./operations/record-attempts.js";
import { reencryptEndpoints } from "./operations/reencrypt-endpoints.js";
import { releaseLeases } from "./operations/release-leases.js";
import { removeEndpoint } from "./operations/remove-endpoint.js";
import { removeSubscriber } from "./operations/remove-subscriber.js";
import { replayMessages } from "./operations/replay-messages.js";
import { retryDelivery } from "./operations/retry-delivery.js";
import { rotateEndpointSecret } from "./operations/rotate-endpoint-secret.js";
import { rotateSubscriberToken } from "./operations/rotate-subscriber-token.js";
import { sendToEndpoint } from "./operations/send-to-endpoint.js";
import { setEndpointStatus } from "./operations/set-endpoint-status.js";
import { sweepFinished } from "./operations/sweep-finished.js";
import { updateEndpoint } from "./operations/update-endpoint.js";
import { POSTGRES_NOW, postgresDialect } from "./postgres/postgres-dialect.js";
import { postgresStatements } from "./postgres/postgres-statements.js";
import type { PreparedMessage } from "./prepare-message.js";
import type { QueueContext } from "./queue-context.js";
import { param, render } from "./sql.js";
import { sqliteDialect } from "./sqlite/sqlite-dialect.js";
import { sqliteStatements } from "./sqlite/sqlite-statements.js";

/**
 * Every operation's statements as each database is sent them, rendered without a database: each
 * operation runs against the dialect with made-up answers, and what it asks for is written to
 * `sql-snapshots/<database>/<operation>.sql`. A change to the SQL shows in review as SQL;
 * `vitest -u` rewrites the files.
 */

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const NOW = 1_700_000_000_000;

/** One row with every column an operation reads back (an endpoint's, a delivery's, a message's...). */
const ROW = {
  id: 1,
  found: 1,
  version: 0,
  url: "https://example.test/hook",
  token: "token",
  secrets: JSON.stringify([SECRET]),
  status: "active",
  disabled_reason: null,
  failing_since: null,
  last_failure_at: null,
  event_types: null,
  rate_limit: null,
  subscriber_id: null,
  verified_at: null,
  created_at: NOW,
  updated_at: NOW,
  webhook_id: "msg_1",
  message_id: 1,
  endpoint_id: 1,
  event_type: null,
  payload: "{}",
  idempotency_key: null,
  attempt_count: 1,
  round_attempts: 1,
  next_attempt_at: NOW,
  lease_owner: "worker",
  lease_until: NOW + 30_000,
  last_status: null,
  last_error: null,
  name: "subscriber",
  delivery_id: 1,
  deliveries: 1,
  now_ms: NOW,
  endpoint_failing_since: null,
};

/** A claimed delivery, its message's and endpoint's columns beside it. */
const CLAIMED = {
  ...ROW,
  status: "pending",
  m_payload: "{}",
  m_traceparent: null,
  ...Object.fromEntries(Object.entries(ROW).map(([name, value]) => [`e_${name}`, value])),
};

const message = (webhookId: string, idempotencyKey: string | null = null): PreparedMessage => ({
  webhookId,
  eventType: "plant.created",
  idempotencyKey,
  payload: "{}",
  subscriberId: null,
  orderingKey: null,
});

const policy = createRetryPolicy();
const report = (deliveryId: number, status: number | null): AttemptReport => ({
  deliveryId,
  workerId: "worker",
  result: {
    status,
    error: status === null ? "ECONNREFUSED" : null,
    startedAt: new Date(NOW),
    durationMs: 5,
    responseBody: "",
  },
});
const claim = { workerId: "worker", limit: 10, leaseMs: 30_000, perEndpointLimit: 5 };

/** How an operation is run: the answer to each statement (default: `ROW` for rows, 1 for a count). */
interface Scenario {
  run(ctx: QueueContext): Operation<unknown>;
  answer?(text: string, kind: "rows" | "count"): unknown;
}

/** A delivery pending under this worker's lease, for `recordAttempts` to decide. */
const leased = (id: number) => ({ ...ROW, id, status: "pending" });

const SCENARIOS: Record<string, Scenario> = {
  "add-endpoint": {
    run: (ctx) =>
      addEndpoint(ctx, {
        url: "https://example.test/hook",
        token: "token",
        secrets: [SECRET],
        eventTypes: ["plant.*"],
        subscriberId: 1,
        rateLimit: 10,
      }),
  },
  "add-subscriber": { run: (ctx) => addSubscriber(ctx, { name: "subscriber" }) },
  "attempt-timeline": { run: () => attemptTimeline(new Date(NOW), { subscriberId: 1 }) },
  "authenticate-subscriber": { run: () => authenticateSubscriber("token") },
  "claim-due": { run: (ctx) => claimDue(ctx, claim), answer: (_, kind) => (kind === "rows" ? [CLAIMED] : 1) },
  "count-endpoints": { run: () => countEndpoints(1, "https://example.test/hook") },
  "endpoint-stats": { run: () => endpointStats(new Date(NOW), { subscriberId: 1 }) },
  "enqueue-one-message": { run: (ctx) => enqueueMessages(ctx, [message("msg_1")], ["00-trace-01"]) },
  // On a store that checks the filter set: read once (one endpoint, whose filter excludes msg_1), then
  // sent with the insert.
  "enqueue-one-message-checked": {
    run: (ctx) =>
      enqueueMessages({ ...ctx, filterSets: { current: undefined } }, [message("msg_1")], ["00-trace-01"]),
    answer: (text) =>
      text.startsWith("SELECT fs.fingerprint") ? [{ fingerprint: "0f1e", id: 1, filter: "false" }] : [ROW],
  },
  // The batch: msg_1 is inserted, msg_2's key answers with its first message.
  "enqueue-messages": {
    run: (ctx) =>
      enqueueMessages(ctx, [message("msg_1"), message("msg_2", "key")], ["00-trace-01", "00-trace-02"]),
    answer: (text) =>
      text.includes("idempotency_key")
        ? text.startsWith("SELECT")
          ? [{ ...ROW, id: 2, webhook_id: "msg_0", idempotency_key: "key" }]
          : [ROW]
        : [{ message_id: 1 }],
  },
  // A batch on a store that checks the filter set, whose copy holds no filtered endpoint: the insert
  // alone, checked against the set (SQLite, which does not check, reads its candidates first).
  "enqueue-messages-checked": {
    run: (ctx) =>
      enqueueMessages(
        { ...ctx, filterSets: { current: { fingerprint: "e3b0", endpoints: [] } } },
        [message("msg_1"), message("msg_2")],
        ["00-trace-01", "00-trace-02"],
      ),
    answer: (text) => (text.startsWith("SELECT") ? [] : [ROW, { ...ROW, id: 2, webhook_id: "msg_2" }]),
  },
  "ensure-endpoint": {
    run: (ctx) => ensureEndpoint(ctx, { url: "https://example.test/hook", token: "new", secrets: [SECRET] }),
  },
  "get-delivery": { run: () => getDelivery(1, { subscriberId: 1 }) },
  "get-endpoint": { run: (ctx) => getEndpoint(ctx, 1, { subscriberId: 1 }) },
  "get-message": { run: () => getMessage(1, { subscriberId: 1 }) },
  "get-subscriber": { run: () => getSubscriber(1) },
  "list-alerts": { run: () => listAlerts(new Date(NOW), 100, { subscriberId: 1 }) },
  "list-attempts": { run: () => listAttempts(1, { subscriberId: 1 }) },
  "list-deliveries": {
    run: () =>
      listDeliveries({ status: "pending", eventType: "plant.created", endpointId: 1, subscriberId: 1 }),
  },
  "list-endpoints": { run: (ctx) => listEndpoints(ctx, { subscriberId: 1 }) },
  // From a cursor whose delivery retention deleted: the oldest one kept is looked up, then the page read.
  "list-excluded": {
    run: () => listExcluded(1, { after: "5", limit: 50, scope: { subscriberId: 1 } }),
  },
  "list-events": {
    run: (ctx) => listEvents(ctx, 1, { after: "5", limit: 50, scope: { subscriberId: 1 } }, NOW / 1000),
    // PostgreSQL reads the page and the endpoint in one statement (the endpoint's row last, message_id
    // NULL, its values in the events' columns), SQLite in two.
    answer: (text) =>
      text.includes("SELECT 1 AS found")
        ? []
        : text.includes("UNION ALL")
          ? [
              { ...ROW, message_id: 4 },
              {
                message_id: null,
                webhook_id: ROW.secrets,
                event_type: null,
                payload: ROW.token,
                created_at: null,
              },
            ]
          : [{ ...ROW, message_id: 4 }],
  },
  "list-subscribers": { run: () => listSubscribers() },
  "mark-endpoint-verified": {
    run: (ctx) => markEndpointVerified(ctx, 1, { subscriberId: 1 }, "https://example.test/hook"),
  },
  // An empty database: every table, column and index made, the version stored.
  "migrate-schema": { run: (ctx) => migrateSchema(ctx), answer: (_, kind) => (kind === "rows" ? [] : 0) },
  // The worker's hot path: a success and a failure recorded, and new work claimed, in one transaction.
  "record-attempts": {
    run: (ctx) => recordAttempts(ctx, [report(1, 200), report(2, 500)], { policy, claim }, false),
    answer: (text, kind) => {
      if (kind === "count") return 2;
      if (text.includes("now_ms")) return [leased(1), leased(2)];
      // The claimed rows (and on PostgreSQL, each write's count in the same row).
      if (text.includes("m_payload")) return [{ ...CLAIMED, w0: 2, w1: 2, w2: 1 }];
      return [ROW];
    },
  },
  "reencrypt-endpoints": { run: (ctx) => reencryptEndpoints(ctx) },
  "release-leases": { run: (ctx) => releaseLeases(ctx, [1, 2], "worker") },
  "remove-endpoint": { run: () => removeEndpoint(1, { subscriberId: 1 }) },
  "remove-subscriber": { run: () => removeSubscriber(1) },
  "replay-messages": { run: (ctx) => replayMessages(ctx, 1, new Date(NOW), { subscriberId: 1 }) },
  "retry-delivery": { run: (ctx) => retryDelivery(ctx, 1, { subscriberId: 1 }) },
  "rotate-endpoint-secret": { run: (ctx) => rotateEndpointSecret(ctx, 1, SECRET, { subscriberId: 1 }) },
  "rotate-subscriber-token": { run: () => rotateSubscriberToken(1) },
  "send-to-endpoint": {
    run: (ctx) => sendToEndpoint(ctx, 1, message("msg_1"), "00-trace-01", { subscriberId: 1 }),
  },
  "set-endpoint-status": {
    run: (ctx) => setEndpointStatus(ctx, 1, "disabled", "by hand", { subscriberId: 1 }),
  },
  "sweep-finished": { run: (ctx) => sweepFinished(ctx, { olderThanMs: 86_400_000, batchSize: 100 }) },
  "update-endpoint": {
    run: (ctx) =>
      updateEndpoint(
        ctx,
        1,
        { url: "https://example.test/new", token: "new", secrets: [SECRET], eventTypes: null, rateLimit: 5 },
        { subscriberId: 1 },
      ),
  },
};

const DATABASES = {
  sqlite: { dialect: sqliteDialect, store: sqliteStatements, now: param(NOW, "bigint") },
  postgres: { dialect: postgresDialect, store: postgresStatements, now: POSTGRES_NOW },
};

/** The statements `scenario` sends, in order, each ended by `;`, a wake-up and an error as comments. */
function rendered(database: keyof typeof DATABASES, scenario: Scenario): string {
  const ctx: QueueContext = { ...DATABASES[database], codec: createSecretCodec() };
  const { dialect } = ctx;
  const out: string[] = [];
  const operation = scenario.run(ctx);
  const answer = (step: Step): unknown => {
    if (step.kind === "wake") {
      out.push("-- wake the workers once committed");
      return undefined;
    }
    if (step.kind === "reuse-plans") {
      out.push("-- keep each statement's plan for the transaction");
      return undefined;
    }
    const { text } = render(step.sql, dialect);
    out.push(`${text.trim()};`);
    // The store holds no encrypted values: a plain codec may write (sealEndpointValues).
    if (text.includes("'enc:plain:'")) return [];
    return scenario.answer?.(text, step.kind) ?? (step.kind === "rows" ? [ROW] : 1);
  };
  try {
    let step = operation.next();
    while (!step.done) step = operation.next(answer(step.value));
  } catch (error) {
    out.push(`-- throws ${(error as Error).name}`);
  }
  return `${out.join("\n\n")}\n`;
}

describe("the SQL each operation sends", () => {
  for (const database of ["sqlite", "postgres"] as const)
    it.each(Object.keys(SCENARIOS))(`on ${database}: %s`, async (name) => {
      await expect(rendered(database, SCENARIOS[name] as Scenario)).toMatchFileSnapshot(
        `./sql-snapshots/${database}/${name}.sql`,
      );
    });

  it("covers every operation of queue/operations (the parts others call are rendered within them)", () => {
    const parts = ["check-endpoint-input", "require-subscribers", "seal-endpoint-values"];
    const operations = readdirSync(new URL("./operations", import.meta.url))
      .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"))
      .map((file) => file.replace(/\.ts$/, ""))
      .filter((name) => !parts.includes(name));
    expect(operations.filter((name) => !(name in SCENARIOS))).toEqual([]);
  });
});
