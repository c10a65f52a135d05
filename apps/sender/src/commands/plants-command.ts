import { Command, Option } from "commander";
import { AddPlantInputSchema } from "../admin-inputs.js";
import { parseConfig } from "../parse-config.js";
import { presentPlant } from "../present.js";
import { dbOption, jsonOption } from "./db-option.js";
import { print, withOutbox } from "./with-outbox.js";

export function plantsCommand(): Command {
  const plants = new Command("plants").description("Add and list plants");
  plants
    .command("add")
    .description("Add a plant; one New Plant delivery is queued per active endpoint")
    .addOption(new Option("--name <name>", "the plant's name").env("PLANT_STORE_NAME").makeOptionMandatory())
    .addOption(new Option("--tag <tag>", "an optional tag").env("PLANT_STORE_TAG"))
    .addOption(dbOption())
    .addOption(jsonOption())
    .action(async (opts: { name: string; tag?: string; db: string; json?: boolean }) => {
      const input = parseConfig(
        AddPlantInputSchema,
        opts.tag === undefined ? { name: opts.name } : { name: opts.name, tag: opts.tag },
      );
      await withOutbox(opts.db, async (outbox) => {
        const { plant, deliveries } = await outbox.addPlant(
          input.tag === undefined ? { name: input.name } : { name: input.name, tag: input.tag },
        );
        print(
          opts.json,
          { plant: presentPlant(plant), queued: deliveries.length },
          `Added plant #${plant.id} ${plant.name} (${plant.webhookId}); ${deliveries.length} deliveries queued`,
        );
      });
    });
  plants
    .command("list")
    .description("List plants, newest first")
    .addOption(dbOption())
    .addOption(jsonOption())
    .action(async (opts: { db: string; json?: boolean }) => {
      await withOutbox(opts.db, async (outbox) => {
        const list = (await outbox.listPlants(1000)).map(presentPlant);
        print(
          opts.json,
          { plants: list },
          list.map((p) => `#${p.id}\t${p.name}\t${p.tag ?? ""}\t${p.createdAt}`).join("\n"),
        );
      });
    });
  return plants;
}
