import type { IncomingMessage } from "node:http";
import type { DeliveryRequest } from "./create-delivery-handler.js";
import { createHeaderCollector } from "./create-header-collector.js";
import { firstCopy } from "./header-value.js";
import { readRawBody } from "./read-raw-body.js";
import { RECEIVED_HEADERS } from "./received-headers.js";

/** A `node:http` request as the receive path reads it: the Koa adapters and the Node middleware alike. */
export function createNodeRequestReader(): (req: IncomingMessage) => DeliveryRequest {
  const collectHeaders = createHeaderCollector(RECEIVED_HEADERS);
  return (req) => {
    // Every copy of each header, as sent (what `req.headersDistinct` holds), not `req.headers`:
    // Node joins a repeated custom header into one comma-separated string (and keeps only the
    // first Authorization), so a second webhook-signature would pass unnoticed. Every copy lets a
    // repeated header be refused as ambiguous.
    const headers = collectHeaders(req.rawHeaders);
    // Node refuses a request whose Content-Length copies differ, so any copy is the length.
    const length = firstCopy(headers["content-length"]);
    return {
      method: req.method ?? "GET",
      headers,
      hasBody: headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0"),
      readBody: (limit, timeoutMs) => readRawBody(req, { limit, timeoutMs, contentLength: length }),
    };
  };
}
