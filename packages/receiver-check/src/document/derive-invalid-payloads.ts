import { flattenSchema, schemaTypes } from "./build-schema-value.js";
import { isObject, type JsonObject } from "./resolve-ref.js";

/** The invalid payloads derived from a schema, one case each. */
export type InvalidPayloadKind = "required-missing" | "wrong-type" | "outside-enum";

export interface InvalidPayload {
  kind: InvalidPayloadKind;
  /** What was changed, for the report: `"total.currency" set to "EUR-outside-enum", outside its enum`. */
  title: string;
  /** The payload, or `undefined` when the schema gives nothing to derive it from (then `title` says why). */
  value: unknown;
}

type Segment = string | number;

interface Field {
  path: Segment[];
  schema: JsonObject;
  value: unknown;
}

const formatPath = (path: readonly Segment[]) =>
  path.reduce<string>(
    (text, segment) =>
      typeof segment === "number" ? `${text}[${segment}]` : text ? `${text}.${segment}` : segment,
    "",
  );

/** Every value of the payload that has a schema, the payload first, then depth-first in the payload's order. */
function* fields(
  schema: JsonObject,
  value: unknown,
  path: Segment[],
  document: JsonObject,
): Generator<Field> {
  yield { path, schema, value };
  if (Array.isArray(value) && schema.items !== undefined) {
    const items = flattenSchema(schema.items, document);
    for (const [index, item] of value.entries()) yield* fields(items, item, [...path, index], document);
  } else if (isObject(value) && isObject(schema.properties)) {
    for (const [name, child] of Object.entries(value)) {
      const property = schema.properties[name];
      if (property !== undefined)
        yield* fields(flattenSchema(property, document), child, [...path, name], document);
    }
  }
}

/** The payload with the value at `path` replaced (`undefined`: removed). */
function changedAt(payload: unknown, path: readonly Segment[], replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const copy = structuredClone(payload);
  let parent = copy as Record<Segment, unknown>;
  for (const segment of path.slice(0, -1)) parent = parent[segment] as Record<Segment, unknown>;
  const last = path[path.length - 1] as Segment;
  if (replacement === undefined) delete parent[last];
  else parent[last] = replacement;
  return copy;
}

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

const allows = (types: readonly string[], value: unknown) => {
  const type = jsonType(value);
  return types.includes(type) || (type === "integer" && types.includes("number"));
};

const WRONG_TYPE_CANDIDATES: readonly unknown[] = ["wrong-type", 12345, true, [], {}];

function outsideEnum(values: readonly unknown[]): unknown {
  if (values.every((v) => typeof v === "number")) return Math.max(...(values as number[])) + 1;
  let candidate = `${typeof values[0] === "string" ? values[0] : "value"}-outside-enum`;
  while (values.includes(candidate)) candidate += "-x";
  return candidate;
}

/**
 * A required field missing, a wrong type, a value outside an enum: each derived from a valid payload
 * and its schema (the first place in the payload where the schema says so), so that only that one
 * thing makes it invalid. The caller checks each against the catalog's schema before sending it.
 */
export function deriveInvalidPayloads(
  schema: unknown,
  valid: unknown,
  document: JsonObject,
): InvalidPayload[] {
  const all = [...fields(flattenSchema(schema, document), valid, [], document)];

  const withRequired = all.find(
    ({ schema: s, value }) =>
      isObject(value) &&
      Array.isArray(s.required) &&
      s.required.some((name) => typeof name === "string" && name in value),
  );
  const missing =
    withRequired &&
    (withRequired.schema.required as unknown[]).find(
      (name): name is string => typeof name === "string" && name in (withRequired.value as JsonObject),
    );
  const hasWrongType = ({ schema: s }: Field) => {
    const types = schemaTypes(s);
    return types.length > 0 && WRONG_TYPE_CANDIDATES.some((c) => !allows(types, c));
  };
  // A field of the payload before the payload itself: a receiver that only checks it is an object passes the latter.
  const typed = all.slice(1).find(hasWrongType) ?? all.slice(0, 1).find(hasWrongType);
  const enumerated = all.find(
    ({ schema: s }) => (Array.isArray(s.enum) && s.enum.length > 0) || "const" in s,
  );

  const payloads: InvalidPayload[] = [];
  if (withRequired && missing !== undefined) {
    const path = [...withRequired.path, missing];
    payloads.push({
      kind: "required-missing",
      title: `without the required "${formatPath(path)}"`,
      value: changedAt(valid, path, undefined),
    });
  } else payloads.push({ kind: "required-missing", title: "the schema requires no field", value: undefined });

  if (typed) {
    const types = schemaTypes(typed.schema);
    const wrong = WRONG_TYPE_CANDIDATES.find((c) => !allows(types, c));
    payloads.push({
      kind: "wrong-type",
      title: `${typed.path.length === 0 ? "the whole payload" : `"${formatPath(typed.path)}"`} as ${jsonType(wrong)} ${JSON.stringify(wrong)} (the schema says ${types.join(" or ")})`,
      value: changedAt(valid, typed.path, wrong),
    });
  } else payloads.push({ kind: "wrong-type", title: "the schema names no type", value: undefined });

  if (enumerated) {
    const values = Array.isArray(enumerated.schema.enum) ? enumerated.schema.enum : [enumerated.schema.const];
    const outside = outsideEnum(values);
    payloads.push({
      kind: "outside-enum",
      title: `${enumerated.path.length === 0 ? "the whole payload" : `"${formatPath(enumerated.path)}"`} set to ${JSON.stringify(outside)}, outside its enum`,
      value: changedAt(valid, enumerated.path, outside),
    });
  } else payloads.push({ kind: "outside-enum", title: "the schema has no enum", value: undefined });
  return payloads;
}
