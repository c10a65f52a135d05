import { Command, Option } from "commander";
import { type ApiFlags, apiSettings, collectList, idProblem, withApiOptions } from "./api-settings.js";
import { type CommandContext, printer } from "./command-context.js";

/** An endpoint as the API shows it (never its token or secrets). */
interface Endpoint {
  id: number;
  url: string;
  status: string;
  rateLimit: number | null;
  disabledReason: string | null;
  failingSince: string | null;
  secretCount: number;
  eventTypes: string[] | null;
  createdAt: string;
  subscriberId: number | null;
  verified: boolean;
}

interface Verification {
  verified: boolean;
  status?: number;
  reason?: string;
  message?: string;
}

const receives = (endpoint: Endpoint) =>
  endpoint.eventTypes === null ? "every event type" : endpoint.eventTypes.join(", ");

/** One line: what a list shows of each endpoint. */
function summary(endpoint: Endpoint): string {
  const owner = endpoint.subscriberId === null ? "" : ` subscriber ${endpoint.subscriberId}`;
  const verified = endpoint.subscriberId !== null && !endpoint.verified ? " (not verified)" : "";
  return `#${endpoint.id} ${endpoint.status}${verified} ${endpoint.url} receives ${receives(endpoint)}${owner}`;
}

/** Every field worth reading, one a line. */
function details(endpoint: Endpoint): string {
  return [
    `Endpoint #${endpoint.id}`,
    `  url:          ${endpoint.url}`,
    `  status:       ${endpoint.status}${endpoint.disabledReason ? ` (${endpoint.disabledReason})` : ""}`,
    `  receives:     ${receives(endpoint)}`,
    `  secrets:      ${endpoint.secretCount}`,
    `  rate limit:   ${endpoint.rateLimit === null ? "none" : `${endpoint.rateLimit}/s`}`,
    `  owner:        ${endpoint.subscriberId === null ? "operator" : `subscriber ${endpoint.subscriberId}`}`,
    ...(endpoint.subscriberId === null ? [] : [`  verified:     ${endpoint.verified ? "yes" : "no"}`]),
    ...(endpoint.failingSince ? [`  failing since: ${endpoint.failingSince}`] : []),
    `  created:      ${endpoint.createdAt}`,
  ].join("\n");
}

function handshake(verification: Verification): string {
  return verification.verified
    ? `Handshake: verified (the URL answered ${verification.status})`
    : `Handshake: not verified (${verification.reason}): ${verification.message}`;
}

interface AddFlags extends ApiFlags {
  url?: string;
  endpointToken?: string;
  secret?: string[];
  eventType?: string[];
  rateLimit?: string;
}

interface UpdateFlags extends AddFlags {
  allEventTypes?: boolean;
}

const rateLimitProblem = (value: string | false | undefined) =>
  value === undefined || value === false || /^[0-9]+$/.test(value)
    ? undefined
    : "--rate-limit: must be a whole number of deliveries a second";

const endpointFlags = (command: Command) =>
  command
    .option(
      "--endpoint-token <token>",
      "the bearer token the receiver accepts (sent as Authorization: Bearer)",
    )
    .option(
      "--secret <whsec>",
      "a signing secret the receiver verifies with; repeat for several (generated and shown once when absent)",
      collectList,
    )
    .option(
      "--event-type <type>",
      "an event type it receives (a trailing * matches a prefix); repeat for several",
      collectList,
    );

