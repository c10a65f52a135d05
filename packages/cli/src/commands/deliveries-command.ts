import { Command } from "commander";
import { type ApiFlags, apiSettings, idProblem, withApiOptions } from "./api-settings.js";
import { type CommandContext, printer } from "./command-context.js";

interface Delivery {
  id: number;
  endpointId: number;
  webhookId: string;
  eventType: string | null;
  orderingKey: string | null;
  status: string;
  attempts: number;
  nextAttemptAt: string;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: string;
}

interface Attempt {
  attempt: number;
  startedAt: string;
  durationMs: number;
  status: number | null;
  error: string | null;
  outcome: string;
  responseBody: string;
}

const last = (delivery: Delivery) =>
  delivery.lastStatus !== null
    ? `, last answer ${delivery.lastStatus}`
    : delivery.lastError !== null
      ? `, last error ${delivery.lastError}`
      : "";

/** One line: what a list shows of each delivery. */
function summary(delivery: Delivery): string {
  const attempts = `${delivery.attempts} ${delivery.attempts === 1 ? "attempt" : "attempts"}`;
  return `#${delivery.id} ${delivery.status} ${delivery.eventType ?? "(no event type)"} ${delivery.webhookId} to endpoint #${delivery.endpointId}: ${attempts}${last(delivery)}`;
}

function attemptLine(attempt: Attempt): string {
  const answer = attempt.status === null ? `no answer (${attempt.error})` : String(attempt.status);
  const body = attempt.responseBody.replace(/\s+/g, " ").slice(0, 120);
  return `  ${attempt.attempt}. ${attempt.startedAt} ${answer} in ${attempt.durationMs} ms, ${attempt.outcome}${body ? `: ${body}` : ""}`;
}

interface ListFlags extends ApiFlags {
  status?: string;
  eventType?: string;
  endpoint?: string;
  limit?: string;
}

/** `plant-webhooks deliveries …`: one message to one endpoint, its attempts, and a retry. */
export function deliveriesCommand(context: CommandContext): Command {
  const command = new Command("deliveries").description("one message to one endpoint: list, show, retry");
  command.addCommand(
    withApiOptions(
      new Command("list")
        .description("deliveries, newest first")
        .option("--status <status>", "pending, delivered or failed")
        .option("--event-type <type>", "only this event type")
        .option("--endpoint <id>", "only to this endpoint")
        .option("--limit <n>", "at most this many (the API's default when absent)"),
    ).action(async (flags: ListFlags) => {
      const { client } = apiSettings(flags, [
        idProblem(flags.endpoint, "--endpoint"),
        flags.limit === undefined || /^[0-9]+$/.test(flags.limit)
          ? undefined
          : "--limit: must be a whole number",
      ]);
      const { body } = await client.request("GET", "/deliveries", {
        query: {
          status: flags.status,
          eventType: flags.eventType,
          endpointId: flags.endpoint,
          limit: flags.limit,
        },
      });
      const { deliveries } = body as { deliveries: Delivery[] };
      printer(context, flags.json).answer(body, () =>
        deliveries.length === 0 ? "No deliveries." : deliveries.map(summary).join("\n"),
      );
    }),
  );
  command.addCommand(
    withApiOptions(
      new Command("show")
        .description("one delivery and every attempt made")
        .argument("<id>", "the delivery's id"),
    ).action(async (id: string, flags: ApiFlags) => {
      const { client } = apiSettings(flags, [idProblem(id, "<id>")]);
      const { body } = await client.request("GET", `/deliveries/${id}`);
      const { delivery, attempts } = body as { delivery: Delivery; attempts: Attempt[] };
      printer(context, flags.json).answer(body, () =>
        [
          summary(delivery),
          ...(delivery.orderingKey === null ? [] : [`  ordering key: ${delivery.orderingKey}`]),
          ...(delivery.status === "pending" ? [`  next attempt: ${delivery.nextAttemptAt}`] : []),
          attempts.length === 0 ? "  No attempts yet." : "Attempts:",
          ...attempts.map(attemptLine),
        ].join("\n"),
      );
    }),
  );
  command.addCommand(
    withApiOptions(
      new Command("retry")
        .description("make a delivery due now, with a fresh schedule")
        .argument("<id>", "the delivery's id"),
    ).action(async (id: string, flags: ApiFlags) => {
      const { client } = apiSettings(flags, [idProblem(id, "<id>")]);
      const { body } = await client.request("POST", `/deliveries/${id}/retry`);
      const { delivery } = body as { delivery: Delivery };
      printer(context, flags.json).answer(
        body,
        () => `Delivery #${delivery.id} is due again now (${delivery.status})`,
      );
    }),
  );
  return command;
}
