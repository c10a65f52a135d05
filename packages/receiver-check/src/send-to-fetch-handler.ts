import { performance } from "node:perf_hooks";
import { type CheckTransport, MAX_ANSWER_BYTES } from "./check-exchange.js";

/** A fetch-style handler: a Worker's `fetch`, Hono's `app.fetch`, a Next.js route's `POST`. */
export type FetchHandler = (request: Request) => Response | Promise<Response>;

class TimedOut {}

/**
 * The transport for a handler called in-process, with a `Request` for the URL: no socket, so a
 * handler can be checked inside a unit test. Throwing counts as no answer (`ERR_HANDLER_THREW`).
 */
export function sendToFetchHandler(url: URL, handler: FetchHandler): CheckTransport {
  return async (request, timeoutMs) => {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<TimedOut>((resolve) => {
      timer = setTimeout(() => resolve(new TimedOut()), timeoutMs);
    });
    try {
      const answered = async () => {
        const response = await handler(
          new Request(url, { method: "POST", headers: request.headers, body: request.body }),
        );
        const bytes = new Uint8Array(await response.arrayBuffer());
        return { response, bytes };
      };
      const result = await Promise.race([answered(), expired]);
      if (result instanceof TimedOut) return { kind: "none", error: "ETIMEDOUT", durationMs: elapsed() };
      return {
        kind: "answer",
        status: result.response.status,
        headers: Object.fromEntries(result.response.headers),
        body: new TextDecoder().decode(result.bytes.subarray(0, MAX_ANSWER_BYTES)),
        durationMs: elapsed(),
      };
    } catch {
      return { kind: "none", error: "ERR_HANDLER_THREW", durationMs: elapsed() };
    } finally {
      clearTimeout(timer);
    }
  };
}
