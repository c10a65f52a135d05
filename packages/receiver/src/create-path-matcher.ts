/**
 * Whether a request's path is the webhook's, as @koa/router matches a route by default: in any
 * case, with or without one trailing slash. Every adapter answers the same paths.
 */
export function createPathMatcher(path: string): (requestPath: string) => boolean {
  const lower = path.toLowerCase();
  return (requestPath) => {
    // The path as configured, exactly: what the sender sends, so the usual answer costs one compare.
    if (requestPath === path) return true;
    const length = requestPath.endsWith("/") ? requestPath.length - 1 : requestPath.length;
    return length === path.length && requestPath.slice(0, length).toLowerCase() === lower;
  };
}
