import { isObject, type JsonObject, resolveRef } from "./resolve-ref.js";
import { samplePattern } from "./sample-pattern.js";

/** How deep a required chain of objects may go before a schema is taken for an endless one. */
const MAX_DEPTH = 32;

/** Strings for the formats the toolkit's schemas check (zod's `z.fromJSONSchema`). */
const FORMAT_SAMPLES: Record<string, string> = {
  "date-time": "2026-01-15T09:30:00Z",
  date: "2026-01-15",
  time: "09:30:00",
  duration: "PT1M",
  email: "team@example.com",
  "idn-email": "team@example.com",
  uri: "https://example.com/",
  url: "https://example.com/",
  "uri-reference": "https://example.com/",
  iri: "https://example.com/",
  uuid: "3fa85f64-5717-4562-b3fc-2c963f66afa6",
  hostname: "example.com",
  "idn-hostname": "example.com",
  ipv4: "192.0.2.1",
  ipv6: "2001:db8::1",
  byte: "ZXhhbXBsZQ==",
};

/** A value the kit cannot build from a schema; the path says where (`total.currency`). */
export class UnbuildableSchemaError extends TypeError {
  constructor(
    readonly at: string,
    reason: string,
  ) {
    super(`${at || "the payload"}: ${reason}`);
  }
}

/**
 * The schema as one object: `$ref`s followed, `allOf` merged into it (properties and `required`
 * added up), and of `oneOf`/`anyOf` the first branch, which is the one values are built from.
 */
export function flattenSchema(schema: unknown, document: JsonObject): JsonObject {
  const resolved = resolveRef(schema, document);
  if (resolved === true || resolved === undefined) return {};
  if (!isObject(resolved)) throw new TypeError("a schema is an object");
  const { allOf, oneOf, anyOf, ...own } = resolved;
  let merged: JsonObject = own;
  const parts = [
    ...(Array.isArray(allOf) ? allOf : []),
    ...(Array.isArray(oneOf) && oneOf.length > 0 ? [oneOf[0]] : []),
    ...(Array.isArray(anyOf) && anyOf.length > 0 ? [anyOf[0]] : []),
  ];
  for (const part of parts) {
    const flat = flattenSchema(part, document);
    const properties = { ...(merged.properties as JsonObject), ...(flat.properties as JsonObject) };
    const required = [
      ...(Array.isArray(merged.required) ? merged.required : []),
      ...(Array.isArray(flat.required) ? flat.required : []),
    ];
    merged = {
      ...merged,
      ...flat,
      ...(Object.keys(properties).length > 0 ? { properties } : {}),
      ...(required.length > 0 ? { required } : {}),
    };
  }
  return merged;
}

/** The JSON types a schema allows (`type`, a list of them, or what its keywords imply). */
export function schemaTypes(schema: JsonObject): string[] {
  if (typeof schema.type === "string") return [schema.type];
  if (Array.isArray(schema.type)) return schema.type.filter((t): t is string => typeof t === "string");
  if (isObject(schema.properties) || Array.isArray(schema.required)) return ["object"];
  if (schema.items !== undefined) return ["array"];
  if (["pattern", "format", "minLength", "maxLength"].some((k) => k in schema)) return ["string"];
  if (["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"].some((k) => k in schema))
    return ["number"];
  return [];
}

const numberOr = (value: unknown): number | undefined => (typeof value === "number" ? value : undefined);

