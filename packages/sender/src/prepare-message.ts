import { MAX_BODY_BYTES, WebhookIdSchema } from "@plant-store/types";
import { InvalidMessageError } from "./invalid-message-error.js";
import { newWebhookId } from "./new-webhook-id.js";
import type { MessageInput } from "./outbox.js";

/** Longest idempotency key kept. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** A message as both stores write it: the body serialised once, the id chosen, the key checked. */
export interface PreparedMessage {
  payload: string;
  webhookId: string;
  idempotencyKey: string | null;
}

function serialise(payload: unknown): string {
  let body: string | undefined;
  try {
    body = JSON.stringify(payload);
  } catch (error) {
    throw new InvalidMessageError(`The payload cannot be serialised as JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (body === undefined) throw new InvalidMessageError("The payload must be a JSON value");
  return body;
}

/**
 * Checks a message before anything is written: a body no receiver would take (over the contract's 1 MiB),
 * an id receivers would refuse or a key that cannot be stored is the caller's mistake, reported at once
 * instead of failing on every attempt for days.
 */
export function prepareMessage(message: MessageInput): PreparedMessage {
  const payload = serialise(message.payload);
  const bytes = Buffer.byteLength(payload);
  if (bytes > MAX_BODY_BYTES)
    throw new InvalidMessageError(
      `The payload is ${bytes} bytes as JSON; receivers accept at most ${MAX_BODY_BYTES}`,
    );
  if (message.webhookId !== undefined && !WebhookIdSchema.safeParse(message.webhookId).success)
    throw new InvalidMessageError(
      "webhookId must be 1 to 256 printable ASCII characters without spaces (Standard Webhooks)",
    );
  const key = message.idempotencyKey;
  if (
    key !== undefined &&
    (typeof key !== "string" || key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH)
  )
    throw new InvalidMessageError(
      `idempotencyKey must be a string of 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`,
    );
  return { payload, webhookId: message.webhookId ?? newWebhookId(), idempotencyKey: key ?? null };
}
