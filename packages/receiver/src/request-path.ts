/**
 * The path of a request target: what precedes its query. A target in absolute form
 * (`http://host/path`, which a client may send through a proxy) gives its URL's path, and `*` (or
 * anything unparsable) gives itself, which no webhook path matches.
 */
export function requestPath(target: string | undefined): string {
  if (target === undefined) return "/";
  if (target.charCodeAt(0) === 47 /* "/" */) {
    const query = target.indexOf("?");
    return query === -1 ? target : target.slice(0, query);
  }
  try {
    return new URL(target).pathname;
  } catch {
    return target;
  }
}
