import { readJson } from "./read-json.js";

/** The message of the error an API call rejects with once the session has ended (the page said so). */
export const SIGNED_OUT = "401";

export type Api = <T>(method: string, path: string, body?: unknown) => Promise<T>;

/**
 * Calls to the page's JSON API with `Authorization: Bearer <session>`. A 401 means the session ended:
 * `onSignedOut` tells the user, and the call rejects with `SIGNED_OUT`, which callers do not report
 * again. Any other refusal rejects with the API's message.
 */
export function createApi(options: {
  session: () => string | null;
  onSignedOut: () => void;
  /** True once the page stopped asking: calls reject at once. */
  stopped?: () => boolean;
  /** The path the API is mounted under ("" at the root): prefixed to every path. */
  base?: string;
}): Api {
  const base = options.base ?? "";
  return async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    if (options.stopped?.()) throw new Error(SIGNED_OUT);
    const headers: Record<string, string> = { authorization: `Bearer ${options.session()}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    const init: RequestInit = { method, headers };
    if (body !== undefined) init.body = JSON.stringify(body);
    const response = await fetch(`${base}${path}`, init);
    const data = await readJson(response);
    if (response.status === 401) {
      options.onSignedOut();
      throw new Error(SIGNED_OUT);
    }
    if (!response.ok) throw new Error(data?.message || `HTTP ${response.status}`);
    return data as T;
  };
}