function buildNumber(schema: JsonObject, integer: boolean, at: string): number {
  const step = numberOr(schema.multipleOf) ?? (integer ? 1 : 0.5);
  const min = numberOr(schema.minimum);
  const exclusiveMin = numberOr(schema.exclusiveMinimum);
  const max = numberOr(schema.maximum);
  const exclusiveMax = numberOr(schema.exclusiveMaximum);
  // The least multiple of the step the lower bounds allow; 1 step when there are none, under any upper bound.
  let value = step;
  if (min !== undefined) value = Math.ceil(min / step) * step;
  if (exclusiveMin !== undefined && !(value > exclusiveMin))
    value = (Math.floor(exclusiveMin / step) + 1) * step;
  if (min === undefined && exclusiveMin === undefined) {
    if (max !== undefined && value > max) value = Math.floor(max / step) * step;
    if (exclusiveMax !== undefined && !(value < exclusiveMax))
      value = (Math.ceil(exclusiveMax / step) - 1) * step;
  }
  if ((max !== undefined && value > max) || (exclusiveMax !== undefined && !(value < exclusiveMax)))
    throw new UnbuildableSchemaError(at, "no number fits its bounds and multipleOf");
  return integer ? Math.round(value) : value;
}

function buildString(schema: JsonObject, at: string): string {
  const minLength = numberOr(schema.minLength) ?? 0;
  const maxLength = numberOr(schema.maxLength) ?? Number.POSITIVE_INFINITY;
  let value: string;
  if (typeof schema.pattern === "string") {
    const sample = samplePattern(schema.pattern);
    if (sample === undefined)
      throw new UnbuildableSchemaError(at, `its pattern ${schema.pattern} is not one the kit can follow`);
    value = sample;
  } else if (typeof schema.format === "string" && schema.format in FORMAT_SAMPLES) {
    value = FORMAT_SAMPLES[schema.format] as string;
  } else {
    value = "example".padEnd(minLength, "x").slice(0, maxLength);
  }
  const length = [...value].length;
  if (length < minLength || length > maxLength)
    throw new UnbuildableSchemaError(
      at,
      `its ${schema.pattern ? "pattern" : "format"} gives "${value}", outside its length bounds`,
    );
  return value;
}

/**
 * A value the schema accepts: an example or default it gives, else `const`, the first of `enum`, else
 * one built from its type: every required property of an object (and only those), the least number
 * of array items (at least one), numbers within their bounds, strings for their format or simple
 * pattern and length. Throws `UnbuildableSchemaError` where it cannot; the caller checks the result
 * against the catalog's schema all the same.
 */
export function buildSchemaValue(schema: unknown, document: JsonObject, at = "", depth = 0): unknown {
  if (depth > MAX_DEPTH)
    throw new UnbuildableSchemaError(at, "its required fields never end (a recursive schema)");
  const flat = flattenSchema(schema, document);
  if ("const" in flat) return flat.const;
  if (Array.isArray(flat.enum) && flat.enum.length > 0) return flat.enum[0];
  if (Array.isArray(flat.examples) && flat.examples.length > 0) return flat.examples[0];
  if ("example" in flat) return flat.example;
  if ("default" in flat) return flat.default;
  const type =
    schemaTypes(flat).find((t) => t !== "null") ?? (schemaTypes(flat).includes("null") ? "null" : "string");
  switch (type) {
    case "null":
      return null;
    case "boolean":
      return true;
    case "integer":
      return buildNumber(flat, true, at);
    case "number":
      return buildNumber(flat, false, at);
    case "string":
      return buildString(flat, at);
    case "array": {
      const count = Math.min(
        Math.max(numberOr(flat.minItems) ?? 1, 1),
        numberOr(flat.maxItems) ?? Number.POSITIVE_INFINITY,
      );
      return Array.from({ length: count }, (_, i) =>
        buildSchemaValue(flat.items, document, `${at}[${i}]`, depth + 1),
      );
    }
    case "object": {
      const properties = isObject(flat.properties) ? flat.properties : {};
      const required = Array.isArray(flat.required)
        ? flat.required.filter((r): r is string => typeof r === "string")
        : [];
      const value: JsonObject = {};
      for (const name of new Set(required)) {
        const property =
          properties[name] ?? (isObject(flat.additionalProperties) ? flat.additionalProperties : {});
        value[name] = buildSchemaValue(property, document, at ? `${at}.${name}` : name, depth + 1);
      }
      return value;
    }
    default:
      throw new UnbuildableSchemaError(at, `its type ${JSON.stringify(type)} is not a JSON type`);
  }
}
