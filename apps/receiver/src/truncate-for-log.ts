/** Longest string (in UTF-16 units) put in a log line as is; anything longer is cut. */
export const MAX_LOGGED_STRING = 200;

/**
 * Cuts a client-supplied string for a log line, saying how long it was. The contract limits a plant's
 * name to 200 characters (up to 400 UTF-16 units), but what a log line carries should not depend on
 * every caller having checked that first: unbounded text at info level fills disks.
 */
export function truncateForLog(value: string, max = MAX_LOGGED_STRING): string {
  if (value.length <= max) return value;
  const last = value.charCodeAt(max - 1);
  // Never the first half of a surrogate pair alone at the end: that would not be valid UTF-16.
  const end = last >= 0xd800 && last <= 0xdbff ? max - 1 : max;
  return `${value.slice(0, end)}… (${value.length} UTF-16 units in all)`;
}
