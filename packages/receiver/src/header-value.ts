/** Node's header record: repeated headers may arrive as arrays. */
export type IncomingHeaders = Record<string, string | string[] | undefined>;

/**
 * Marks a record made by `createHeaderCollector`: every name in it is lower-case and every wanted
 * one is present (undefined when not sent), so a name not found is simply absent.
 */
export const COLLECTED_HEADERS: unique symbol = Symbol("plant-store.collected-headers");

/**
 * The single value of a header, looked up case-insensitively. A header sent twice is treated as
 * absent-and-suspicious (`"duplicate"`), never silently joined.
 */
export function headerValue(headers: IncomingHeaders, name: string): string | undefined | "duplicate" {
  let value = headers[name];
  if (value === undefined) {
    const lower = name.toLowerCase();
    value = headers[lower];
    // A header absent from a caller's record (traceparent, on most requests) is looked for under
    // every spelling: for-in, not Object.keys, so the search allocates nothing (a fifth of the time).
    if (value === undefined && (headers as { [COLLECTED_HEADERS]?: true })[COLLECTED_HEADERS] !== true) {
      for (const key in headers) {
        if (key.length === lower.length && key.toLowerCase() === lower) {
          value = headers[key];
          break;
        }
      }
    }
  }
  if (Array.isArray(value)) return value.length === 1 ? value[0] : "duplicate";
  return value;
}

/** The first copy of a header as collected: its string, or the first of its copies. */
export function firstCopy(value: string | string[] | undefined): string | undefined {
  return typeof value === "string" || value === undefined ? value : value[0];
}
