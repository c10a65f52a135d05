import {
  isOperationalEventType,
  MAX_BODY_BYTES,
  type WebhookCatalog,
  WebhookIdSchema,
} from "@plant-store/types";
import { InvalidMessageError, InvalidPayloadError } from "../errors.js";
import { newWebhookId } from "../new-webhook-id.js";
import type { UntypedMessage } from "../outbox.js";
import { EVENT_TYPE_PATTERN } from "./event-type-pattern.js";

/** Longest idempotency key kept. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** A message as both stores write it: the body serialised once, the id chosen, the key checked. */
export interface PreparedMessage {
  eventType: string | null;
  payload: string;
  webhookId: string;
  idempotencyKey: string | null;
  /** The subscriber it is addressed to; null: every subscribed endpoint. */
  subscriberId: number | null;
  orderingKey: string | null;
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
export function prepareMessage(message: UntypedMessage, catalog?: WebhookCatalog): PreparedMessage {
  const { eventType } = message;
  if (eventType !== undefined && (typeof eventType !== "string" || !EVENT_TYPE_PATTERN.test(eventType)))
    throw new InvalidMessageError(
      "eventType must be 1 to 200 letters, digits or _ . : / - (an operationId, say)",
    );
  // Only the outbox sends these, from the transaction that records what they report.
  if (eventType !== undefined && isOperationalEventType(eventType))
    throw new InvalidMessageError(
      `${eventType} is one of the outbox's operational webhooks, which only the outbox queues`,
    );
  if (catalog) {
    if (eventType === undefined || !catalog.has(eventType))
      throw new InvalidMessageError(
        `eventType must be one of this outbox's webhooks (${catalog.eventTypes.join(", ")})`,
      );
    const checked = catalog.safeParse(eventType, message.payload);
    if (!checked.success) {
      const issues = checked.error.issues.map((issue) => ({
        path: issue.path.map(String).join("."),
        message: issue.message,
      }));
      throw new InvalidPayloadError(
        `The ${eventType} payload is refused: ${issues.map((issue) => `${issue.path || "(payload)"}: ${issue.message}`).join("; ")}`,
        eventType,
        issues,
      );
    }
  }
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
  const { subscriberId } = message;
  if (subscriberId !== undefined && (!Number.isSafeInteger(subscriberId) || subscriberId <= 0))
    throw new InvalidMessageError("subscriberId must be a subscriber's id (a positive integer)");
  const { orderingKey } = message;
  if (
    orderingKey !== undefined &&
    (typeof orderingKey !== "string" ||
      orderingKey.length === 0 ||
      orderingKey.length > MAX_IDEMPOTENCY_KEY_LENGTH)
  )
    throw new InvalidMessageError(
      `orderingKey must be a string of 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`,
    );
  return {
    eventType: eventType ?? null,
    payload,
    webhookId: message.webhookId ?? newWebhookId(),
    idempotencyKey: key ?? null,
    subscriberId: subscriberId ?? null,
    orderingKey: orderingKey ?? null,
  };
}
