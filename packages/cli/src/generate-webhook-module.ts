import { describeWebhooks, type WebhookDescription, type WebhookDocument } from "@plant-store/types";
import { compile, type JSONSchema } from "json-schema-to-typescript";

export interface GenerateOptions {
  /** Where the document came from, as the file's header names it (a path relative to the output). */
  source: string;
}

/** `order.created` → `OrderCreated`, `newPlant` → `NewPlant`: a type name made of an event type's words. */
export function typeNameOf(eventType: string): string {
  const words = eventType.split(/[^A-Za-z0-9]+/).filter((word) => word !== "");
  const name = words.map((word) => word[0]?.toUpperCase() + word.slice(1)).join("");
  return /^[A-Za-z_]/.test(name) ? name : `Webhook${name}`;
}

/** A payload schema that only names a component (`$ref` and nothing else): its type is that component's. */
function componentNamed(payload: Record<string, unknown>): string | undefined {
  const keys = Object.keys(payload);
  if (keys.length !== 1 || typeof payload.$ref !== "string") return undefined;
  return /^#\/\$defs\/(.+)$/.exec(payload.$ref)?.[1];
}

/**
 * Each webhook's payload type name: the component it names, else its event type's words (with `Payload`
 * added where a component or another webhook has the name already).
 */
function payloadNames(
  payloads: readonly Record<string, unknown>[],
  webhooks: readonly WebhookDescription[],
  components: Record<string, unknown>,
): string[] {
  const taken = new Set(Object.keys(components));
  return webhooks.map(({ eventType }, index) => {
    const component = componentNamed(payloads[index] ?? {});
    if (component !== undefined) return component;
    const base = typeNameOf(eventType);
    let name = base;
    for (let n = 1; taken.has(name); n++) name = `${base}Payload${n === 1 ? "" : n}`;
    taken.add(name);
    return name;
  });
}

/** The parts of the document a catalog reads, and nothing else (no paths, servers, or descriptions of answers). */
function catalogDocument(document: WebhookDocument): object {
  const webhooks = Object.fromEntries(
    Object.entries(document.webhooks ?? {}).map(([key, item]) => {
      const { operationId, summary, security, requestBody, "x-event-type": declared } = item?.post ?? {};
      const schema = requestBody?.content?.["application/json"]?.schema;
      return [
        key,
        {
          post: {
            ...(declared === undefined ? {} : { "x-event-type": declared }),
            ...(operationId === undefined ? {} : { operationId }),
            ...(summary === undefined ? {} : { summary }),
            ...(security === undefined ? {} : { security }),
            requestBody: { content: { "application/json": { schema } } },
          },
        },
      ];
    }),
  );
  const components = document.components as
    | { schemas?: Record<string, unknown>; securitySchemes?: Record<string, unknown> }
    | undefined;
  return {
    ...(document.security === undefined ? {} : { security: document.security }),
    webhooks,
    components: {
      ...(components?.schemas === undefined ? {} : { schemas: components.schemas }),
      ...(components?.securitySchemes === undefined ? {} : { securitySchemes: components.securitySchemes }),
    },
  };
}

const ROOT_INTERFACE =
  /^\/\*\*\n \* Every webhook's payload type, by event type\.\n \*\/\nexport interface WebhookEvents \{\n[^}]*\}\n/m;

const DEFS_MARK = "plant-webhooks:$defs";

/** JSON as a TypeScript literal: what fits on a line stays on one, the rest is indented. */
function literal(value: unknown, indent = ""): string {
  const flat = JSON.stringify(value);
  if (value === null || typeof value !== "object" || flat.length + indent.length <= 100) return flat;
  const inner = `${indent}  `;
  const entries = Array.isArray(value)
    ? value.map((item) => `${inner}${literal(item, inner)}`)
    : Object.entries(value).map(([key, item]) => `${inner}${JSON.stringify(key)}: ${literal(item, inner)}`);
  const [open, close] = Array.isArray(value) ? ["[", "]"] : ["{", "}"];
  return `${open}\n${entries.join(",\n")}\n${indent}${close}`;
}

/**
 * The TypeScript module `plant-webhooks generate` writes for an OpenAPI 3.1 webhooks document: per
 * webhook its payload type (json-schema-to-typescript) and zod schema (zod's `z.fromJSONSchema`, as the
 * catalog makes it), `WebhookEvents` (event type → payload type), and `catalog`, the document typed with
 * those events, which `createWebhookCatalog` turns into a catalog typed per event type. The same input
 * gives the same text, so `--check` can compare.
 */
