import { z } from "zod";
import { SIGNATURE_HEADER_STYLES } from "./webhook-headers.js";

/** Most static headers one endpoint sends. */
export const MAX_ENDPOINT_HEADERS = 20;

/** Longest static header name and value, in characters. */
export const MAX_ENDPOINT_HEADER_NAME_LENGTH = 256;
export const MAX_ENDPOINT_HEADER_VALUE_LENGTH = 4096;

/** Longest endpoint filter (a CEL expression), in characters. */
export const MAX_ENDPOINT_FILTER_LENGTH = 4096;

/** A header name as HTTP allows it: a `token` of RFC 9110 (letters, digits and ``!#$%&'*+-.^_`|~``). */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * A header value a receiver reads back as sent: visible ASCII with spaces or tabs inside, none at
 * either end (HTTP strips them). CR, LF and NUL would split or end the header (Node refuses them).
 */
const HEADER_VALUE = /^[\x21-\x7e]([\x20-\x7e\t]*[\x21-\x7e])?$/;

/**
 * Headers an endpoint may not set, whatever their case: those HTTP itself or the client writes (`Host`,
 * `Content-Length`, `Content-Type`, the hop-by-hop ones of RFC 9110 7.6.1), the ones the delivery writes
 * (`Authorization` carries the endpoint's token, `traceparent` the trace), and `Cookie`.
 */
const REFUSED_HEADERS = new Set([
  "host",
  "content-length",
  "content-type",
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "authorization",
  "cookie",
  "traceparent",
]);

/** Prefixes of the signature's headers, in either style, and of any the contract may add. */
const REFUSED_PREFIXES = ["webhook-", "svix-"];

/** Why a static header's name is refused, or undefined when it may be sent. */
export function refusedHeaderName(name: string): string | undefined {
  if (name.length === 0 || name.length > MAX_ENDPOINT_HEADER_NAME_LENGTH || !HEADER_NAME.test(name))
    return `${JSON.stringify(name.slice(0, 64))} is not a header name (1 to ${MAX_ENDPOINT_HEADER_NAME_LENGTH} letters, digits or !#$%&'*+-.^_\`|~)`;
  const lower = name.toLowerCase();
  if (REFUSED_HEADERS.has(lower)) return `${name} is written by the sender or HTTP itself and cannot be set`;
  const prefix = REFUSED_PREFIXES.find((start) => lower.startsWith(start));
  if (prefix !== undefined) return `${name}: headers starting with ${prefix} belong to the signature`;
  return undefined;
}

/**
 * An endpoint's static headers: name → value, at most `MAX_ENDPOINT_HEADERS`, names as HTTP allows and
 * none of the refused ones (`refusedHeaderName`), no name twice in another case. The issues never
 * repeat a value: values are secrets.
 */
export const EndpointHeadersSchema = z.record(z.string(), z.string()).superRefine((headers, context) => {
  const names = Object.keys(headers);
  if (names.length > MAX_ENDPOINT_HEADERS)
    context.addIssue({ code: "custom", message: `at most ${MAX_ENDPOINT_HEADERS} headers` });
  const seen = new Set<string>();
  for (const name of names) {
    const refused = refusedHeaderName(name);
    if (refused !== undefined) context.addIssue({ code: "custom", path: [name], message: refused });
    else if (seen.has(name.toLowerCase()))
      context.addIssue({
        code: "custom",
        path: [name],
        message: `${name} is given twice (names ignore case)`,
      });
    seen.add(name.toLowerCase());
    const value = headers[name] as string;
    if (value.length > MAX_ENDPOINT_HEADER_VALUE_LENGTH || !HEADER_VALUE.test(value))
      context.addIssue({
        code: "custom",
        path: [name],
        message: `${name}'s value must be 1 to ${MAX_ENDPOINT_HEADER_VALUE_LENGTH} visible ASCII characters (spaces inside only)`,
      });
  }
});

/** `standard` (`webhook-*`) or `svix` (`svix-*`): the names an endpoint's signature headers go under. */
export const SignatureHeaderStyleSchema = z.enum(SIGNATURE_HEADER_STYLES);

/**
 * An endpoint's filter as a string: a CEL expression over `{ eventType, payload }`, at most
 * `MAX_ENDPOINT_FILTER_LENGTH` characters. Its syntax, functions and cost are checked by the sender
 * (`checkEndpointFilter`), which compiles it.
 */
export const EndpointFilterSchema = z
  .string()
  .min(1, "must not be empty (null: no filter)")
  .max(MAX_ENDPOINT_FILTER_LENGTH, `must be at most ${MAX_ENDPOINT_FILTER_LENGTH} characters`);
