import { z } from "zod";
import { UnknownEventTypeError } from "./unknown-event-type-error.js";
import { payloadJsonSchema, preparedComponents } from "./webhook-schema.js";

/** The part of an OpenAPI 3.1 document a webhook catalog reads. */
export interface WebhookDocument {
  webhooks?: Record<string, { post?: WebhookOperation } | undefined>;
  components?: { schemas?: Record<string, unknown> };
  /** The document's default security requirements (a webhook's own `security` overrides them). */
  security?: ReadonlyArray<Record<string, unknown>>;
}

/**
 * A document that carries its payload types (`plant-webhooks generate` writes one as `catalog`): given
 * to `createWebhookCatalog`, it makes a catalog typed per event type with nothing written by hand. The
 * key holds no value at run time; it only carries the type.
 */
export type TypedWebhookDocument<Events extends Record<string, unknown>> = WebhookDocument & {
  readonly "~events"?: Events;
};

interface WebhookOperation {
  operationId?: string;
  summary?: string;
  security?: ReadonlyArray<Record<string, unknown>>;
  requestBody?: { content?: Record<string, { schema?: unknown } | undefined> };
  "x-event-type"?: unknown;
}

/** One webhook of a document: what it is called, where a receiver takes it, what its payload must be. */
export interface WebhookDefinition<Payload = unknown> {
  /** Its event type: `x-event-type`, else its key when that is a dotted name (`order.created`), else its `operationId`, else its key. */
  eventType: string;
  /** Its path: the key in `webhooks` when it is one (`/plant/webhook`, the contract's convention), else `/<eventType>`. */
  path: string;
  /** The payload schema, made from the request body's JSON Schema (zod's own `z.fromJSONSchema`). */
  schema: z.ZodType<Payload>;
  summary?: string;
  /**
   * Whether a receiver of it expects `Authorization: Bearer <token>`: its security requirements (its own,
   * else the document's) name a bearer scheme. Absent means the same as `true` (a definition given by
   * hand, as New Plant's, is taken to need one).
   */
  requiresToken?: boolean;
}

/** Every webhook of a document, by event type and by path. `Events` maps event type to payload type. */
export interface WebhookCatalog<Events extends Record<string, unknown> = Record<string, unknown>> {
  readonly eventTypes: ReadonlyArray<keyof Events & string>;
  get<K extends keyof Events & string>(eventType: K): WebhookDefinition<Events[K]>;
  /** The webhook taken at this path, if any (matched exactly). */
  byPath(path: string): WebhookDefinition | undefined;
  /** The payload checked against its event type's schema (`UnknownEventTypeError` for a type not in it). */
  safeParse<K extends keyof Events & string>(eventType: K, payload: unknown): z.ZodSafeParseResult<Events[K]>;
  has(eventType: string): eventType is keyof Events & string;
}

/** A webhook's key that is itself an event name: dotted words (`order.created`, `invoice.paid`). */
const DOTTED_EVENT_NAME = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)+$/;

/** The event type of the webhook at `key` (the rule of the README's table). */
function eventTypeOf(key: string, operation: WebhookOperation): string {
  const declared = operation["x-event-type"];
  if (declared !== undefined) {
    if (typeof declared !== "string" || declared === "")
      throw new TypeError(
        `The webhook ${JSON.stringify(key)} has an x-event-type that is not a non-empty string`,
      );
    return declared;
  }
  if (DOTTED_EVENT_NAME.test(key)) return key;
  return operation.operationId ?? key;
}

type SecuritySchemes = Record<string, { type?: unknown; scheme?: unknown } | undefined>;

/** Whether security requirements ask for a bearer token: each names an `http` `bearer` scheme of the document. */
function requiresBearer(
  security: ReadonlyArray<Record<string, unknown>> | undefined,
  schemes: SecuritySchemes,
): boolean {
  // No requirement, or an empty one among them (`{}`: anonymous allowed), needs no token.
  if (!security || security.length === 0 || security.some((entry) => Object.keys(entry).length === 0))
    return false;
  const isBearer = (name: string) => {
    const scheme = schemes[name];
    return (
      scheme?.type === "http" && typeof scheme.scheme === "string" && scheme.scheme.toLowerCase() === "bearer"
    );
  };
  return security.every((entry) => Object.keys(entry).some(isBearer));
}

