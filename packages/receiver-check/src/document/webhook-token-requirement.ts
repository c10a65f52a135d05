import { isObject, type JsonObject, resolveRef } from "./resolve-ref.js";

/** Whether a webhook asks for a bearer token, and the security scheme(s) that say so. */
export interface TokenRequirement {
  required: boolean;
  /** The schemes named (`bearerAuth`), for messages; empty when none is required. */
  schemes: string[];
}

/**
 * Read from the webhook operation's `security`, else the document's global `security` (OpenAPI's
 * rule: an operation's list replaces the global one, and `[]` means none). A requirement is a list of
 * alternatives: an empty one (`{}`) makes the token optional, so none is required. Every other
 * alternative must name only `http` schemes with the `bearer` scheme, the one credential the kit can
 * send; anything else throws, naming the schemes.
 */
export function webhookTokenRequirement(operation: JsonObject, document: JsonObject): TokenRequirement {
  const security = operation.security ?? document.security;
  if (!Array.isArray(security) || security.length === 0) return { required: false, schemes: [] };
  if (security.some((alternative) => isObject(alternative) && Object.keys(alternative).length === 0))
    return { required: false, schemes: [] };
  const schemes =
    isObject(document.components) && isObject(document.components.securitySchemes)
      ? document.components.securitySchemes
      : {};
  const isBearer = (name: string) => {
    const scheme = resolveRef(schemes[name], document);
    return isObject(scheme) && scheme.type === "http" && String(scheme.scheme).toLowerCase() === "bearer";
  };
  const bearer = security.find(
    (alternative) => isObject(alternative) && Object.keys(alternative).every(isBearer),
  );
  if (bearer === undefined) {
    const named = security.flatMap((alternative) => (isObject(alternative) ? Object.keys(alternative) : []));
    throw new TypeError(
      `its security asks for ${named.join(", ") || "nothing the kit can read"}, and the kit sends only a bearer token (a securitySchemes entry with type: http, scheme: bearer)`,
    );
  }
  return { required: true, schemes: Object.keys(bearer as JsonObject) };
}
