type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** Keywords that annotate but never change which values a schema accepts. */
const ANNOTATIONS = new Set(["$schema", "title", "description", "examples", "format", "deprecated"]);

/**
 * Brings a JSON Schema to a canonical form so that two schemas accepting the same values compare
 * equal, whoever wrote them:
 * - annotations are dropped (`$schema`, `title`, `description`, `examples`, `format`: OpenAPI's
 *   int32/int64 formats are enforced through `minimum`/`maximum`, which stay);
 * - `additionalProperties: {}` (zod's spelling) becomes `true` (the spec's);
 * - an `allOf` of object schemas (the spec's `NewPlant` = `Plant` + `id`) is merged into one object
 *   schema: properties and `required` united, `additionalProperties` kept only if every part allows
 *   unknown properties; this is exact because no property is defined in two parts (checked);
 * - `required` is sorted.
 */
export function normaliseJsonSchema(schema: unknown): Json {
  if (Array.isArray(schema)) return schema.map(normaliseJsonSchema);
  if (schema === null || typeof schema !== "object") return schema as Json;
  let out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (ANNOTATIONS.has(key)) continue;
    out[key] = normaliseJsonSchema(value);
  }
  if (isEmptyObject(out.additionalProperties)) out.additionalProperties = true;
  if (Array.isArray(out.allOf)) {
    const { allOf, ...rest } = out;
    out = mergeObjects([rest, ...(allOf as JsonObject[])]);
  }
  if (Array.isArray(out.required)) out.required = [...out.required].sort();
  return out;
}

function mergeObjects(parts: JsonObject[]): JsonObject {
  const properties: JsonObject = {};
  const required = new Set<Json>();
  let allowsUnknown = true;
  for (const part of parts) {
    for (const [name, schema] of Object.entries((part.properties as JsonObject | undefined) ?? {})) {
      if (name in properties) throw new Error(`Cannot merge allOf: property ${name} is defined twice`);
      properties[name] = schema;
    }
    for (const name of (part.required as Json[] | undefined) ?? []) required.add(name);
    if (part.additionalProperties === false) allowsUnknown = false;
    const unexpected = Object.keys(part).filter(
      (key) => !["type", "properties", "required", "additionalProperties"].includes(key),
    );
    if (unexpected.length > 0) throw new Error(`Cannot merge allOf part with ${unexpected.join(", ")}`);
  }
  return {
    type: "object",
    properties,
    required: [...required].sort() as Json[],
    additionalProperties: allowsUnknown,
  };
}

function isEmptyObject(value: Json | undefined): boolean {
  return (
    value !== null && typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0
  );
}
