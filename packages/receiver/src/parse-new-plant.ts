import { type NewPlant, NewPlantSchema } from "@plant-store/types";
import { InvalidJsonError } from "./errors/invalid-json-error.js";
import { InvalidPayloadError } from "./errors/invalid-payload-error.js";

// `ignoreBOM: true` keeps a leading byte-order mark in the text (the default strips it silently), so
// JSON.parse refuses it: RFC 8259 section 8.1 forbids senders to add one and only allows parsers to
// ignore it; the contract's body is plain JSON, and every receiver of it should agree on what parses.
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Parses verified raw bytes into a `NewPlant`, naming every invalid field on failure. */
export function parseNewPlant(rawBody: Uint8Array): NewPlant {
  let json: unknown;
  try {
    json = JSON.parse(utf8.decode(rawBody));
  } catch (error) {
    throw new InvalidJsonError(error);
  }
  const result = NewPlantSchema.safeParse(json);
  if (!result.success) {
    throw new InvalidPayloadError(
      result.error.issues.map((issue) => ({
        path: issue.path.length === 0 ? "(body)" : issue.path.map(String).join("."),
        message: issue.message,
      })),
    );
  }
  return result.data;
}
