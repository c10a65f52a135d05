/** The text of src/openapi.ts for the given openapi.json text. */
export function renderOpenapiModule(json: string): string;
