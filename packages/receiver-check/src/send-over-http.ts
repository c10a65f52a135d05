import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { performance } from "node:perf_hooks";
import { type CheckAnswer, type CheckTransport, MAX_ANSWER_BYTES } from "./check-exchange.js";

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? code : "ERR_REQUEST";
}

function flatHeaders(response: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

/**
 * The transport for a URL: node:http(s) on a fresh connection per request, no redirects followed,
 * so every request goes to the URL given and nowhere else. An answer that arrives while the body is
 * still being written (a receiver refusing a body too large before reading it) counts: the write's
 * own EPIPE or reset afterwards is ignored.
 */
export function sendOverHttp(url: URL): CheckTransport {
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return (request, timeoutMs) =>
    new Promise<CheckAnswer>((resolve) => {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      let settled = false;
      const settle = (answer: CheckAnswer) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(answer);
      };
      const client = send(url, {
        method: "POST",
        // One connection per request: nothing of one case (a half-read body) can leak into the next.
        agent: false,
        headers: {
          ...request.headers,
          "content-length": String(request.body.byteLength),
          connection: "close",
        },
      });
      const timer = setTimeout(() => {
        settle({ kind: "none", error: "ETIMEDOUT", durationMs: elapsed() });
        client.destroy();
      }, timeoutMs);
      let responded = false;
      client.on("response", (response) => {
        responded = true;
        const chunks: Buffer[] = [];
        let kept = 0;
        response.on("data", (chunk: Buffer) => {
          if (kept >= MAX_ANSWER_BYTES) return;
          chunks.push(chunk.subarray(0, MAX_ANSWER_BYTES - kept));
          kept += chunk.length;
        });
        const finish = () =>
          settle({
            kind: "answer",
            status: response.statusCode ?? 0,
            headers: flatHeaders(response),
            body: Buffer.concat(chunks).toString("utf8"),
            durationMs: elapsed(),
          });
        response.on("end", finish);
        // Cut short after the head arrived: the status is what counts, with whatever body came.
        response.on("close", finish);
        response.on("error", () => undefined);
      });
      client.on("error", (error) => {
        if (!responded) settle({ kind: "none", error: errorCode(error), durationMs: elapsed() });
      });
      client.end(request.body);
    });
}