export async function generateWebhookModule(
  document: WebhookDocument,
  options: GenerateOptions,
): Promise<string> {
  const webhooks = describeWebhooks(document);
  if (webhooks.length === 0)
    throw new TypeError("The document has no webhooks (its `webhooks` map is empty)");
  const components = webhooks[0]?.components ?? {};
  const payloads = webhooks.map(({ jsonSchema }) => {
    const { $defs: _shared, ...own } = jsonSchema;
    return own;
  });
  const names = payloadNames(payloads, webhooks, components);
  const root = {
    title: "WebhookEvents",
    description: "Every webhook's payload type, by event type.",
    type: "object",
    additionalProperties: false,
    required: webhooks.map(({ eventType }) => eventType),
    properties: Object.fromEntries(
      webhooks.map(({ eventType }, index) => [eventType, { $ref: `#/$defs/${names[index]}` }]),
    ),
    $defs: {
      ...components,
      ...Object.fromEntries(
        payloads
          .map((payload, index) => [
            names[index],
            { ...payload, description: describe(webhooks[index] as WebhookDescription, payload) },
          ])
          .filter((_entry, index) => componentNamed(payloads[index] ?? {}) === undefined),
      ),
    },
  };
  const types = await compile(root as JSONSchema, "WebhookEvents", {
    bannerComment: "",
    additionalProperties: false,
    declareExternallyReferenced: true,
    format: true,
    unreachableDefinitions: false,
    strictIndexSignatures: true,
  });
  // Each schema refers to the shared `$defs` constant rather than carrying its own copy of the components.
  const schemaConsts = webhooks.map((_webhook, index) => {
    const json = literal({ ...payloads[index], $defs: DEFS_MARK }).replace(/"\$defs": ?"[^"]+"/, "$defs");
    return `export const ${typeNameOf(webhooks[index]?.eventType ?? "")}Schema = z.fromJSONSchema(${json} as JsonSchema) as z.ZodType<${names[index]}>;`;
  });
  // The root interface only gathers the payloads for the generator; it is written below as a type alias,
  // which (unlike an interface) satisfies the toolkit's `Record<string, unknown>` event maps.
  if (!ROOT_INTERFACE.test(types))
    throw new Error("json-schema-to-typescript wrote WebhookEvents in an unexpected shape");
  const payloadTypes = types.replace(ROOT_INTERFACE, "");
  return [
    `// Generated by \`plant-webhooks generate\` from ${options.source}.`,
    "// Do not edit: run it again when the document changes (`--check` fails in CI when this file is stale).",
    'import { z } from "zod";',
    "",
    "/** Every webhook's payload type, by event type. */",
    "export type WebhookEvents = {",
    ...webhooks.map(({ eventType }, index) => `  ${JSON.stringify(eventType)}: ${names[index]};`),
    "};",
    "",
    payloadTypes.trim(),
    "",
    "/** What zod's `z.fromJSONSchema` takes. */",
    "type JsonSchema = Parameters<typeof z.fromJSONSchema>[0];",
    "",
    "/** The document's component schemas, checked, as each payload schema refers to them (`#/$defs/<name>`). */",
    `const $defs = ${literal(components)};`,
    "",
    ...schemaConsts.flatMap((line) => [line, ""]),
    "/** Each webhook's payload schema, by event type. */",
    "export const schemas = {",
    ...webhooks.map(({ eventType }) => `  ${JSON.stringify(eventType)}: ${typeNameOf(eventType)}Schema,`),
    "} as const;",
    "",
    `const document = ${literal(catalogDocument(document))};`,
    "",
    "/** The document, typed with its events: `createWebhookCatalog(catalog)` makes a catalog typed per event type. */",
    'export const catalog = document as typeof document & { readonly "~events"?: WebhookEvents };',
    "",
  ].join("\n");
}

/** A payload type's doc comment: the webhook's summary or the schema's own description, and its event type. */
function describe(webhook: WebhookDescription, payload: Record<string, unknown>): string {
  const text = typeof payload.description === "string" ? payload.description : webhook.summary;
  return `${text === undefined ? "" : `${text} `}(the \`${webhook.eventType}\` webhook's payload)`;
}
