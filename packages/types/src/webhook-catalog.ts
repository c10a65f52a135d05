import { z } from "zod";
import { UnknownEventTypeError } from "./unknown-event-type-error.js";

/** The part of an OpenAPI 3.1 document a webhook catalog reads. */
export interface WebhookDocument {
  webhooks?: Record<string, { post?: WebhookOperation } | undefined>;
  components?: { schemas?: Record<string, unknown> };
}

interface WebhookOperation {
  operationId?: string;
  summary?: string;
  requestBody?: { content?: Record<string, { schema?: unknown } | undefined> };
}

/** One webhook of a document: what it is called, where a receiver takes it, what its payload must be. */
export interface WebhookDefinition<Payload = unknown> {
  /** Its event type: the operation's `operationId`, else its key in `webhooks`. */
  eventType: string;
  /** Its path: the key in `webhooks` when it is one (`/plant/webhook`, the contract's convention), else `/<eventType>`. */
  path: string;
  /** The payload schema, made from the request body's JSON Schema (zod's own `z.fromJSONSchema`). */
  schema: z.ZodType<Payload>;
  summary?: string;
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

/** `$ref`s to `#/components/schemas/...` replaced by what they name (the document's schemas have no cycles). */
function inline(node: unknown, schemas: Record<string, unknown>, seen: readonly string[]): unknown {
  if (Array.isArray(node)) return node.map((item) => inline(item, schemas, seen));
  if (node === null || typeof node !== "object") return node;
  const { $ref } = node as { $ref?: unknown };
  if (typeof $ref === "string") {
    const name = /^#\/components\/schemas\/(.+)$/.exec($ref)?.[1];
    if (name === undefined || !(name in schemas))
      throw new TypeError(
        `Cannot follow ${JSON.stringify($ref)}: only #/components/schemas/<name> of the document`,
      );
    if (seen.includes(name))
      throw new TypeError(`The schema ${name} refers to itself, which a payload schema cannot`);
    return inline(schemas[name], schemas, [...seen, name]);
  }
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, inline(value, schemas, seen)]));
}

/**
 * The webhooks of an OpenAPI 3.1 document (its `webhooks` map), each with the zod schema of its JSON
 * payload, generated from the document by zod's `z.fromJSONSchema`: adding a webhook to a document is
 * enough for the sender's checks and the receiver's dispatch to follow. `Events` is the caller's typing of
 * it (event type → payload type); a document read at run time cannot give it.
 */
export function createWebhookCatalog<Events extends Record<string, unknown> = Record<string, unknown>>(
  document: WebhookDocument,
): WebhookCatalog<Events> {
  const schemas = document.components?.schemas ?? {};
  const definitions: WebhookDefinition[] = [];
  for (const [key, item] of Object.entries(document.webhooks ?? {})) {
    const operation = item?.post;
    const json = operation?.requestBody?.content?.["application/json"]?.schema;
    if (!operation || json === undefined)
      throw new TypeError(`The webhook ${JSON.stringify(key)} has no POST with an application/json body`);
    const eventType = operation.operationId ?? key;
    definitions.push({
      eventType,
      path: key.startsWith("/") ? key : `/${eventType}`,
      schema: z.fromJSONSchema(inline(json, schemas, []) as Parameters<typeof z.fromJSONSchema>[0]),
      ...(operation.summary === undefined ? {} : { summary: operation.summary }),
    });
  }
  return defineWebhookCatalog<Events>(definitions);
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
