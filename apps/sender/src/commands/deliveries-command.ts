import { IdSchema, presentAttempt, ReplayInputSchema } from "@plant-store/api";
import { Argument, Command, Option } from "commander";
import { z } from "zod";
import { parseConfig } from "../parse-config.js";
import { presentDeliveriesWithPlants } from "../present-plant.js";
import { ListDeliveriesQuerySchema } from "../store-inputs.js";
import { dbOption, encryptionKeyFileOption, jsonOption } from "./db-option.js";
import { NotFoundError, print, withStore } from "./with-store.js";

export function deliveriesCommand(): Command {
  const deliveries = new Command("deliveries").description("Inspect and retry deliveries");
  deliveries
    .command("list")
    .description("List deliveries, newest first")
    .addOption(new Option("--status <status>", "pending, delivered or failed").env("PLANT_STORE_STATUS"))
    .addOption(
      new Option("--event-type <type>", "only deliveries of this event type (newPlant)").env(
        "PLANT_STORE_EVENT_TYPE",
      ),
    )
    .addOption(new Option("--limit <n>", "at most this many").env("PLANT_STORE_LIMIT").default("100"))
    .addOption(dbOption())
    .addOption(encryptionKeyFileOption())
    .addOption(jsonOption())
    .action(
      async (opts: { status?: string; eventType?: string; limit: string; db: string; json?: boolean }) => {
        const query = parseConfig(ListDeliveriesQuerySchema, {
          status: opts.status,
          eventType: opts.eventType,
          limit: opts.limit,
        });
        await withStore(opts, async ({ outbox, plants }) => {
          const list = await presentDeliveriesWithPlants(
            plants,
            await outbox.listDeliveries({
              limit: query.limit,
              ...(query.status ? { status: query.status } : {}),
              ...(query.eventType ? { eventType: query.eventType } : {}),
            }),
          );
          print(
            opts.json,
            { deliveries: list },
            list
              .map(
                (d) =>
                  `#${d.id}\t${d.status}\t${d.eventType ?? "(no type)"}\tplant ${d.plantId}\tendpoint ${d.endpointId}\t${d.attempts} attempts\t${d.lastStatus ?? d.lastError ?? ""}`,
              )
              .join("\n"),
          );
        });
      },
    );
  deliveries
    .command("show")
    .description("Show one delivery with every attempt")
    .addArgument(new Argument("<id>", "delivery id"))
    .addOption(dbOption())
    .addOption(encryptionKeyFileOption())
    .addOption(jsonOption())
    .action(async (id: string, opts: { db: string; json?: boolean }) => {
      await withStore(opts, async ({ outbox, plants }) => {
        const deliveryId = parseConfig(IdSchema, id);
        const delivery = await outbox.getDelivery(deliveryId);
        if (!delivery) throw new NotFoundError(`No delivery ${id}`);
        const attempts = (await outbox.listAttempts(deliveryId)).map(presentAttempt);
        const [shown] = await presentDeliveriesWithPlants(plants, [delivery]);
        if (!shown) throw new NotFoundError(`No delivery ${id}`);
        print(
          opts.json,
          { delivery: shown, attempts },
          [
            `Delivery #${shown.id} ${shown.status} (${shown.webhookId}) plant ${shown.plantId} → endpoint ${shown.endpointId}`,
            ...attempts.map(
              (a) => `  ${a.attempt}. ${a.startedAt} ${a.status ?? a.error} ${a.durationMs} ms ${a.outcome}`,
            ),
          ].join("\n"),
        );
      });
    });
  deliveries
    .command("retry")
    .description("Attempt one delivery again now, with a fresh schedule")
    .addArgument(new Argument("<id>", "delivery id"))
    .addOption(dbOption())
    .addOption(encryptionKeyFileOption())
    .addOption(jsonOption())
    .action(async (id: string, opts: { db: string; json?: boolean }) => {
      await withStore(opts, async ({ outbox, plants }) => {
        const delivery = await outbox.retryDelivery(parseConfig(IdSchema, id));
        if (!delivery) throw new NotFoundError(`No delivery ${id}`);
        const [shown] = await presentDeliveriesWithPlants(plants, [delivery]);
        print(opts.json, { delivery: shown }, `Delivery #${delivery.id} queued again`);
      });
    });
  return deliveries;
}

const ReplayFlags = z.strictObject({
  endpoint: ReplayInputSchema.shape.endpointId,
  since: ReplayInputSchema.shape.since,
});

export function replayCommand(): Command {
  return new Command("replay")
    .description("Deliver every plant added since a time (within the retention) to one endpoint again")
    .addOption(new Option("--endpoint <id>", "endpoint id").env("PLANT_STORE_ENDPOINT").makeOptionMandatory())
    .addOption(
      new Option("--since <time>", "ISO time, e.g. 2026-01-01T00:00:00Z")
        .env("PLANT_STORE_SINCE")
        .makeOptionMandatory(),
    )
    .addOption(dbOption())
    .addOption(encryptionKeyFileOption())
    .addOption(jsonOption())
    .action(async (opts: { endpoint: string; since: string; db: string; json?: boolean }) => {
      // Keyed like the flags, so a problem names --endpoint (PLANT_STORE_ENDPOINT), not the API's field.
      const input = parseConfig(ReplayFlags, { endpoint: opts.endpoint, since: opts.since });
      await withStore(opts, async ({ outbox }) => {
        const queued = await outbox.replay(input.endpoint, new Date(input.since));
        print(opts.json, { queued }, `${queued} deliveries queued for endpoint #${input.endpoint}`);
      });
    });
}
