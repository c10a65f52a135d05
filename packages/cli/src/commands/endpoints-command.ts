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
  signatureHeaders: "standard" | "svix";
  /** Its static headers' names; the API masks every value. */
  headers: Record<string, string>;
  filter: string | null;
  filteredCount: number;
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

/** Its filter and what it excluded: ` filter <cel> (2 excluded)`, or nothing for an endpoint never filtered. */
const filtered = (endpoint: Endpoint) =>
  endpoint.filter === null && endpoint.filteredCount === 0
    ? ""
    : `${endpoint.filter === null ? "" : ` filter ${endpoint.filter}`} (${endpoint.filteredCount} excluded)`;

/** One line: what a list shows of each endpoint. */
function summary(endpoint: Endpoint): string {
  const owner = endpoint.subscriberId === null ? "" : ` subscriber ${endpoint.subscriberId}`;
  const verified = endpoint.subscriberId !== null && !endpoint.verified ? " (not verified)" : "";
  return `#${endpoint.id} ${endpoint.status}${verified} ${endpoint.url} receives ${receives(endpoint)}${filtered(endpoint)}${owner}`;
}

/** Every field worth reading, one a line. */
function details(endpoint: Endpoint): string {
  return [
    `Endpoint #${endpoint.id}`,
    `  url:          ${endpoint.url}`,
    `  status:       ${endpoint.status}${endpoint.disabledReason ? ` (${endpoint.disabledReason})` : ""}`,
    `  receives:     ${receives(endpoint)}`,
    `  filter:       ${endpoint.filter ?? "none"} (${endpoint.filteredCount} excluded)`,
    `  secrets:      ${endpoint.secretCount}`,
    `  signature:    ${endpoint.signatureHeaders} (${endpoint.signatureHeaders === "svix" ? "svix-*" : "webhook-*"} headers)`,
    // The names only: the API never shows a value again.
    `  headers:      ${Object.keys(endpoint.headers).join(", ") || "none"}`,
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
  filter?: string;
  header?: Array<[string, string]>;
  signatureHeaders?: "standard" | "svix";
}

interface UpdateFlags extends Omit<AddFlags, "filter" | "header"> {
  allEventTypes?: boolean;
  /** false: `--no-filter`. */
  filter?: string | false;
  /** false: `--no-header`. */
  header?: Array<[string, string]> | false;
}

/**
 * `--header name:value`, repeatable: split at the first colon, spaces around the value dropped (as curl's
 * `-H` reads it). The API checks the name and the value; a value is never echoed in a problem.
 */
function collectHeader(
  value: string,
  previous: Array<[string, string]> | undefined,
): Array<[string, string]> {
  const colon = value.indexOf(":");
  const pair: [string, string] =
    colon === -1 ? [value.trim(), ""] : [value.slice(0, colon).trim(), value.slice(colon + 1).trim()];
  return [...(previous ?? []), pair];
}

/** A problem of the `--header` flags (a pair without a name or a value, a name given twice), or none. */
function headerProblem(pairs: Array<[string, string]> | false | undefined): string | undefined {
  if (!pairs) return undefined;
  const empty = pairs.find(([name, value]) => name === "" || value === "");
  if (empty)
    return `--header: must be name:value (${empty[0] || "a header"} has ${empty[0] ? "no value" : "no name"})`;
  const names = pairs.map(([name]) => name.toLowerCase());
  const twice = names.find((name, index) => names.indexOf(name) !== index);
  return twice === undefined ? undefined : `--header: ${twice} is given twice (names ignore case)`;
}

/** What the API is sent for the endpoint options of issue 41. */
function optionChanges(flags: AddFlags | UpdateFlags) {
  return {
    ...(flags.filter === undefined ? {} : { filter: flags.filter === false ? null : flags.filter }),
    ...(flags.header === undefined
      ? {}
      : { headers: flags.header === false ? {} : Object.fromEntries(flags.header) }),
    ...(flags.signatureHeaders === undefined ? {} : { signatureHeaders: flags.signatureHeaders }),
  };
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
    )
    .option(
      "--filter <cel>",
      "a CEL expression over { eventType, payload }: only messages it is true for are sent (say 'payload.tag == \"tropical\"')",
    )
    .option(
      "--header <name:value>",
      "a static header sent with every attempt and the handshake (say x-api-key:…); repeat for several",
      collectHeader,
    )
    .addOption(
      new Option("--signature-headers <style>", "the signature headers' names: webhook-* or svix-*").choices([
        "standard",
        "svix",
      ]),
    );

/** `plant-webhooks endpoints …`: the receivers webhooks go to, through the API. */
export function endpointsCommand(context: CommandContext): Command {
  const command = new Command("endpoints").description(
    "the receivers webhooks are delivered to: list, add, show, update, excluded, remove, verify",
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
        headerProblem(flags.header),
      ]);
      const { body } = await client.request("POST", "/endpoints", {
        body: {
          url: flags.url,
          token: flags.endpointToken,
          ...(flags.secret === undefined ? {} : { secrets: flags.secret }),
          ...(flags.eventType === undefined ? {} : { eventTypes: flags.eventType }),
          ...(flags.rateLimit === undefined ? {} : { rateLimit: Number(flags.rateLimit) }),
          ...optionChanges(flags),
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
          .description(
            "change an endpoint's URL, token, secrets (the whole list), event types, rate limit, filter, headers (the whole set) or signature header names",
          )
          .argument("<id>", "the endpoint's id")
          .option("--url <url>", "its new URL"),
      )
        .option("--all-event-types", "receive every event type again")
        .addOption(new Option("--rate-limit <n>", "at most this many deliveries a second"))
        .option("--no-rate-limit", "no rate limit")
        .option("--no-filter", "no filter: every message it subscribes to")
        .option("--no-header", "no static headers"),
    ).action(async (id: string, flags: UpdateFlags) => {
      const rateLimit = flags.rateLimit as string | false | undefined;
      const changes = {
        ...(flags.url === undefined ? {} : { url: flags.url }),
        ...(flags.endpointToken === undefined ? {} : { token: flags.endpointToken }),
        ...(flags.secret === undefined ? {} : { secrets: flags.secret }),
        ...(flags.eventType === undefined ? {} : { eventTypes: flags.eventType }),
        ...(flags.allEventTypes ? { eventTypes: null } : {}),
        ...(rateLimit === undefined ? {} : { rateLimit: rateLimit === false ? null : Number(rateLimit) }),
        ...optionChanges(flags),
      };
      const { client } = apiSettings(flags, [
        idProblem(id, "<id>"),
        rateLimitProblem(rateLimit),
        headerProblem(flags.header),
        flags.allEventTypes && flags.eventType !== undefined
          ? "--event-type, --all-event-types: give one or the other"
          : undefined,
        Object.keys(changes).length === 0
          ? "give --url, --endpoint-token, --secret, --event-type, --all-event-types, --rate-limit, --no-rate-limit, --filter, --no-filter, --header, --no-header or --signature-headers"
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
      new Command("excluded")
        .description("the messages an endpoint's filter excluded, oldest first (a page; --after goes on)")
        .argument("<id>", "the endpoint's id")
        .option("--after <cursor>", "the cursor the last page printed")
        .option("--limit <n>", "at most this many (1 to 1000; default 100)"),
    ).action(async (id: string, flags: ApiFlags & { after?: string; limit?: string }) => {
      const { client } = apiSettings(flags, [
        idProblem(id, "<id>"),
        flags.limit === undefined || /^[1-9]\d{0,3}$/.test(flags.limit) ? undefined : "--limit: 1 to 1000",
      ]);
      const { body } = await client.request("GET", `/endpoints/${id}/excluded`, {
        query: { after: flags.after, limit: flags.limit },
      });
      const page = body as {
        messages: Array<{ webhookId: string; eventType: string | null; createdAt: string }>;
        next: string | null;
      };
      printer(context, flags.json).answer(body, () =>
        [
          ...(page.messages.length === 0 ? ["No excluded messages."] : []),
          ...page.messages.map((m) => `${m.createdAt}  ${m.eventType ?? "(no event type)"}  ${m.webhookId}`),
          ...(page.next === null || page.messages.length === 0 ? [] : [`More: --after ${page.next}`]),
        ].join("\n"),
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
