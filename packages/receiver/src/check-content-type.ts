import { UnsupportedMediaTypeError } from "./errors/unsupported-media-type-error.js";
import { headerValue, type IncomingHeaders } from "./header-value.js";

/** Accepts `application/json` with any parameters (`; charset=utf-8`), case-insensitively. */
export function checkContentType(headers: IncomingHeaders): void {
  const value = headerValue(headers, "content-type");
  if (value === undefined || value === "duplicate") throw new UnsupportedMediaTypeError();
  // What the Plant Store sends, without splitting and lower-casing it on every request.
  if (value === "application/json") return;
  const type = value.split(";", 1)[0]?.trim().toLowerCase();
  if (type !== "application/json") throw new UnsupportedMediaTypeError();
}
