import type { IncomingMessage } from "node:http";
import { invalidInput, WebhookApiError } from "../errors.js";

const LIMIT = 64 * 1024;

/**
 * The media type and its `charset` parameter (unquoted, lower case; undefined when not given). JSON is
 * UTF-8 (RFC 8259 §8.1): a body declared in another charset used to be read as UTF-8 all the same.
 */
function mediaType(header: string): { type: string; charset: string | undefined } {
  const [type = "", ...parameters] = header.split(";").map((part) => part.trim());
  let charset: string | undefined;
  for (const parameter of parameters) {
    const equals = parameter.indexOf("=");
    if (parameter.slice(0, equals).trim().toLowerCase() !== "charset") continue;
    charset = parameter
      .slice(equals + 1)
      .trim()
      .replace(/^"(.*)"$/, "$1")
      .toLowerCase();
  }
  return { type: type.toLowerCase(), charset };
}

/** The request body parsed as JSON, refusing other content types and charsets, and anything over 64 KiB. */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  // The media type exactly, parameters aside: `application/json-seq` or `application/jsonx` is not JSON.
  const { type, charset } = mediaType(String(req.headers["content-type"] ?? ""));
  if (type !== "application/json") {
    throw new WebhookApiError(415, "ERR_UNSUPPORTED_MEDIA_TYPE", "Send the body as application/json");
  }
  if (charset !== undefined && charset !== "utf-8" && charset !== "utf8")
    throw new WebhookApiError(
      415,
      "ERR_UNSUPPORTED_MEDIA_TYPE",
      "Send the body as application/json in UTF-8",
    );
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > LIMIT)
      throw new WebhookApiError(413, "ERR_BODY_TOO_LARGE", `Body is larger than ${LIMIT} bytes`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw invalidInput("Body is not valid JSON");
  }
}
