import { InvalidJsonError } from "./errors/invalid-json-error.js";

// `ignoreBOM: true` keeps a leading byte-order mark in the text (the default strips it silently), so
// JSON.parse refuses it: RFC 8259 section 8.1 forbids senders to add one and only allows parsers to
// ignore it; the contract's body is plain JSON, and every receiver of it should agree on what parses.
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Parses verified raw bytes as UTF-8 JSON (`InvalidJsonError` otherwise); the schema comes after. */
export function parseJsonBody(rawBody: Uint8Array): unknown {
  try {
    return JSON.parse(utf8.decode(rawBody));
  } catch (error) {
    throw new InvalidJsonError(error);
  }
}
