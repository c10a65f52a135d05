import type { IncomingMessage } from "node:http";
import { AdminError, invalidInput } from "./admin-error.js";

const LIMIT = 64 * 1024;

/** The request body parsed as JSON, refusing other content types and anything over 64 KiB. */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  // The media type exactly, parameters (charset) aside: `application/json-seq` or `application/jsonx` is not JSON.
  const type = String(req.headers["content-type"] ?? "")
    .split(";")[0]
    ?.trim()
    .toLowerCase();
  if (type !== "application/json") {
    throw new AdminError(415, "ERR_UNSUPPORTED_MEDIA_TYPE", "Send the body as application/json");
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > LIMIT) throw new AdminError(413, "ERR_BODY_TOO_LARGE", `Body is larger than ${LIMIT} bytes`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw invalidInput("Body is not valid JSON");
  }
}