/** `plant-webhooks endpoints …`: the receivers webhooks go to, through the API. */
export function endpointsCommand(context: CommandContext): Command {
  const command = new Command("endpoints").description(
    "the receivers webhooks are delivered to: list, add, show, update, remove, verify",
  );
  command.addCommand(
    withApiOptions(new Command("list").description("every endpoint the token may see")).action(
      async (flags: ApiFlags) => {
        const { client } = apiSettings(flags);
        const { body } = await client.request("GET", "/endpoints");
        const { endpoints } = body as { endpoints: Endpoint[] };
        printer(context, flags.json).answer(body, () =>
          endpoints.length === 0 ? "No endpoints." : endpoints.map(summary).join("\n"),
        );
      },
    ),
  );
  command.addCommand(
    withApiOptions(
      endpointFlags(
        new Command("add")
          .description("add an endpoint (a subscriber's token adds one of its own, verified by a handshake)")
          .option("--url <url>", "the receiver's webhook URL"),
      ).option("--rate-limit <n>", "at most this many deliveries a second"),
    ).action(async (flags: AddFlags) => {
      const { client } = apiSettings(flags, [
        flags.url === undefined ? "--url: is required" : undefined,
        flags.endpointToken === undefined ? "--endpoint-token: is required" : undefined,
        rateLimitProblem(flags.rateLimit),
      ]);
      const { body } = await client.request("POST", "/endpoints", {
        body: {
          url: flags.url,
          token: flags.endpointToken,
          ...(flags.secret === undefined ? {} : { secrets: flags.secret }),
          ...(flags.eventType === undefined ? {} : { eventTypes: flags.eventType }),
          ...(flags.rateLimit === undefined ? {} : { rateLimit: Number(flags.rateLimit) }),
        },
      });
      const added = body as { endpoint: Endpoint; secret?: string; verification?: Verification };
      printer(context, flags.json).answer(body, () =>
        [
          `Added endpoint #${added.endpoint.id} ${added.endpoint.url} (receives ${receives(added.endpoint)})`,
          ...(added.secret === undefined
            ? []
            : [`Signing secret (shown once: give it to the receiver): ${added.secret}`]),
          ...(added.verification === undefined ? [] : [handshake(added.verification)]),
        ].join("\n"),
      );
    }),
  );
  command.addCommand(
    withApiOptions(
      new Command("show").description("one endpoint").argument("<id>", "the endpoint's id"),
    ).action(async (id: string, flags: ApiFlags) => {
      const { client } = apiSettings(flags, [idProblem(id, "<id>")]);
      const { body } = await client.request("GET", `/endpoints/${id}`);
      printer(context, flags.json).answer(body, () => details((body as { endpoint: Endpoint }).endpoint));
    }),
  );
  command.addCommand(
    withApiOptions(
      endpointFlags(
        new Command("update")
          .description("change an endpoint's URL, token, secrets (the whole list), event types or rate limit")
          .argument("<id>", "the endpoint's id")
          .option("--url <url>", "its new URL"),
      )
        .option("--all-event-types", "receive every event type again")
        .addOption(new Option("--rate-limit <n>", "at most this many deliveries a second"))
        .option("--no-rate-limit", "no rate limit"),
    ).action(async (id: string, flags: UpdateFlags) => {
      const rateLimit = flags.rateLimit as string | false | undefined;
      const changes = {
        ...(flags.url === undefined ? {} : { url: flags.url }),
        ...(flags.endpointToken === undefined ? {} : { token: flags.endpointToken }),
        ...(flags.secret === undefined ? {} : { secrets: flags.secret }),
        ...(flags.eventType === undefined ? {} : { eventTypes: flags.eventType }),
        ...(flags.allEventTypes ? { eventTypes: null } : {}),
        ...(rateLimit === undefined ? {} : { rateLimit: rateLimit === false ? null : Number(rateLimit) }),
      };
      const { client } = apiSettings(flags, [
        idProblem(id, "<id>"),
        rateLimitProblem(rateLimit),
        flags.allEventTypes && flags.eventType !== undefined
          ? "--event-type, --all-event-types: give one or the other"
          : undefined,
        Object.keys(changes).length === 0
          ? "give --url, --endpoint-token, --secret, --event-type, --all-event-types, --rate-limit or --no-rate-limit"
          : undefined,
      ]);
      const { body } = await client.request("PATCH", `/endpoints/${id}`, { body: changes });
      printer(context, flags.json).answer(
        body,
        () => `Updated ${details((body as { endpoint: Endpoint }).endpoint)}`,
      );
    }),
  );
  command.addCommand(
    withApiOptions(
      new Command("remove")
        .description("remove an endpoint with its deliveries and attempts")
        .argument("<id>", "the endpoint's id"),
    ).action(async (id: string, flags: ApiFlags) => {
      const { client } = apiSettings(flags, [idProblem(id, "<id>")]);
      await client.request("DELETE", `/endpoints/${id}`);
      printer(context, flags.json).answer({ id: Number(id), removed: true }, () => `Removed endpoint #${id}`);
    }),
  );
  command.addCommand(
    withApiOptions(
      new Command("verify")
        .description("send the verification handshake to an endpoint now (exit 1 when it does not pass)")
        .argument("<id>", "the endpoint's id"),
    ).action(async (id: string, flags: ApiFlags) => {
      const { client } = apiSettings(flags, [idProblem(id, "<id>")]);
      const { body } = await client.request("POST", `/endpoints/${id}/verify`);
      const { endpoint, verification } = body as { endpoint: Endpoint; verification: Verification };
      printer(context, flags.json).answer(body, () => `Endpoint #${endpoint.id}: ${handshake(verification)}`);
      if (!verification.verified) context.setExitCode(1);
    }),
  );
  return command;
}
