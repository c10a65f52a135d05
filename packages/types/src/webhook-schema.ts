import { UnsupportedSchemaError } from "./unsupported-schema-error.js";

/**
 * The JSON Schema keywords a webhook's payload schema may use: what zod's `z.fromJSONSchema` enforces and
 * a generated TypeScript type can say. Anything else is refused where it stands, naming its path, rather
 * than ignored: a keyword that is dropped silently lets through the payloads it was written to stop.
 */
export const SUPPORTED_SCHEMA_KEYWORDS: readonly string[] = [
  // structure
  "type",
  "properties",
  "required",
  "additionalProperties",
  "minProperties",
  "maxProperties",
  "items",
  "prefixItems",
  "minItems",
  "maxItems",
  "uniqueItems",
  "enum",
  "const",
  "oneOf",
  "anyOf",
  "allOf",
  "$ref",
  "discriminator",
  "nullable",
  // values
  "format",
  "minLength",
  "maxLength",
  "pattern",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  // annotations
  "title",
  "description",
  "examples",
  "example",
  "default",
  "deprecated",
  "readOnly",
  "writeOnly",
  "$comment",
  "externalDocs",
  "xml",
];

const SUPPORTED = new Set(SUPPORTED_SCHEMA_KEYWORDS);
const COMPONENT_REF = /^#\/components\/schemas\/([^/]+)$/;
/** Keywords whose value is a schema, a list of schemas, or a map of schemas, walked in turn. */
const ONE_SCHEMA = new Set(["items", "additionalProperties"]);
const SCHEMA_LIST = new Set(["prefixItems", "oneOf", "anyOf", "allOf"]);
const SCHEMA_MAP = new Set(["properties"]);

const pointer = (path: readonly string[]) =>
  `#/${path.map((part) => part.replaceAll("~", "~0").replaceAll("/", "~1")).join("/")}`;

/**
 * One schema of an OpenAPI 3.1 document made ready for `z.fromJSONSchema` and a type generator: every
 * keyword checked against `SUPPORTED_SCHEMA_KEYWORDS`, `#/components/schemas/<Name>` rewritten to
 * `#/$defs/<Name>` (so a schema may refer to itself: a tree), and OpenAPI 3.0's `nullable: true` turned
 * into the 3.1 form (`null` among the types).
 */
export function prepareSchema(
  node: unknown,
  path: readonly string[],
  schemas: Record<string, unknown>,
): unknown {
  if (typeof node === "boolean") return node;
  if (node === null || typeof node !== "object" || Array.isArray(node))
    throw new UnsupportedSchemaError(pointer(path), "is not a schema (an object or a boolean)");
  const out: Record<string, unknown> = {};
  let nullable = false;
  for (const [keyword, value] of Object.entries(node)) {
    if (keyword.startsWith("x-")) continue;
    if (!SUPPORTED.has(keyword))
      throw new UnsupportedSchemaError(
        pointer([...path, keyword]),
        `uses ${keyword}, which webhook schemas do not support`,
      );
    const at = [...path, keyword];
    if (keyword === "$ref") {
      const name = typeof value === "string" ? COMPONENT_REF.exec(value)?.[1] : undefined;
      if (name === undefined || !Object.hasOwn(schemas, name))
        throw new UnsupportedSchemaError(
          pointer(at),
          `cannot follow ${JSON.stringify(value)}: only #/components/schemas/<name> of the document`,
        );
      out.$ref = `#/$defs/${name}`;
    } else if (keyword === "nullable") nullable = value === true;
    else if (ONE_SCHEMA.has(keyword)) out[keyword] = prepareSchema(value, at, schemas);
    else if (SCHEMA_LIST.has(keyword)) {
      if (!Array.isArray(value)) throw new UnsupportedSchemaError(pointer(at), "must be a list of schemas");
      out[keyword] = value.map((item, index) => prepareSchema(item, [...at, String(index)], schemas));
    } else if (SCHEMA_MAP.has(keyword)) {
      if (value === null || typeof value !== "object" || Array.isArray(value))
        throw new UnsupportedSchemaError(pointer(at), "must map names to schemas");
      out[keyword] = Object.fromEntries(
        Object.entries(value).map(([name, item]) => [name, prepareSchema(item, [...at, name], schemas)]),
      );
    } else out[keyword] = value; // data (enum, const, examples…) or a bound, kept as it is
  }
  if (nullable) {
    const { type } = out;
    if (typeof type === "string") out.type = [type, "null"];
    else if (Array.isArray(type)) out.type = type.includes("null") ? type : [...type, "null"];
    else return { anyOf: [out, { type: "null" }] };
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  }
  return out;
}

/**
 * The JSON Schema of one webhook's payload, whole: its own schema with every component of the document
 * under `$defs` (each checked once, named as in the document), ready for `z.fromJSONSchema`.
 */
export function payloadJsonSchema(
  schema: unknown,
  path: readonly string[],
  components: Record<string, unknown>,
): Record<string, unknown> {
  const defs = preparedComponents(components);
  const root = prepareSchema(schema, path, components);
  const own = typeof root === "boolean" ? (root ? {} : { not: {} }) : (root as Record<string, unknown>);
  return Object.keys(defs).length === 0 ? own : { ...own, $defs: defs };
}

const prepared = new WeakMap<Record<string, unknown>, Record<string, unknown>>();

/** Every component schema, checked and rewritten once per document. */
export function preparedComponents(components: Record<string, unknown>): Record<string, unknown> {
  let defs = prepared.get(components);
  if (!defs) {
    defs = Object.fromEntries(
      Object.entries(components).map(([name, schema]) => [
        name,
        prepareSchema(schema, ["components", "schemas", name], components),
      ]),
    );
    prepared.set(components, defs);
  }
  return defs;
}
