import { IdSchema, MAX_ENDPOINTS, presentEndpoint, RateLimitSchema } from "@plant-store/api";
import { ConfigError, parseSettings } from "@plant-store/app-shell";
import {
  type Endpoint,
  type EndpointChanges,
  MAX_ENDPOINT_SECRETS,
  SubscriberNotFoundError,
  TooManySecretsError,
} from "@plant-store/sender";
import {
  EndpointFilterSchema,
  EndpointHeadersSchema,
  generateWebhookSecret,
  SIGNATURE_HEADER_STYLES,
  SignatureHeaderStyleSchema,
  WebhookSecretSchema,
} from "@plant-store/types";
import { Argument, Command, Option } from "commander";
import { z } from "zod";
import { BooleanSetting } from "../boolean-setting.js";
import { parseConfig } from "../parse-config.js";
import {
  ENCRYPTION_KEY_ENV,
  ENCRYPTION_KEY_FILE_ENV,
  resolveSecretsCipher,
} from "../resolve-secrets-cipher.js";
import { AddEndpointInputSchema, EventTypesSchema } from "../store-inputs.js";
import { dbOption, encryptionKeyFileOption, jsonOption } from "./db-option.js";
import { flagOption } from "./flag-option.js";
import { readFlag } from "./read-flag.js";
import { NotFoundError, print, withStore } from "./with-store.js";

const RotateFlags = z.strictObject({ secret: WebhookSecretSchema.optional() });
const SetSecretsFlags = z.strictObject({
  secret: z.array(WebhookSecretSchema).min(1).max(MAX_ENDPOINT_SECRETS),
});
const SetTokenFlags = z.strictObject({ token: AddEndpointInputSchema.shape.token });
const SetUrlFlags = z.strictObject({ url: AddEndpointInputSchema.shape.url });
/** Not PLANT_STORE_URL, which `listen --store` reads: the store's own URL, not an endpoint's. */
const URL_SOURCE = { flag: "--url", env: "PLANT_STORE_ENDPOINT_URL" } as const;
/** Keyed like the flags, so a problem names --event-type (PLANT_STORE_EVENT_TYPE) and which value. */
const EventTypeFlag = EventTypesSchema.unwrap().optional();
/** `--rate-limit <n>`: a whole number of deliveries a second, read from text. */
const RateLimitFlag = z.coerce.number().pipe(RateLimitSchema.unwrap());
/**
 * `--header name:value`, repeatable: split at the first colon, spaces around the value dropped (as curl's
 * `-H` reads it), then the sender's rules for static headers, whose problems name the header and never
 * its value (a value is a secret, an API key say).
 */
const HeaderFlags = z
  .array(z.string())
  .transform((pairs, context) => {
    const headers: Record<string, string> = {};
    for (const pair of pairs) {
      const colon = pair.indexOf(":");
      const name = colon === -1 ? pair.trim() : pair.slice(0, colon).trim();
      if (colon === -1 || name in headers)
        context.addIssue({
          code: "custom",
          message:
            colon === -1
              ? `must be name:value (${name || "a header"} has no colon)`
              : `${name} is given twice`,
        });
      else headers[name] = pair.slice(colon + 1).trim();
    }
    return headers;
  })
  .pipe(EndpointHeadersSchema);
const AddFlags = AddEndpointInputSchema.pick({ url: true, token: true, secret: true }).extend({
  eventType: EventTypeFlag,
  rateLimit: RateLimitFlag.optional(),
  filter: EndpointFilterSchema.optional(),
  header: HeaderFlags.optional(),
  signatureHeaders: SignatureHeaderStyleSchema.optional(),
});
/** commander gives `--no-filter` as `filter: false`: every message the endpoint subscribes to. */
const SetFilterFlags = z.strictObject({
  filter: z.union([z.literal(false), EndpointFilterSchema], {
    error: "give --filter <cel> (a CEL expression over { eventType, payload }) or --no-filter",
  }),
});
/** `--no-header` (`header: false`): no static headers, an empty set; a bad `--header` names its problem. */
const SetHeadersFlags = z.strictObject({
  header: z
    .union([z.literal(false), z.array(z.string())], {
      error: "give --header <name:value> (repeat for several) or --no-header",
    })
    .transform((header) => (header === false ? [] : header))
    .pipe(HeaderFlags),
});
const SetSignatureHeadersFlags = z.strictObject({ signatureHeaders: SignatureHeaderStyleSchema });
/** commander gives `--no-rate-limit` as `rateLimit: false`: no limit. */
const SetRateLimitFlags = z.strictObject({
  rateLimit: z.union([z.literal(false), RateLimitFlag], {
    error: "give --rate-limit <n> (a whole number of deliveries a second, 1 to 10000) or --no-rate-limit",
  }),
});
const SetEventTypesFlags = z
  .strictObject({ eventType: EventTypeFlag, allEventTypes: BooleanSetting })
  .refine((flags) => (flags.eventType === undefined) === flags.allEventTypes, {
    message: "give --event-type (repeatable) or --all-event-types, not both",
  });

