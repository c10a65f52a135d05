/**
 * A route of the API under its base URL, the prefix it is mounted at kept: `http://h/webhooks` and
 * `/endpoints/3` make `http://h/webhooks/endpoints/3` (WHATWG `new URL("/endpoints", base)` would drop
 * `/webhooks`, and `new URL("endpoints", base)` would drop it too unless the base ended with a slash).
 */
export function joinApiUrl(
  base: string,
  path: string,
  query: Readonly<Record<string, string | undefined>> = {},
): URL {
  const url = new URL(base);
  url.pathname = `${url.pathname.replace(/\/+$/, "")}${path}`;
  url.search = "";
  url.hash = "";
  for (const [name, value] of Object.entries(query))
    if (value !== undefined) url.searchParams.set(name, value);
  return url;
}
