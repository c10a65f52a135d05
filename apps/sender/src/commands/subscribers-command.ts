import { AddSubscriberInputSchema, createPortalAccess, IdSchema, presentSubscriber } from "@plant-store/api";
import { ConfigError } from "@plant-store/app-shell";
import { InvalidSubscriberError } from "@plant-store/sender";
import { Argument, Command, Option } from "commander";
import { parseConfig } from "../parse-config.js";
import { dbOption, encryptionKeyFileOption, jsonOption } from "./db-option.js";
import { NotFoundError, print, withStore } from "./with-store.js";

interface StoreOptions {
  db: string;
  json?: boolean;
}

/** What `add` and `rotate-token` say under the token: the store keeps only its digest. */
const SHOWN_ONCE = "This token is shown once and will not be shown again: hand it to the subscriber now.";

/**
 * The operator's subscribers, straight on the database like the other commands. A subscriber's token
 * is printed by `add` and `rotate-token` only; portal links come from the running store (`POST
 * /subscribers/{id}/portal-links`, whose URL is the store's as the operator reached it), and end here
 * as there: `rotate-token` and `revoke-portal-links` end them in the database every process reads.
 */
export function subscribersCommand(): Command {
  const subscribers = new Command("subscribers").description(
    "Manage subscribers: who may serve their own endpoints with a token or a portal link",
  );
  subscribers
    .command("add")
    .description("Add a subscriber; prints its token, once")
    .addOption(
      new Option("--name <name>", "the subscriber's name, as its portal shows it")
        .env("PLANT_STORE_NAME")
        .makeOptionMandatory(),
    )
    .addOption(dbOption())
    .addOption(encryptionKeyFileOption())
    .addOption(jsonOption())
    .action(async (opts: StoreOptions & { name: string }) => {
      const input = parseConfig(AddSubscriberInputSchema, { name: opts.name });
      await withStore(opts, async ({ outbox }) => {
        // The schema checks length and blankness; the queue also refuses control characters: both are
        // input to fix (exit 2), not a failure of the store.
        const { subscriber, token } = await outbox.addSubscriber(input).catch((error: unknown) => {
          if (error instanceof InvalidSubscriberError) throw new ConfigError([`--name: ${error.message}`]);
          throw error;
        });
        print(
          opts.json,
          { subscriber: presentSubscriber(subscriber), token },
          `Added subscriber #${subscriber.id} ${JSON.stringify(subscriber.name)}\nToken: ${token}\n${SHOWN_ONCE}`,
        );
      });
    });
  subscribers
    .command("list")
    .description("List subscribers (their tokens are never shown)")
    .addOption(dbOption())
    .addOption(encryptionKeyFileOption())
    .addOption(jsonOption())
    .action(async (opts: StoreOptions) => {
      await withStore(opts, async ({ outbox }) => {
        const list = (await outbox.listSubscribers()).map(presentSubscriber);
        // Names as JSON strings: a name is the subscriber's text, and a tab or escape in it must not
        // reshape the operator's terminal.
        print(
          opts.json,
          { subscribers: list },
          list.map((s) => `#${s.id}\t${JSON.stringify(s.name)}\t${s.createdAt}`).join("\n"),
        );
      });
    });
  subscribers
    .command("remove")
    .description("Remove a subscriber with its endpoints, their deliveries and the messages to it")
    .addArgument(new Argument("<id>", "subscriber id"))
    .addOption(dbOption())
    .addOption(encryptionKeyFileOption())
    .addOption(jsonOption())
    .action(async (id: string, opts: StoreOptions) => {
      const subscriberId = parseConfig(IdSchema, id);
      await withStore(opts, async ({ outbox }) => {
        if (!(await outbox.removeSubscriber(subscriberId))) throw new NotFoundError(`No subscriber ${id}`);
        print(opts.json, { removed: subscriberId }, `Removed subscriber #${subscriberId}`);
      });
    });
  subscribers
    .command("rotate-token")
    .description("Replace a subscriber's token (the old one stops at once); prints the new one, once")
    .addArgument(new Argument("<id>", "subscriber id"))
    .addOption(dbOption())
    .addOption(encryptionKeyFileOption())
    .addOption(jsonOption())
    .action(async (id: string, opts: StoreOptions) => {
      const subscriberId = parseConfig(IdSchema, id);
      await withStore(opts, async ({ outbox, portalCredentials }) => {
        const subscriber = await outbox.getSubscriber(subscriberId);
        // Its portal links and sessions end first, as on the admin API.
        if (subscriber) await createPortalAccess(portalCredentials).revoke(subscriberId);
        const token = subscriber && (await outbox.rotateSubscriberToken(subscriberId));
        if (!subscriber || token === undefined) throw new NotFoundError(`No subscriber ${id}`);
        print(
          opts.json,
          { subscriber: presentSubscriber(subscriber), token },
          `Subscriber #${subscriber.id} has a new token: ${token}\n${SHOWN_ONCE}`,
        );
      });
    });
  subscribers
    .command("revoke-portal-links")
    .description("End every portal link and portal session of a subscriber at once (its token stays)")
    .addArgument(new Argument("<id>", "subscriber id"))
    .addOption(dbOption())
    .addOption(encryptionKeyFileOption())
    .addOption(jsonOption())
    .action(async (id: string, opts: StoreOptions) => {
      const subscriberId = parseConfig(IdSchema, id);
      await withStore(opts, async ({ outbox, portalCredentials }) => {
        const subscriber = await outbox.getSubscriber(subscriberId);
        if (!subscriber) throw new NotFoundError(`No subscriber ${id}`);
        const revoked = await createPortalAccess(portalCredentials).revoke(subscriberId);
        print(
          opts.json,
          { subscriber: presentSubscriber(subscriber), revoked },
          `Subscriber #${subscriber.id}: ${revoked} portal links and sessions ended`,
        );
      });
    });
  return subscribers;
}
