import { type ExcludedPage, MAX_EVENTS_PAGE, type Outbox } from "@plant-store/sender";
import { z } from "zod";
import { scopeOf } from "../access/principal-of.js";
import type { RouteTable } from "../access/route-table.js";
import { notFound, WebhookApiError } from "../errors.js";
import { IdSchema } from "../inputs/api-inputs.js";
import { parseInput } from "../inputs/parse-input.js";

/** `GET /endpoints/{id}/excluded`: where to start and how many. */
export const ListExcludedQuerySchema = z.strictObject({
  after: z.string().min(1).max(32).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_EVENTS_PAGE).default(100),
});

const presentPage = (page: ExcludedPage) => ({
  messages: page.messages.map((message) => ({
    messageId: message.messageId,
    webhookId: message.webhookId,
    eventType: message.eventType,
    createdAt: message.createdAt.toISOString(),
  })),
  next: page.next,
});

/**
 * The messages an endpoint's filter excluded (decided as each was queued, kept as long as the message),
 * oldest first, paged by an opaque cursor: what the endpoint's `filteredCount` counts, one by one.
 */
export function exclusionRoutes(options: { outbox: Outbox }): RouteTable {
  const { outbox } = options;
  return [
    {
      method: "GET",
      path: "/endpoints/:id/excluded",
      access: "subscriber-or-operator",
      handler: async (ctx) => {
        const id = parseInput(IdSchema, ctx.params.id, "id");
        const query = parseInput(ListExcludedQuerySchema, ctx.query, "query", "(query)");
        const scope = scopeOf(ctx);
        let page: ExcludedPage | undefined;
        try {
          page = await outbox.listExcluded(id, {
            limit: query.limit,
            ...(query.after !== undefined ? { after: query.after } : {}),
            ...(scope ? { scope } : {}),
          });
        } catch (error) {
          if ((error as { code?: unknown }).code === "ERR_INVALID_CURSOR")
            throw new WebhookApiError(
              400,
              "ERR_INVALID_INPUT",
              `Invalid query: after: ${(error as Error).message}`,
            );
          throw error;
        }
        if (!page) throw notFound("Endpoint");
        ctx.body = presentPage(page);
      },
    },
  ];
}
