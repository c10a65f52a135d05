import type Router from "@koa/router";
import { MAX_ENDPOINT_SECRETS, type Outbox, TooManySecretsError } from "@plant-store/sender";
import { z } from "zod";
import { AdminError, invalidInput, notFound } from "./admin-error.js";
import { IdSchema } from "./admin-inputs.js";
import { deliveryStatsWindow, presentDeliveryStats } from "./delivery-stats.js";
import { formatZodError } from "./format-zod-error.js";
import { presentEndpoint } from "./present.js";
import { scopeOf } from "./principal.js";

/** The store page's success rate is over the last hour unless asked otherwise; at most a week back. */
const EndpointHealthQuerySchema = z.strictObject({
  windowMinutes: z.coerce.number().int().min(1).max(10_080).default(60),
});

/** The store page's charts: the last hour unless asked otherwise; at most a day (its cost grows with the attempts). */
const DeliveryStatsQuerySchema = z.strictObject({
  windowMinutes: z.coerce.number().int().min(1).max(1440).default(60),
});

/** The store page's alerts: the last day's, at most 50 unless asked otherwise. */
const AlertsQuerySchema = z.strictObject({
  windowMinutes: z.coerce.number().int().min(1).max(10_080).default(1440),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});

function parse<T extends z.ZodType>(schema: T, value: unknown, what: string): z.infer<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw invalidInput(formatZodError(`Invalid ${what}`, result.error));
  return result.data;
}

/**
 * What the store page needs beyond the CRUD routes: each endpoint's health (status, failing since,
 * success rate over a window), the charts' attempts per minute and latencies, and a secret rotation that
 * generates the new secret server-side.
 */
export function addOperatorRoutes(admin: Router, outbox: Outbox): void {
  admin.get("/endpoint-health", async (ctx) => {
    const { windowMinutes } = parse(EndpointHealthQuerySchema, ctx.query, "query");
    const until = new Date();
    const since = new Date(until.getTime() - windowMinutes * 60_000);
    const scope = scopeOf(ctx);
    const [endpoints, stats] = await Promise.all([
      outbox.listEndpoints(scope),
      outbox.endpointStats(since, scope),
    ]);
    const byEndpoint = new Map(stats.map((entry) => [entry.endpointId, entry]));
    ctx.body = {
      since: since.toISOString(),
      until: until.toISOString(),
      endpoints: endpoints.map((endpoint) => {
        const entry = byEndpoint.get(endpoint.id);
        const attempts = entry?.attempts ?? 0;
        const succeeded = entry?.succeeded ?? 0;
        return {
          endpointId: endpoint.id,
          status: endpoint.status,
          disabledReason: endpoint.disabledReason,
          failingSince: endpoint.failingSince?.toISOString() ?? null,
          attempts,
          succeeded,
          // No attempts is no evidence either way: null, not 0 % or 100 %.
          successRate: attempts === 0 ? null : succeeded / attempts,
          lastAttemptAt: entry?.lastAttemptAt.toISOString() ?? null,
        };
      }),
    };
  });

  // Charts: attempts per minute and each endpoint's latency, in the caller's scope.
  admin.get("/delivery-stats", async (ctx) => {
    const { windowMinutes } = parse(DeliveryStatsQuerySchema, ctx.query, "query");
    const window = deliveryStatsWindow(new Date(), windowMinutes);
    const timeline = await outbox.attemptTimeline(window.since, scopeOf(ctx));
    ctx.body = presentDeliveryStats(timeline, window, windowMinutes);
  });

  // The alerts the worker recorded (also queued as operational webhooks), newest first: what an operator
  // without an alert endpoint of their own reads on the page.
  admin.get("/alerts", async (ctx) => {
    const { windowMinutes, limit } = parse(AlertsQuerySchema, ctx.query, "query");
    const since = new Date(Date.now() - windowMinutes * 60_000);
    const alerts = await outbox.listAlerts(since, limit, scopeOf(ctx));
    ctx.body = {
      since: since.toISOString(),
      alerts: alerts.map((record) => ({
        messageId: record.messageId,
        webhookId: record.webhookId,
        createdAt: record.createdAt.toISOString(),
        alert: record.alert,
      })),
    };
  });

  // Rotation without a secret ever typed into a browser, as `endpoints rotate-secret` does it: the store
  // draws the new secret and adds it to the current ones (Standard Webhooks sends one signature per
  // secret), so the receiver keeps verifying while it is given the new one. The old ones are dropped
  // with PATCH /endpoints/{id} (or `endpoints set-secrets`) once it has.
  admin.post("/endpoints/:id/rotate-secret", async (ctx) => {
    const id = parse(IdSchema, ctx.params.id, "id");
    // Read, checked against the limit and written in one transaction.
    const rotated = await outbox.rotateEndpointSecret(id, undefined, scopeOf(ctx)).catch((error: unknown) => {
      if (!(error instanceof TooManySecretsError)) throw error;
      throw new AdminError(
        409,
        error.code,
        `Endpoint ${id} already has ${MAX_ENDPOINT_SECRETS} secrets: drop old ones with PATCH /endpoints/${id} first`,
      );
    });
    if (!rotated) throw notFound("Endpoint");
    // Shown exactly once, here, like a generated secret on POST /endpoints.
    ctx.body = { endpoint: presentEndpoint(rotated.endpoint), secret: rotated.secret };
  });
}
