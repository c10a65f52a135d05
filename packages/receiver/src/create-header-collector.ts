/**
 * Picks the named headers (lower-case) out of Node's `req.rawHeaders`, keeping every copy as sent,
 * exactly as `req.headersDistinct` would present them. Reading `headersDistinct` (or `headers`)
 * builds an object of every header on each request; the receive path needs six of them.
 */
export function createHeaderCollector(
  names: readonly string[],
): (rawHeaders: readonly string[]) => Record<string, string[] | undefined> {
  // Only names of a wanted length are lower-cased and compared.
  const byLength = new Map<number, string[]>();
  for (const name of names) {
    const lower = name.toLowerCase();
    const sameLength = byLength.get(lower.length);
    if (sameLength === undefined) byLength.set(lower.length, [lower]);
    else sameLength.push(lower);
  }
  return (rawHeaders) => {
    const found: Record<string, string[]> = Object.create(null);
    for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
      const name = rawHeaders[i] as string;
      const candidates = byLength.get(name.length);
      if (candidates === undefined) continue;
      const lower = name.toLowerCase();
      for (const wanted of candidates) {
        if (wanted !== lower) continue;
        const value = rawHeaders[i + 1] as string;
        const copies = found[lower];
        if (copies === undefined) found[lower] = [value];
        else copies.push(value);
        break;
      }
    }
    return found;
  };
}