/**
 * Repeated `--secret` (or `--event-type`) flags collect into a list; `PLANT_STORE_SECRET` may hold
 * several, comma-separated (a whsec_ secret is base64, and an event type is letters, digits and
 * `_ . : / -`: neither has commas).
 */
function collectList(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), ...value.split(",").map((secret) => secret.trim())];
}

/** `--rate-limit <n>`, deliveries a second at most. */
const rateLimitOption = () =>
  new Option(
    "--rate-limit <n>",
    "at most this many deliveries a second, by every worker together (a second's worth at once at most)",
  ).env("PLANT_STORE_RATE_LIMIT");

/** `--filter <cel>`: only the messages it is true for are queued for the endpoint. */
const filterOption = () =>
  new Option(
    "--filter <cel>",
    "a CEL expression over { eventType, payload }: only messages it is true for are sent (say 'payload.tag == \"tropical\"')",
  ).env("PLANT_STORE_FILTER");

/** `--header name:value`, repeatable; `PLANT_STORE_HEADER` holds one (a value may hold commas). */
const headerOption = () =>
  new Option(
    "--header <name:value>",
    "a static header sent with every attempt and the handshake (say x-api-key:...); repeat for several",
  )
    .env("PLANT_STORE_HEADER")
    .argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]);

const signatureHeadersOption = () =>
  new Option(
    "--signature-headers <style>",
    "the signature headers' names: standard (webhook-*) or svix (svix-*)",
  )
    .choices(SIGNATURE_HEADER_STYLES)
    .env("PLANT_STORE_SIGNATURE_HEADERS");

/** `--event-type`, repeatable; `PLANT_STORE_EVENT_TYPE` may hold several, comma-separated. */
const eventTypeOption = (description: string) =>
  new Option("--event-type <type>", description).env("PLANT_STORE_EVENT_TYPE").argParser(collectList);

/** How `endpoints list` and the answers of add and set-event-types say what an endpoint receives. */
const subscriptions = (eventTypes: readonly string[] | null) =>
  eventTypes === null ? "every event type" : eventTypes.join(", ");

/** Its filter and what it excluded (` filter <cel> (2 excluded)`), or nothing for an endpoint never filtered. */
const filtered = (endpoint: { filter: string | null; filteredCount: number }) =>
  endpoint.filter === null && endpoint.filteredCount === 0
    ? ""
    : `${endpoint.filter === null ? "" : ` filter ${endpoint.filter}`} (${endpoint.filteredCount} excluded)`;

interface StoreOptions {
  db: string;
  json?: boolean;
}
interface AddOptions extends StoreOptions {
  token: string;
  subscriber?: string;
  secret?: string;
  eventType?: string[];
  rateLimit?: string;
  filter?: string;
  header?: string[];
  signatureHeaders?: string;
}

/**
 * `endpoints set-… <id>`: its flags validated once by `changes` (a problem names the flag and its
 * variable, exit 2) before the store is opened, then one `updateEndpoint`, and the endpoint printed
 * (`says` is the text line).
 */