/** One webhook of a document as `describeWebhooks` reads it: names, auth, and its payload's JSON Schema. */
export interface WebhookDescription {
  /** Its key in the document's `webhooks`. */
  key: string;
  eventType: string;
  path: string;
  summary?: string;
  requiresToken: boolean;
  /** The payload's JSON Schema, checked and whole: the document's components under `$defs`. */
  jsonSchema: Record<string, unknown>;
  /** The components it may refer to, by name (`#/$defs/<name>`), checked: the same for every webhook. */
  components: Record<string, unknown>;
}

/**
 * Reads the webhooks of an OpenAPI 3.1 document: each one's event type (the README's naming rule), path,
 * whether it needs a bearer token, and its payload's JSON Schema, every keyword checked against
 * `SUPPORTED_SCHEMA_KEYWORDS` (`UnsupportedSchemaError` names the path of any other). What
 * `createWebhookCatalog` and `plant-webhooks generate` both make their output of.
 */
export function describeWebhooks(document: WebhookDocument): WebhookDescription[] {
  const schemas = document.components?.schemas ?? {};
  const schemes = ((document.components as { securitySchemes?: SecuritySchemes } | undefined)
    ?.securitySchemes ?? {}) as SecuritySchemes;
  const components = preparedComponents(schemas);
  return Object.entries(document.webhooks ?? {}).map(([key, item]) => {
    const operation = item?.post;
    const json = operation?.requestBody?.content?.["application/json"]?.schema;
    if (!operation || json === undefined)
      throw new TypeError(`The webhook ${JSON.stringify(key)} has no POST with an application/json body`);
    const eventType = eventTypeOf(key, operation);
    const at = ["webhooks", key, "post", "requestBody", "content", "application/json", "schema"];
    return {
      key,
      eventType,
      path: key.startsWith("/") ? key : `/${eventType}`,
      ...(operation.summary === undefined ? {} : { summary: operation.summary }),
      requiresToken: requiresBearer(operation.security ?? document.security, schemes),
      jsonSchema: payloadJsonSchema(json, at, schemas),
      components,
    };
  });
}

/**
 * The webhooks of an OpenAPI 3.1 document (its `webhooks` map), each with the zod schema of its JSON
 * payload, generated from the document by zod's `z.fromJSONSchema`: adding a webhook to a document is
 * enough for the sender's checks and the receiver's dispatch to follow. A document from `plant-webhooks
 * generate` carries its types, so the catalog is typed per event type; otherwise `Events` is the caller's
 * typing of it (event type → payload type). A schema that uses a keyword outside
 * `SUPPORTED_SCHEMA_KEYWORDS` is refused with `UnsupportedSchemaError`, naming where it is.
 */
export function createWebhookCatalog<Events extends Record<string, unknown> = Record<string, unknown>>(
  document: TypedWebhookDocument<Events>,
): WebhookCatalog<Events> {
  return defineWebhookCatalog<Events>(
    describeWebhooks(document).map(({ eventType, path, summary, requiresToken, jsonSchema }) => ({
      eventType,
      path,
      schema: z.fromJSONSchema(jsonSchema as Parameters<typeof z.fromJSONSchema>[0]),
      requiresToken,
      ...(summary === undefined ? {} : { summary }),
    })),
  );
}

/**
 * A catalog of webhooks given one by one (each event type and path once): what `createWebhookCatalog`
 * makes of a document, and how a package holds a contract's webhooks without carrying the document
 * (`PLANT_STORE_WEBHOOKS`).
 */
export function defineWebhookCatalog<Events extends Record<string, unknown> = Record<string, unknown>>(
  definitions: readonly WebhookDefinition[],
): WebhookCatalog<Events> {
  const byType = new Map<string, WebhookDefinition>();
  const byPath = new Map<string, WebhookDefinition>();
  for (const definition of definitions) {
    const { eventType, path } = definition;
    if (byType.has(eventType) || byPath.has(path))
      throw new TypeError(
        `Two webhooks of the document share the event type ${eventType} or the path ${path}`,
      );
    byType.set(eventType, definition);
    byPath.set(path, definition);
  }
  const get = (eventType: string): WebhookDefinition => {
    const definition = byType.get(eventType);
    if (!definition)
      throw new UnknownEventTypeError(
        `${JSON.stringify(eventType)} is not a webhook of the document (${[...byType.keys()].join(", ")})`,
      );
    return definition;
  };
  return {
    eventTypes: [...byType.keys()] as Array<keyof Events & string>,
    get: get as WebhookCatalog<Events>["get"],
    byPath: (path) => byPath.get(path),
    safeParse: ((eventType: string, payload: unknown) =>
      get(eventType).schema.safeParse(payload)) as WebhookCatalog<Events>["safeParse"],
    has: (eventType): eventType is keyof Events & string => byType.has(eventType),
  };
}
