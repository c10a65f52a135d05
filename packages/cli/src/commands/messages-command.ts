import { readFile } from "node:fs/promises";
import { Command } from "commander";
import { SettingsError } from "../errors.js";
import { type ApiFlags, apiSettings, withApiOptions } from "./api-settings.js";
import { type CommandContext, printer } from "./command-context.js";

interface SendFlags extends ApiFlags {
  eventType?: string;
  payload?: string;
  payloadFile?: string;
  idempotencyKey?: string;
  orderingKey?: string;
}

interface Sent {
  message: { webhookId: string; eventType: string; orderingKey: string | null };
  queued: number;
}

/** The payload, from the flag or the file: a JSON object, or a clear refusal naming where it came from. */
async function readPayload(flags: SendFlags): Promise<unknown> {
  const where = flags.payload === undefined ? (flags.payloadFile as string) : "--payload";
  let text: string;
  if (flags.payload !== undefined) text = flags.payload;
  else
    try {
      text = await readFile(flags.payloadFile as string, "utf8");
    } catch (error) {
      throw new SettingsError(`--payload-file: cannot read ${where}: ${(error as Error).message}`);
    }
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch (error) {
    throw new SettingsError(`${where} is not valid JSON: ${(error as Error).message}`);
  }
  if (payload === null || typeof payload !== "object" || Array.isArray(payload))
    throw new SettingsError(`${where} must hold a JSON object (the payload every endpoint receives)`);
  return payload;
}

/** `plant-webhooks messages send`: queue a message through the API (`POST /messages`, an operator's token). */
export function messagesCommand(context: CommandContext): Command {
  const command = new Command("messages").description(
    "messages: send one to every endpoint subscribed to its type",
  );
  command.addCommand(
    withApiOptions(
      new Command("send")
        .description(
          "queue a message: one delivery per endpoint subscribed to its event type (an operator's token)",
        )
        .option("--event-type <type>", "its event type")
        .option("--payload <json>", "its payload, a JSON object")
        .option("--payload-file <path>", "a file holding its payload, a JSON object")
        .option("--idempotency-key <key>", "sending again with this key queues nothing new (safe to retry)")
        .option(
          "--ordering-key <key>",
          "messages with one key reach each endpoint in the order they were sent",
        ),
    ).action(async (flags: SendFlags) => {
      const { client } = apiSettings(flags, [
        flags.eventType === undefined ? "--event-type: is required" : undefined,
        (flags.payload === undefined) === (flags.payloadFile === undefined)
          ? "--payload, --payload-file: give one of them"
          : undefined,
      ]);
      const payload = await readPayload(flags);
      const answer = await client.request("POST", "/messages", {
        body: {
          eventType: flags.eventType,
          payload,
          ...(flags.idempotencyKey === undefined ? {} : { idempotencyKey: flags.idempotencyKey }),
          ...(flags.orderingKey === undefined ? {} : { orderingKey: flags.orderingKey }),
        },
      });
      const { message, queued } = answer.body as Sent;
      const replayed = answer.headers.get("idempotency-replayed") === "true";
      const ordering = message.orderingKey === null ? "" : `, ordering key ${message.orderingKey}`;
      const deliveries = `${queued} ${queued === 1 ? "delivery" : "deliveries"}`;
      printer(context, flags.json).answer(answer.body, () =>
        replayed
          ? `Already sent with this idempotency key: ${message.webhookId} (${message.eventType}${ordering}), ${deliveries}; nothing new queued`
          : `Queued ${message.webhookId} (${message.eventType}${ordering}): ${deliveries}`,
      );
    }),
  );
  return command;
}
