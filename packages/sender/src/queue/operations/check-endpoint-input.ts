import {
  BearerTokenSchema,
  EndpointHeadersSchema,
  OPERATIONAL_EVENT_TYPES,
  SignatureHeaderStyleSchema,
  type WebhookCatalog,
  WebhookSecretSchema,
} from "@plant-store/types";
import { InvalidEndpointError } from "../../errors.js";
import { compileEndpointFilter } from "../../filter/compile-endpoint-filter.js";
import { type EndpointChanges, MAX_ENDPOINT_SECRETS, MAX_RATE_LIMIT } from "../../outbox.js";
import { EVENT_TYPE_PATTERN } from "../event-type-pattern.js";

/** Most event types one endpoint lists. */
const MAX_EVENT_TYPES = 100;

/** An entry of a subscription: an event type, or a prefix of one ending in `*` (`*` alone: every one). */
const subscribesTo = (entry: string) =>
  entry === "*" || EVENT_TYPE_PATTERN.test(entry.endsWith("*") ? entry.slice(0, -1) : entry);

/**
 * Checks an endpoint's new values before anything is written, so that nothing is stored that could never
 * be sent (a token with a line break), verified (a secret that is not `whsec_`/`whsk_`) or matched (an
 * event type the outbox's webhooks do not have: a typo would silently receive nothing); the secrets and
 * event types come back without duplicates, in the order given.
 */
export function checkEndpointInput<C extends EndpointChanges>(changes: C, catalog?: WebhookCatalog): C {
  let checked = changes;
  if (changes.eventTypes !== undefined && changes.eventTypes !== null) {
    const eventTypes = [...new Set(changes.eventTypes)];
    if (eventTypes.length === 0 || eventTypes.length > MAX_EVENT_TYPES)
      throw new InvalidEndpointError(
        `An endpoint lists 1 to ${MAX_EVENT_TYPES} event types (none listed, null: every message)`,
      );
    const malformed = eventTypes.find((entry) => !subscribesTo(entry));
    if (malformed !== undefined)
      throw new InvalidEndpointError(
        "Each event type is letters, digits or _ . : / - (1 to 200), or a prefix of one ending in *",
      );
    const unmatched = catalog
      ? eventTypes.find(
          (entry) =>
            // The outbox's own operational webhooks can be subscribed to whatever the catalog holds.
            ![...catalog.eventTypes, ...OPERATIONAL_EVENT_TYPES].some((type) =>
              entry.endsWith("*") ? type.startsWith(entry.slice(0, -1)) : type === entry,
            ),
        )
      : undefined;
    if (unmatched !== undefined)
      throw new InvalidEndpointError(
        `${JSON.stringify(unmatched)} matches none of this outbox's webhooks (${[...(catalog?.eventTypes ?? []), ...OPERATIONAL_EVENT_TYPES].join(", ")})`,
      );
    checked = { ...changes, eventTypes };
  }
  const values = checkValues(checked);
  // Against the payloads of the types it lists, when this change says which (else `updateEndpoint`
  // checks it against the types it has).
  if (typeof values.filter === "string" && values.eventTypes !== undefined)
    checkFilterTypes(values.filter, values.eventTypes, catalog);
  return values;
}

/**
 * Checks a filter's comparisons of payload fields against the payload schemas of the event types
 * `eventTypes` lists (each entry, or prefix, matched in the catalog): nothing to check against without a
 * catalog, or for an endpoint that receives every message (null).
 */
export function checkFilterTypes(
  filter: string,
  eventTypes: readonly string[] | null,
  catalog: WebhookCatalog | undefined,
): void {
  if (!catalog || eventTypes === null) return;
  const received = catalog.eventTypes.filter((type) =>
    eventTypes.some((entry) => (entry.endsWith("*") ? type.startsWith(entry.slice(0, -1)) : type === entry)),
  );
  // An operational event type listed beside them has a payload of its own, which the catalog lacks.
  const operational = eventTypes.some((entry) =>
    OPERATIONAL_EVENT_TYPES.some((type) =>
      entry.endsWith("*") ? type.startsWith(entry.slice(0, -1)) : type === entry,
    ),
  );
  if (received.length === 0 || operational) return;
  compileEndpointFilter(filter, { payloadSchemas: received.map((type) => catalog.get(type).schema) });
}

/**
 * An endpoint without a token may receive only webhooks that need none: each webhook its subscription
 * matches (every webhook of the catalog for `null`; the outbox's operational webhooks when listed) must
 * have `requiresToken: false`. Without a catalog the outbox cannot tell, so a token is required.
 */
export function requireTokenWhereNeeded(
  eventTypes: readonly string[] | null,
  catalog?: WebhookCatalog,
): void {
  if (!catalog)
    throw new InvalidEndpointError(
      "token is required: only an outbox given a catalog can tell which webhooks need no bearer token",
    );
  const types = [...catalog.eventTypes, ...OPERATIONAL_EVENT_TYPES];
  const received =
    eventTypes === null
      ? [...catalog.eventTypes]
      : types.filter((type) =>
          eventTypes.some((entry) =>
            entry.endsWith("*") ? type.startsWith(entry.slice(0, -1)) : type === entry,
          ),
        );
  const needing = received.find((type) => !catalog.has(type) || catalog.get(type).requiresToken !== false);
  if (needing !== undefined)
    throw new InvalidEndpointError(
      `token is required: ${needing} needs a bearer token (its document's security asks for one)`,
    );
}

function checkValues<C extends EndpointChanges>(changes: C): C {
  const { rateLimit } = changes;
  if (
    rateLimit !== undefined &&
    rateLimit !== null &&
    (!Number.isSafeInteger(rateLimit) || rateLimit < 1 || rateLimit > MAX_RATE_LIMIT)
  )
    throw new InvalidEndpointError(
      `rateLimit must be a whole number of deliveries a second, 1 to ${MAX_RATE_LIMIT}`,
    );
  if (changes.url !== undefined && !URL.canParse(changes.url))
    throw new InvalidEndpointError("url must be an absolute URL");
  if (typeof changes.token === "string" && !BearerTokenSchema.safeParse(changes.token).success)
    throw new InvalidEndpointError("token must be visible ASCII characters without spaces (a bearer token)");
  if (
    changes.signatureHeaders !== undefined &&
    !SignatureHeaderStyleSchema.safeParse(changes.signatureHeaders).success
  )
    throw new InvalidEndpointError('signatureHeaders must be "standard" or "svix"');
  if (changes.headers !== undefined) {
    const headers = EndpointHeadersSchema.safeParse(changes.headers);
    if (!headers.success)
      // The issues name headers and rules, never a value: the values are secrets.
      throw new InvalidEndpointError(
        `headers: ${headers.error.issues.map((issue) => issue.message).join("; ")}`,
      );
  }
  // Compiled now so a filter that could never run is refused with where its problem is, not stored.
  if (changes.filter !== undefined && changes.filter !== null) compileEndpointFilter(changes.filter);
  if (changes.secrets === undefined) return changes;
  const secrets = [...new Set(changes.secrets)];
  if (secrets.length === 0 || secrets.length > MAX_ENDPOINT_SECRETS)
    throw new InvalidEndpointError(`An endpoint signs with 1 to ${MAX_ENDPOINT_SECRETS} secrets`);
  if (secrets.some((secret) => !WebhookSecretSchema.safeParse(secret).success))
    throw new InvalidEndpointError("Each secret must be a whsec_ signing secret or a whsk_ signing key");
  return { ...changes, secrets };
}
