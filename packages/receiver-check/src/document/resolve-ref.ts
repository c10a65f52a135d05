/** A JSON Schema or OpenAPI object, as read from a document. */
export type JsonObject = Record<string, unknown>;

export const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * What a `$ref` inside the document names (`#/components/schemas/Money`, any local JSON pointer),
 * with the referring object's own keywords kept beside it (OpenAPI 3.1 allows them); followed until
 * no `$ref` is left. A `$ref` outside the document, or to nothing, throws with the reference named.
 */
export function resolveRef(node: unknown, document: JsonObject): unknown {
  const seen: string[] = [];
  let current = node;
  while (isObject(current) && typeof current.$ref === "string") {
    const ref = current.$ref;
    if (seen.includes(ref)) throw new TypeError(`${JSON.stringify(ref)} refers to itself without a schema`);
    seen.push(ref);
    if (!ref.startsWith("#/"))
      throw new TypeError(`Cannot follow ${JSON.stringify(ref)}: only references inside the document`);
    let target: unknown = document;
    for (const part of ref.slice(2).split("/")) {
      const key = decodeURIComponent(part).replace(/~1/g, "/").replace(/~0/g, "~");
      target = isObject(target) || Array.isArray(target) ? (target as JsonObject)[key] : undefined;
    }
    if (target === undefined) throw new TypeError(`${JSON.stringify(ref)} names nothing in the document`);
    const { $ref: _followed, ...beside } = current;
    current = isObject(target) && Object.keys(beside).length > 0 ? { ...target, ...beside } : target;
  }
  return current;
}
