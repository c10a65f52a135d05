import { ApiError, ApiUnreachableError } from "../errors.js";
import { joinApiUrl } from "./join-api-url.js";
import { networkErrorCode } from "./network-error-code.js";

export interface ApiClientOptions {
  /** The API's base URL, with the prefix it is mounted at (`http://127.0.0.1:3000/webhooks`). */
  api: string;
  /** The API's credential: an operator's or a subscriber's token, sent as `Authorization: Bearer`. */
  token: string;
  /** Longest wait for one answer; default 30 s (the API's own limit for a request is shorter). */
  timeoutMs?: number;
}

export interface ApiRequest {
  query?: Readonly<Record<string, string | undefined>>;
  /** Sent as JSON. */
  body?: unknown;
  headers?: Readonly<Record<string, string>>;
}

export interface ApiAnswer {
  status: number;
  headers: Headers;
  /** The parsed JSON answer; undefined for an empty one (204). */
  body: unknown;
}

export interface ApiClient {
  /** Answers a 2xx; throws `ApiError` for any other answer and `ApiUnreachableError` for none. */
  request(method: string, path: string, request?: ApiRequest): Promise<ApiAnswer>;
}

/** What to check, said after the API's own message when the status points at a setting. */
function hintFor(status: number, path: string): string {
  if (status === 401)
    return " (check --token / PLANT_WEBHOOKS_TOKEN: the API did not accept it as an operator's or a subscriber's token)";
  if (status === 404 && !/\/\d+(\/|$)/.test(path))
    return " (check --api / PLANT_WEBHOOKS_API: it must be the URL the API is mounted at, prefix included; a subscriber's token is also answered 404 on the operator's routes)";
  return "";
}

/** The API's `{error, message}` as it said it, or the answer's first characters when it is not that. */
function messageOf(body: unknown, text: string): string {
  const message = (body as { message?: unknown } | undefined)?.message;
  if (typeof message === "string") return message;
  return text.trim().slice(0, 200) || "(no message)";
}

/** One configured client of the webhook API over node's fetch: the base URL, the token, the errors. */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const timeoutMs = options.timeoutMs ?? 30_000;
  return {
    async request(method, path, request = {}) {
      const url = joinApiUrl(options.api, path, request.query);
      let response: Response;
      try {
        response = await fetch(url, {
          method,
          headers: {
            authorization: `Bearer ${options.token}`,
            accept: "application/json",
            ...(request.body === undefined ? {} : { "content-type": "application/json" }),
            ...request.headers,
          },
          ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
          redirect: "manual",
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        throw new ApiUnreachableError(
          `Could not reach the API at ${options.api} (${networkErrorCode(error)}): is the service running, and is --api (PLANT_WEBHOOKS_API) the URL it is mounted at?`,
          { cause: error },
        );
      }
      const text = await response.text();
      let body: unknown;
      try {
        body = text === "" ? undefined : JSON.parse(text);
      } catch {
        body = undefined;
      }
      if (response.status < 200 || response.status > 299) {
        const said = messageOf(body, text);
        throw new ApiError(
          `${method} ${url.pathname} answered ${response.status}: ${said}${hintFor(response.status, path)}`,
          response.status,
          said,
        );
      }
      if (text !== "" && body === undefined)
        throw new ApiError(
          `${method} ${url.pathname} answered ${response.status} with something that is not JSON: is --api (PLANT_WEBHOOKS_API) the webhook API?`,
          response.status,
          text.slice(0, 200),
        );
      return { status: response.status, headers: response.headers, body };
    },
  };
}
