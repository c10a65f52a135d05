import type { Outbox } from "@plant-store/sender";
import type { Registry } from "prom-client";
import { z } from "zod";
import { scopeOf } from "../access/principal-of.js";
import type { RouteTable } from "../access/route-table.js";
import { parseInput } from "../inputs/parse-input.js";
import { deliveryStatsWindow, presentDeliveryStats } from "../monitoring/delivery-stats.js";

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

/**
 * How the store is doing: health and metrics for the operator's tools, and what the pages show beyond
 * the CRUD routes (each endpoint's health, the charts' attempts per minute and latencies, the alerts),
 * each in the caller's scope.
 */
export function monitoringRoutes(options: { outbox: Outbox; registry?: Registry }): RouteTable {
  const { outbox, registry } = options;
  return [
    {
      method: "GET",
      path: "/healthz",
      access: "public",
      handler: (ctx) => {
        ctx.body = { ok: true };
      },
    },
    // Prometheus scrapes with the operator's token (`authorization: { credentials: ... }`): the figures
    // name every subscriber's endpoints, so they are not for anyone who asks. Only with a registry.
    ...(registry === undefined
      ? []
      : [
          {
            method: "GET" as const,
            path: "/metrics",
            access: "operator" as const,
            handler: async (ctx: { type: string; body: unknown }) => {
              ctx.type = registry.contentType;
              ctx.body = await registry.metrics();
            },
          },
        ]),
    {
      method: "GET",
      path: "/endpoint-health",
      access: "subscriber-or-operator",
      handler: async (ctx) => {
        const { windowMinutes } = parseInput(EndpointHealthQuerySchema, ctx.query, "query");
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
      },
    },
    // Charts: attempts per minute and each endpoint's latency, in the caller's scope.
    {
      method: "GET",
      path: "/delivery-stats",
      access: "subscriber-or-operator",
      handler: async (ctx) => {
        const { windowMinutes } = parseInput(DeliveryStatsQuerySchema, ctx.query, "query");
        const window = deliveryStatsWindow(new Date(), windowMinutes);
        const timeline = await outbox.attemptTimeline(window.since, scopeOf(ctx));
        ctx.body = presentDeliveryStats(timeline, window, windowMinutes);
      },
    },
    // The alerts the worker recorded (also queued as operational webhooks), newest first: what an operator
    // without an alert endpoint of their own reads on the page.
    {
      method: "GET",
      path: "/alerts",
      access: "subscriber-or-operator",
      handler: async (ctx) => {
        const { windowMinutes, limit } = parseInput(AlertsQuerySchema, ctx.query, "query");
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
      },
    },
  ];
}