function setCommand<Flags>(
  name: string,
  description: string,
  options: Option[],
  changes: (flags: Flags) => EndpointChanges,
  says: (endpoint: Endpoint) => string,
): Command {
  const command = new Command(name).description(description).addArgument(new Argument("<id>", "endpoint id"));
  for (const option of [...options, dbOption(), encryptionKeyFileOption(), jsonOption()])
    command.addOption(option);
  return command.action(async (id: string, opts: Flags & StoreOptions) => {
    const endpointId = parseConfig(IdSchema, id);
    const change = changes(opts);
    await withStore(opts, async ({ outbox }) => {
      const endpoint = await outbox.updateEndpoint(endpointId, change);
      if (!endpoint) throw new NotFoundError(`No endpoint ${id}`);
      print(opts.json, { endpoint: presentEndpoint(endpoint) }, says(endpoint));
    });
  });
}

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
    .addOption(
      eventTypeOption(
        "an event type it receives (a trailing * matches a prefix); repeat for several; none: every event type",
      ),
    )
    .addOption(
      new Option(
        "--subscriber <id>",
        "the subscriber it belongs to (sent nothing until it passes the handshake: POST /endpoints/{id}/verify); none: the operator's",
      ).env("PLANT_STORE_SUBSCRIBER"),
    )
    .addOption(rateLimitOption())
    .addOption(filterOption())
    .addOption(headerOption())
    .addOption(signatureHeadersOption())
    .addOption(dbOption())
    .addOption(encryptionKeyFileOption())
    .addOption(jsonOption())
    .action(async (url: string, opts: AddOptions) => {
      const input = parseConfig(AddFlags, {
        url,
        token: opts.token,
        ...(opts.secret ? { secret: opts.secret } : {}),
        ...(opts.eventType ? { eventType: opts.eventType } : {}),
        ...(opts.rateLimit === undefined ? {} : { rateLimit: opts.rateLimit }),
        ...(opts.filter === undefined ? {} : { filter: opts.filter }),
        ...(opts.header === undefined ? {} : { header: opts.header }),
        ...(opts.signatureHeaders === undefined ? {} : { signatureHeaders: opts.signatureHeaders }),
      });
      // Keyed like the flag, so a problem names --subscriber (PLANT_STORE_SUBSCRIBER).
      const { subscriber } = parseConfig(z.object({ subscriber: IdSchema.optional() }), {
        subscriber: opts.subscriber,
      });
      const generated = input.secret === undefined ? generateWebhookSecret() : undefined;
      await withStore(opts, async ({ outbox }) => {
        // The page's bound, per owner: the operator's own count apart from each subscriber's (a bound on
        // growth, not exact). The operator may give a subscriber more here than `serve` lets it add itself.
        const owned = await outbox.countEndpoints(subscriber ?? null);
        if (owned.endpoints >= MAX_ENDPOINTS)
          throw new ConfigError([
            `${subscriber === undefined ? "The operator" : `Subscriber ${subscriber}`} already has ${owned.endpoints} endpoints, the most it may have: remove one first`,
          ]);
        const endpoint = await outbox
          .addEndpoint({
            url: input.url,
            token: input.token,
            secrets: [input.secret ?? (generated as string)],
            eventTypes: input.eventType ?? null,
            rateLimit: input.rateLimit ?? null,
            subscriberId: subscriber ?? null,
            ...(input.filter === undefined ? {} : { filter: input.filter }),
            ...(input.header === undefined ? {} : { headers: input.header }),
            ...(input.signatureHeaders === undefined ? {} : { signatureHeaders: input.signatureHeaders }),
          })
          .catch((error: unknown) => {
            if (error instanceof SubscriberNotFoundError)
              throw new NotFoundError(`No subscriber ${subscriber}`);
            throw error;
          });
        print(
          opts.json,
          { endpoint: presentEndpoint(endpoint), ...(generated ? { secret: generated } : {}) },
          `Added endpoint #${endpoint.id} ${endpoint.url} (receives ${subscriptions(endpoint.eventTypes)}${filtered(endpoint)})` +
            (generated ? `\nSigning secret (shown once, give it to the receiver): ${generated}` : ""),
        );
      });
    });
  endpoints
    .command("list")
    .description("List endpoints (tokens and secrets are never shown)")
    .addOption(dbOption())
    .addOption(encryptionKeyFileOption())
    .addOption(jsonOption())
    .action(async (opts: { db: string; json?: boolean }) => {
      await withStore(opts, async ({ outbox }) => {
        const list = (await outbox.listEndpoints()).map(presentEndpoint);
        print(
          opts.json,
          { endpoints: list },
          list
            .map(
              (e) =>
                `#${e.id}\t${e.status}\t${e.url}\t${subscriptions(e.eventTypes)}${filtered(e)}${e.disabledReason ? `\t(${e.disabledReason})` : ""}`,
            )
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
      .addOption(encryptionKeyFileOption())
      .addOption(jsonOption())
      .action(async (id: string, opts: { db: string; json?: boolean }) => {
        await withStore(opts, async ({ outbox }) => {
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
  // Rotation, as Standard Webhooks describes it: add a new secret (both sign every attempt, so the
  // receiver may switch whenever it likes), then drop the old one with set-secrets.
  endpoints
    .command("rotate-secret")
    .description(
      "Add a signing secret, keeping the current ones (prints a generated secret when none is given)",
    )
    .addArgument(new Argument("<id>", "endpoint id"))
    .addOption(new Option("--secret <whsec>", "the new secret (whsec_...)").env("PLANT_STORE_SECRET"))
    .addOption(dbOption())
    .addOption(encryptionKeyFileOption())
    .addOption(jsonOption())
    .action(async (id: string, opts: { secret?: string; db: string; json?: boolean }) => {
      const endpointId = parseConfig(IdSchema, id);
      const input = parseConfig(RotateFlags, {
        ...(opts.secret === undefined ? {} : { secret: opts.secret }),
      });
      await withStore(opts, async ({ outbox }) => {
        // Read, checked against the limit and written in one transaction by the queue.
        const rotated = await outbox
          .rotateEndpointSecret(endpointId, input.secret)
          .catch((error: unknown) => {
            if (!(error instanceof TooManySecretsError)) throw error;
            throw new Error(
              `Endpoint #${id} already has ${MAX_ENDPOINT_SECRETS} secrets: drop old ones with \`endpoints set-secrets\` first`,
            );
          });
        if (!rotated) throw new NotFoundError(`No endpoint ${id}`);
        const { endpoint } = rotated;
        const generated = input.secret === undefined ? rotated.secret : undefined;
        print(
          opts.json,
          { endpoint: presentEndpoint(endpoint), ...(generated ? { secret: generated } : {}) },
          `Endpoint #${endpoint.id} now signs with ${endpoint.secrets.length} secrets` +
            (generated ? `\nNew signing secret (shown once, give it to the receiver): ${generated}` : ""),
        );
      });
    });
  endpoints.addCommand(
    setCommand(
      "set-secrets",
      "Replace an endpoint's signing secrets (e.g. drop the old one after a rotation)",
      [
        new Option("--secret <whsec>", "a secret to sign with; repeat for several")
          .env("PLANT_STORE_SECRET")
          .argParser(collectList)
          .makeOptionMandatory(),
      ],
      (opts: { secret: string[] }) => ({
        secrets: parseConfig(SetSecretsFlags, { secret: opts.secret }).secret,
      }),
      (endpoint) =>
        `Endpoint #${endpoint.id} now signs with ${endpoint.secrets.length} secret${endpoint.secrets.length === 1 ? "" : "s"}`,
    ),
  );
  endpoints.addCommand(
    setCommand(
      "set-rate-limit",
      "Limit the deliveries a second started to an endpoint, by every worker together, or lift it",
      [rateLimitOption(), new Option("--no-rate-limit", "lift the endpoint's limit")],
      (opts: { rateLimit?: string | false }) => {
        const { rateLimit } = parseConfig(SetRateLimitFlags, { rateLimit: opts.rateLimit });
        return { rateLimit: rateLimit === false ? null : rateLimit };
      },
      (endpoint) =>
        endpoint.rateLimit === null
          ? `Endpoint #${endpoint.id} has no rate limit`
          : `Endpoint #${endpoint.id} is sent at most ${endpoint.rateLimit} deliveries a second`,
    ),
  );
  endpoints.addCommand(
    setCommand(
      "set-token",
      "Replace the bearer token sent to an endpoint",
      [
        new Option("--token <token>", "bearer token sent with every delivery")
          .env("PLANT_STORE_TOKEN")
          .makeOptionMandatory(),
      ],
      (opts: { token: string }) => ({ token: parseConfig(SetTokenFlags, { token: opts.token }).token }),
      (endpoint) => `Endpoint #${endpoint.id} has a new token`,
    ),
  );
  // Moving keeps the endpoint's deliveries and history, which removing and adding it again would lose.
  endpoints.addCommand(
    setCommand(
      "set-url",
      "Move an endpoint to another URL, keeping its deliveries (a subscriber's must pass the handshake again: POST /endpoints/{id}/verify)",
      [new Option("--url <url>", "the receiver's new webhook URL").env(URL_SOURCE.env).makeOptionMandatory()],
      (opts: { url: string }) => ({
        url: parseSettings(SetUrlFlags, { url: opts.url }, () => URL_SOURCE).url,
      }),
      (endpoint) =>
        `Endpoint #${endpoint.id} now delivers to ${endpoint.url}` +
        (endpoint.verified
          ? ""
          : " (sent nothing until it passes the handshake: POST /endpoints/{id}/verify)"),
    ),
  );
  // Subscriptions change for messages queued from now on; deliveries already queued stay.
  endpoints.addCommand(
    setCommand(
      "set-event-types",
      "Replace the event types an endpoint receives, or let it receive every one again",
      [
        eventTypeOption("an event type it receives (a trailing * matches a prefix); repeat for several"),
        flagOption(
          "--all-event-types",
          "receive every event type (what an endpoint without a list does)",
          "PLANT_STORE_ALL_EVENT_TYPES",
        ),
      ],
      (opts: { eventType?: string[]; allEventTypes?: boolean }) => {
        const { eventType } = parseConfig(SetEventTypesFlags, {
          ...(opts.eventType ? { eventType: opts.eventType } : {}),
          allEventTypes: readFlag(opts.allEventTypes, "PLANT_STORE_ALL_EVENT_TYPES"),
        });
        return { eventTypes: eventType ?? null };
      },
      (endpoint) => `Endpoint #${endpoint.id} receives ${subscriptions(endpoint.eventTypes)}`,
    ),
  );
  // Like a change of event types, a filter decides for messages queued from now on.
  endpoints.addCommand(
    setCommand(
      "set-filter",
      "Send an endpoint only the messages a CEL filter is true for, or every one again",
      [filterOption(), new Option("--no-filter", "no filter: every message it subscribes to")],
      (opts: { filter?: string | false }) => {
        const { filter } = parseConfig(SetFilterFlags, { filter: opts.filter });
        return { filter: filter === false ? null : filter };
      },
      (endpoint) =>
        endpoint.filter === null
          ? `Endpoint #${endpoint.id} has no filter`
          : `Endpoint #${endpoint.id} is sent only what ${endpoint.filter} is true for`,
    ),
  );
  endpoints.addCommand(
    setCommand(
      "set-headers",
      "Replace the static headers sent to an endpoint (the whole set), or remove them",
      [headerOption(), new Option("--no-header", "no static headers")],
      (opts: { header?: string[] | false }) => ({
        headers: parseConfig(SetHeadersFlags, { header: opts.header }).header,
      }),
      // The names only: a value is never shown again.
      (endpoint) =>
        Object.keys(endpoint.headers).length === 0
          ? `Endpoint #${endpoint.id} is sent no static headers`
          : `Endpoint #${endpoint.id} is sent ${Object.keys(endpoint.headers).join(", ")} with every attempt`,
    ),
  );
  endpoints.addCommand(
    setCommand(
      "set-signature-headers",
      "Name an endpoint's signature headers webhook-* (standard) or svix-* (for a receiver using svix)",
      [signatureHeadersOption().makeOptionMandatory()],
      (opts: { signatureHeaders: string }) =>
        parseConfig(SetSignatureHeadersFlags, { signatureHeaders: opts.signatureHeaders }),
      (endpoint) =>
        `Endpoint #${endpoint.id} is signed under ${endpoint.signatureHeaders === "svix" ? "svix-*" : "webhook-*"} headers`,
    ),
  );
  // A key list rather than an --old-key/--new-key pair: the same setting every process already reads, so
  // a running `serve` given "new,old" keeps reading old values while this converts them, and nothing
  // ever needs two settings to be in step.
  endpoints
    .command("re-encrypt")
    .description(
      "Rewrite every endpoint's token and signing secrets under the first encryption key (values under the other keys, or stored in plain text, are read and converted)",
    )
    .addOption(dbOption())
    .addOption(encryptionKeyFileOption())
    .addOption(jsonOption())
    .action(async (opts: { db: string; encryptionKeyFile?: string; json?: boolean }) => {
      if (!resolveSecretsCipher(opts.encryptionKeyFile))
        throw new ConfigError([
          `--encryption-key-file (${ENCRYPTION_KEY_FILE_ENV}) or ${ENCRYPTION_KEY_ENV}: re-encrypt needs the keys, the new one first`,
        ]);
      await withStore(opts, async (store) => {
        const reencrypted = await store.reencryptEndpoints();
        const total = (await store.outbox.listEndpoints()).length;
        print(
          opts.json,
          { reencrypted, endpoints: total },
          `Re-encrypted ${reencrypted} of ${total} endpoint${total === 1 ? "" : "s"} under the first key; once every store process has the new key first, the old key can go`,
        );
      });
    });
  endpoints
    .command("remove")
    .description("Remove an endpoint with its deliveries")
    .addArgument(new Argument("<id>", "endpoint id"))
    .addOption(dbOption())
    .addOption(encryptionKeyFileOption())
    .addOption(jsonOption())
    .action(async (id: string, opts: { db: string; json?: boolean }) => {
      await withStore(opts, async ({ outbox }) => {
        if (!(await outbox.removeEndpoint(parseConfig(IdSchema, id))))
          throw new NotFoundError(`No endpoint ${id}`);
        print(opts.json, { removed: Number(id) }, `Removed endpoint #${id}`);
      });
    });
  return endpoints;
}
