import { COLLECTED_HEADERS, type IncomingHeaders } from "./header-value.js";

/**
 * Picks the named headers out of Node's `req.rawHeaders`, keeping every copy as sent: a header
 * sent once is its string, one sent more than once the array of its copies (what
 * `req.headersDistinct` holds for it), and a missing one `undefined`. Reading `headersDistinct`
 * (or `headers`) builds an object of every header on each request; the receive path needs eight.
 */
export function createHeaderCollector(
  names: readonly string[],
): (rawHeaders: readonly string[]) => IncomingHeaders {
  // Only names of a wanted length are lower-cased and compared.
  const byLength = new Map<number, string[]>();
  // Every record starts as a copy of one template: the same shape on every request (fast property
  // access), and marked as holding lower-case names only, so a missing one is not searched for.
  const template: IncomingHeaders & { [COLLECTED_HEADERS]?: true } = { [COLLECTED_HEADERS]: true };
  for (const name of names) {
    const lower = name.toLowerCase();
    template[lower] = undefined;
    const sameLength = byLength.get(lower.length);
    if (sameLength === undefined) byLength.set(lower.length, [lower]);
    else sameLength.push(lower);
  }
  return (rawHeaders) => {
    const found = { ...template };
    for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
      const name = rawHeaders[i] as string;
      const candidates = byLength.get(name.length);
      if (candidates === undefined) continue;
      const lower = name.toLowerCase();
      for (const wanted of candidates) {
        if (wanted !== lower) continue;
        const value = rawHeaders[i + 1] as string;
        const copies = found[lower];
        if (copies === undefined) found[lower] = value;
        else if (typeof copies === "string") found[lower] = [copies, value];
        else copies.push(value);
        break;
      }
    }
    return found;
  };
}
