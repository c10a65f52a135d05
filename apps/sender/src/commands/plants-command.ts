import { IdempotencyKeySchema } from "@plant-store/api";
import { Command, Option } from "commander";
import { z } from "zod";
import { parseConfig } from "../parse-config.js";
import { presentPlant } from "../present-plant.js";
import { AddPlantInputSchema } from "../store-inputs.js";
import { dbOption, encryptionKeyFileOption, jsonOption } from "./db-option.js";
import { print, withStore } from "./with-store.js";

export function plantsCommand(): Command {
  const plants = new Command("plants").description("Add and list plants");
  plants
    .command("add")
    .description("Add a plant; one New Plant delivery is queued per active endpoint")
    .addOption(new Option("--name <name>", "the plant's name").env("PLANT_STORE_NAME").makeOptionMandatory())
    .addOption(new Option("--tag <tag>", "an optional tag").env("PLANT_STORE_TAG"))
    .addOption(
      new Option(
        "--idempotency-key <key>",
        "add the plant once however often this is run with the same key and plant",
      ).env("PLANT_STORE_IDEMPOTENCY_KEY"),
    )
    .addOption(
      new Option(
        "--ordering-key <key>",
        "plants added with one key reach each endpoint in the order they were added, one at a time",
      ).env("PLANT_STORE_ORDERING_KEY"),
    )
    .addOption(dbOption())
    .addOption(encryptionKeyFileOption())
    .addOption(jsonOption())
    .action(
      async (opts: {
        name: string;
        tag?: string;
        idempotencyKey?: string;
        orderingKey?: string;
        db: string;
        json?: boolean;
      }) => {
        const input = parseConfig(
          AddPlantInputSchema,
          opts.tag === undefined ? { name: opts.name } : { name: opts.name, tag: opts.tag },
        );
        // Keyed like the flag, so a problem names --idempotency-key (PLANT_STORE_IDEMPOTENCY_KEY).
        const { idempotencyKey, orderingKey } = parseConfig(
          z.object({
            idempotencyKey: IdempotencyKeySchema.optional(),
            orderingKey: IdempotencyKeySchema.optional(),
          }),
          { idempotencyKey: opts.idempotencyKey, orderingKey: opts.orderingKey },
        );
        await withStore(opts, async ({ plants }) => {
          const { plant, queued, replayed } = await plants.add(
            { ...input, ...(orderingKey === undefined ? {} : { orderingKey }) },
            idempotencyKey,
          );
          print(
            opts.json,
            { plant: presentPlant(plant), queued },
            replayed
              ? `Plant #${plant.id} ${plant.name} was already added with this idempotency key (${plant.webhookId}); nothing new queued`
              : `Added plant #${plant.id} ${plant.name} (${plant.webhookId}); ${queued} deliveries queued`,
          );
        });
      },
    );
  plants
    .command("list")
    .description("List plants, newest first")
    .addOption(dbOption())
    .addOption(encryptionKeyFileOption())
    .addOption(jsonOption())
    .action(async (opts: { db: string; json?: boolean }) => {
      await withStore(opts, async ({ plants }) => {
        const list = (await plants.list(1000)).map(presentPlant);
        print(
          opts.json,
          { plants: list },
          list.map((p) => `#${p.id}\t${p.name}\t${p.tag ?? ""}\t${p.createdAt}`).join("\n"),
        );
      });
    });
  return plants;
}
