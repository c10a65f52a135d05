/** Node's header record: repeated headers may arrive as arrays. */
export type IncomingHeaders = Record<string, string | string[] | undefined>;

/**
 * The single value of a header, looked up case-insensitively. A header sent twice is treated as
 * absent-and-suspicious (`"duplicate"`), never silently joined.
 */
export function headerValue(headers: IncomingHeaders, name: string): string | undefined | "duplicate" {
  let value = headers[name];
  const lower = value === undefined ? name.toLowerCase() : name;
  if (value === undefined) value = headers[lower];
  if (value === undefined) {
    for (const key of Object.keys(headers)) {
      if (key.toLowerCase() === lower) {
        value = headers[key];
        break;
      }
    }
  }
  if (Array.isArray(value)) return value.length === 1 ? value[0] : "duplicate";
  return value;
}
