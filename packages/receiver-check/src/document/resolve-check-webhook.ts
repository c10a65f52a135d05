import {
  createWebhookCatalog,
  describeWebhooks,
  type WebhookCatalog,
  type WebhookDocument,
} from "@plant-store/types";
import { buildSchemaValue } from "./build-schema-value.js";
import { deriveInvalidPayloads, type InvalidPayload } from "./derive-invalid-payloads.js";
import { isObject, type JsonObject, resolveRef } from "./resolve-ref.js";
import { type TokenRequirement, webhookTokenRequirement } from "./webhook-token-requirement.js";

/** A valid payload of the webhook and where it came from (`examples.big-order`, `built from the schema`). */
export interface ValidPayload {
  label: string;
  value: unknown;
}

/** A derived invalid payload, and whether the catalog's schema refuses it (a case is sent only then). */
export interface CheckedInvalidPayload extends InvalidPayload {
  refused: boolean;
}

/** Everything the cases need from the document about the one webhook checked. */
export interface CheckWebhook {
  /** As the toolkit names it (the catalog's `eventType`), sent in `webhook-event-type`. */
  eventType: string;
  /** Its path as the toolkit's receivers take it (the catalog's `path`). */
  path: string;
  token: TokenRequirement;
  /** At least one; the first is the valid delivery's. */
  valid: ValidPayload[];
  invalid: CheckedInvalidPayload[];
  /** Whether a payload with fields its schema does not name is accepted; undefined when it is no object. */
  unknownFieldsAccepted: boolean | undefined;
  /** The status the document gives an invalid payload: 422 when it lists that and not 400, else 400. */
  invalidStatus: 400 | 422;
}

/** Extra fields no document names: how `unknown-fields` tells forward compatibility. */
export const UNKNOWN_FIELDS = {
  "x-receiver-check-extra": "variegated",
  "x-receiver-check-care": { water: "weekly", light: "bright" },
};

/** Problems, each prefixed with the option it is about (`spec: …`, `eventType: …`). */
export class WebhookProblems extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join("; "));
  }
}

function issueText(catalog: WebhookCatalog, eventType: string, value: unknown): string | undefined {
  const result = catalog.safeParse(eventType, value);
  if (result.success) return undefined;
  return result.error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join(".") || "(the payload)"}: ${issue.message}`)
    .join("; ");
}

/** The document's examples of the request body: the media type's `example`, its `examples`, then the schema's. */
function documentExamples(media: JsonObject, schema: unknown, document: JsonObject): ValidPayload[] {
  const found: ValidPayload[] = [];
  if ("example" in media) found.push({ label: "example", value: media.example });
  if (isObject(media.examples))
    for (const [name, example] of Object.entries(media.examples)) {
      const resolved = resolveRef(example, document);
      // An externalValue lives outside the document: the kit reads only the document.
      if (isObject(resolved) && "value" in resolved)
        found.push({ label: `examples.${name}`, value: resolved.value });
    }
  const resolvedSchema = resolveRef(schema, document);
  if (isObject(resolvedSchema)) {
    if (Array.isArray(resolvedSchema.examples))
      for (const [index, value] of resolvedSchema.examples.entries())
        found.push({ label: `schema examples[${index}]`, value });
    else if ("example" in resolvedSchema)
      found.push({ label: "schema example", value: resolvedSchema.example });
  }
  return found;
}

/**
 * The webhook of `document` to check, named as the toolkit names it (`createWebhookCatalog`'s
 * `eventType`; without one, the document's only webhook). Throws `WebhookProblems` listing every
 * reason the kit cannot check it: a webhook not in the document, an example its schema refuses, a
 * schema the kit cannot build a body from, a security requirement other than a bearer token.
 */
export function resolveCheckWebhook(document: JsonObject, eventType: string | undefined): CheckWebhook {
  let catalog: WebhookCatalog;
  try {
    catalog = createWebhookCatalog(document as WebhookDocument);
  } catch (error) {
    throw new WebhookProblems([`spec: ${(error as Error).message}`]);
  }
  if (catalog.eventTypes.length === 0) throw new WebhookProblems(["spec: the document has no webhooks"]);
  const chosen = eventType ?? (catalog.eventTypes.length === 1 ? catalog.eventTypes[0] : undefined);
  if (chosen === undefined || !catalog.has(chosen))
    throw new WebhookProblems([
      `eventType: ${chosen === undefined ? "the document has several webhooks: name one" : `${JSON.stringify(chosen)} is not a webhook of the document`} (${catalog.eventTypes.join(", ")})`,
    ]);
  // The document's key of the webhook the catalog calls `chosen`, as @plant-store/types names them.
  const key = describeWebhooks(document as WebhookDocument).find((webhook) => webhook.eventType === chosen)
    ?.key as string;
  const operation = resolveRef((document.webhooks as JsonObject)[key], document) as JsonObject;
  const post = resolveRef(operation.post, document) as JsonObject;
  const body = resolveRef(post.requestBody, document) as JsonObject;
  const media = resolveRef((body.content as JsonObject)["application/json"], document) as JsonObject;
  const problems: string[] = [];
  const where = `the webhook ${chosen} (${JSON.stringify(key)})`;

  let token: TokenRequirement = { required: false, schemes: [] };
  try {
    token = webhookTokenRequirement(post, document);
  } catch (error) {
    problems.push(`spec: ${where}: ${(error as Error).message}`);
  }

  let valid = documentExamples(media, media.schema, document);
  for (const example of valid) {
    const issues = issueText(catalog, chosen, example.value);
    if (issues !== undefined)
      problems.push(`spec: ${where}: its ${example.label} does not match its schema (${issues})`);
  }
  if (valid.length === 0) {
    try {
      const value = buildSchemaValue(media.schema, document);
      const issues = issueText(catalog, chosen, value);
      if (issues !== undefined) throw new TypeError(`the body built from it is refused (${issues})`);
      valid = [{ label: "built from the schema", value }];
    } catch (error) {
      problems.push(
        `spec: ${where} has no example and the kit cannot build a body from its schema: ${(error as Error).message}; add an example to the document`,
      );
    }
  }
  if (problems.length > 0) throw new WebhookProblems(problems);

  const first = (valid[0] as ValidPayload).value;
  let derived: InvalidPayload[];
  try {
    derived = deriveInvalidPayloads(media.schema, first, document);
  } catch (error) {
    throw new WebhookProblems([`spec: ${where}: cannot read its schema: ${(error as Error).message}`]);
  }
  const invalid = derived.map((payload) => ({
    ...payload,
    refused: payload.value !== undefined && !catalog.safeParse(chosen, payload.value).success,
  }));
  const responses = isObject(post.responses) ? post.responses : {};
  return {
    eventType: chosen,
    path: catalog.get(chosen).path,
    token,
    valid,
    invalid,
    unknownFieldsAccepted: isObject(first)
      ? catalog.safeParse(chosen, { ...first, ...UNKNOWN_FIELDS }).success
      : undefined,
    invalidStatus: "422" in responses && !("400" in responses) ? 422 : 400,
  };
}
