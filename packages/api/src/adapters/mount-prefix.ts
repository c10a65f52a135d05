import type { IncomingMessage } from "node:http";

/**
 * Where a request reached the API: the path it is mounted under (`/webhooks`, or "" at the root) and,
 * for a fetch request, the origin of its URL. `listen`'s relay URL is made from them.
 */
export interface MountPoint {
  prefix: string;
  /** Only a fetch request has one; a node request's origin is its socket's local address. */
  origin?: string;
}

const mounts = new WeakMap<IncomingMessage, MountPoint>();

export function setMountPoint(req: IncomingMessage, mount: MountPoint): void {
  mounts.set(req, mount);
}

export function mountPointOf(req: IncomingMessage): MountPoint {
  return mounts.get(req) ?? { prefix: "" };
}

/** The path under `prefix`, or undefined when the path is not under it. */
export function stripPrefix(url: string, prefix: string): string | undefined {
  if (prefix === "") return url;
  if (url === prefix) return "/";
  const rest = url.slice(prefix.length);
  if (!url.startsWith(prefix) || !(rest.startsWith("/") || rest.startsWith("?"))) return undefined;
  return rest.startsWith("?") ? `/${rest}` : rest;
}
