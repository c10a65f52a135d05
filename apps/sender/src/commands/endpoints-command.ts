import { generateWebhookSecret } from "@plant-store/types";
import { Argument, Command, Option } from "commander";
import { AddEndpointInputSchema, IdSchema } from "../admin-inputs.js";
import { parseConfig } from "../parse-config.js";
import { presentEndpoint } from "../present.js";
import { dbOption, jsonOption } from "./db-option.js";
import { NotFoundError, print, withOutbox } from "./with-outbox.js";

export function endpointsCommand(): Command {
  const endpoints = new Command("endpoints").description("Manage the receivers plants are delivered to");
  endpoints
    .command("add")
    .description("Subscribe a receiver URL; prints a generated secret when none is given")
    .addArgument(new Argument("<url>", "the receiver's webhook URL"))
    .addOption(
      new Option("--token <token>", "bearer token sent with every delivery")
        .env("PLANT_STORE_TOKEN")
        .makeOptionMandatory(),
    )
    .addOption(new Option("--secret <whsec>", "signing secret (whsec_...)").env("PLANT_STORE_SECRET"))
    .addOption(dbOption())
    .addOption(jsonOption())
    .action(async (url: string, opts: { token: string; secret?: string; db: string; json?: boolean }) => {
      const input = parseConfig(AddEndpointInputSchema, {
        url,
        token: opts.token,
        ...(opts.secret ? { secret: opts.secret } : {}),
      });
      const generated = input.secret === undefined ? generateWebhookSecret() : undefined;
      await withOutbox(opts.db, async (outbox) => {
        const endpoint = await outbox.addEndpoint({
          url: input.url,
          token: input.token,
          secrets: [input.secret ?? (generated as string)],
        });
        print(
          opts.json,
          { endpoint: presentEndpoint(endpoint), ...(generated ? { secret: generated } : {}) },
          `Added endpoint #${endpoint.id} ${endpoint.url}` +
            (generated ? `\nSigning secret (shown once, give it to the receiver): ${generated}` : ""),
        );
      });
    });
  endpoints
    .command("list")
    .description("List endpoints (tokens and secrets are never shown)")
    .addOption(dbOption())
    .addOption(jsonOption())
    .action(async (opts: { db: string; json?: boolean }) => {
      await withOutbox(opts.db, async (outbox) => {
        const list = (await outbox.listEndpoints()).map(presentEndpoint);
        print(
          opts.json,
          { endpoints: list },
          list
            .map((e) => `#${e.id}\t${e.status}\t${e.url}${e.disabledReason ? `\t(${e.disabledReason})` : ""}`)
            .join("\n"),
        );
      });
    });
  for (const [name, status] of [
    ["disable", "disabled"],
    ["enable", "active"],
  ] as const) {
    endpoints
      .command(name)
      .description(`${name === "disable" ? "Stop" : "Resume"} deliveries to an endpoint`)
      .addArgument(new Argument("<id>", "endpoint id"))
      .addOption(dbOption())
      .addOption(jsonOption())
      .action(async (id: string, opts: { db: string; json?: boolean }) => {
        await withOutbox(opts.db, async (outbox) => {
          const endpoint = await outbox.setEndpointStatus(parseConfig(IdSchema, id), status);
          if (!endpoint) throw new NotFoundError(`No endpoint ${id}`);
          print(
            opts.json,
            { endpoint: presentEndpoint(endpoint) },
            `Endpoint #${endpoint.id} is ${endpoint.status}`,
          );
        });
      });
  }
  endpoints
    .command("remove")
    .description("Remove an endpoint with its deliveries")
    .addArgument(new Argument("<id>", "endpoint id"))
    .addOption(dbOption())
    .addOption(jsonOption())
    .action(async (id: string, opts: { db: string; json?: boolean }) => {
      await withOutbox(opts.db, async (outbox) => {
        if (!(await outbox.removeEndpoint(parseConfig(IdSchema, id))))
          throw new NotFoundError(`No endpoint ${id}`);
        print(opts.json, { removed: Number(id) }, `Removed endpoint #${id}`);
      });
    });
  return endpoints;
}
