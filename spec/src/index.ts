import document from "../openapi.json" with { type: "json" };

/** The OpenAPI 3.1 document of the New Plant webhook, the same object as `@plant-store/spec/openapi.json`. */
export const openapi = document;

export type OpenApiDocument = typeof document;

/** The contract's own version (`info.version`): it changes only when the wire contract changes. */
export const CONTRACT_VERSION: string = document.info.version;
