import { notice } from "./dom.js";

/** The message of the error an API call rejects with once the session has ended (the page said so). */
export const SIGNED_OUT = "401";

export type Api = <T>(method: string, path: string, body?: unknown) => Promise<T>;

async function readJson(response: Response): Promise<{ message?: string } | null> {
  const text = await response.text();
  return text ? JSON.parse(text) : null;
}

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
}): Api {
  return async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    if (options.stopped?.()) throw new Error(SIGNED_OUT);
    const headers: Record<string, string> = { authorization: `Bearer ${options.session()}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    const init: RequestInit = { method, headers };
    if (body !== undefined) init.body = JSON.stringify(body);
    const response = await fetch(path, init);
    const data = await readJson(response);
    if (response.status === 401) {
      options.onSignedOut();
      throw new Error(SIGNED_OUT);
    }
    if (!response.ok) throw new Error(data?.message || `HTTP ${response.status}`);
    return data as T;
  };
}

/** A sign-in code or a token, posted (never in a URL) to `path` for a session of this tab. */
export async function exchange(path: string, credential: unknown): Promise<string> {
  const response = await fetch(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(credential),
  });
  const data = (await readJson(response)) as { message?: string; session?: string } | null;
  if (!response.ok) throw new Error(data?.message || `HTTP ${response.status}`);
  return String(data?.session);
}

export type Act = <T>(
  button: HTMLButtonElement,
  method: string,
  path: string,
  body?: unknown,
  done?: (data: T) => void,
) => void;

/**
 * A button's call: the button is disabled while it runs, the page polls after it, and a failure is
 * shown in the notice (an ended session was shown already).
 */
export function createAct(api: Api, poll: () => Promise<void>): Act {
  return (button, method, path, body, done) => {
    button.disabled = true;
    api<never>(method, path, body)
      .then((data) => {
        done?.(data);
        return poll();
      })
      .catch((error: Error) => {
        if (error.message !== SIGNED_OUT) notice(`Failed: ${error.message}`);
      })
      .finally(() => {
        button.disabled = false;
      });
  };
}

/** The session this tab keeps in sessionStorage under `key`. */
export function tabSession(key: string) {
  return {
    get: () => sessionStorage.getItem(key),
    set: (value: string) => sessionStorage.setItem(key, value),
    clear: () => sessionStorage.removeItem(key),
  };
}
