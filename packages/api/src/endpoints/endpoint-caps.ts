import type { Outbox } from "@plant-store/sender";
import { WebhookApiError } from "../errors.js";
import { MAX_ENDPOINTS } from "./max-endpoints.js";

/** What one owner (the operator, or one subscriber) may hold through the admin API. */
export interface EndpointCaps {
  /** Endpoints in all. */
  endpoints: number;
  /** Endpoints with a rate limit: each is a bucket the claim keeps. */
  rateLimited: number;
  /** Endpoints at one URL: each is one more signed POST there per message. */
  perUrl: number;
}

/**
 * The operator's own endpoints: the page's poll bound (MAX_ENDPOINTS), every one of them may be
 * rate-limited; 25 at one URL is more than a store fans one message out to one server in practice.
 */
export const OPERATOR_ENDPOINT_CAPS: EndpointCaps = {
  endpoints: MAX_ENDPOINTS,
  rateLimited: MAX_ENDPOINTS,
  perUrl: 25,
};

/**
 * A subscriber's, far below the operator's: a subscriber is a stranger, and the audit of issue 37 had one
 * add 1,000 rate-limited endpoints in 4 s, and 50 at one echo URL (one plant, 50 signed POSTs there).
 * Twenty receivers is more than a customer's environments and event types call for; `serve
 * --max-subscriber-endpoints` raises or lowers it (the other two stay at most that).
 */
export const SUBSCRIBER_ENDPOINT_CAPS: EndpointCaps = { endpoints: 20, rateLimited: 10, perUrl: 3 };

/** What a new or changed endpoint would add to its owner's counts. */
export interface EndpointGrowth {
  /** A new endpoint (POST), not a changed one. */
  adds: boolean;
  /** It becomes rate-limited (it was not, or it is new with a limit). */
  rateLimited: boolean;
  /** The URL it comes to (new, or moved there); undefined when it stays where it is. */
  url?: string | undefined;
}

/**
 * Throws the 409 of the first cap `growth` would pass for the owner (`subscriberId` null: the operator),
 * naming whose cap it is. Counted before the write, so two adds at the same moment may both pass at the
 * cap's edge: a bound on growth, not an exact number.
 */
export async function checkEndpointCaps(
  outbox: Outbox,
  subscriberId: number | null,
  caps: EndpointCaps,
  growth: EndpointGrowth,
): Promise<void> {
  if (!growth.adds && !growth.rateLimited && growth.url === undefined) return;
  const counts = await outbox.countEndpoints(subscriberId, growth.url);
  const who = subscriberId === null ? "The operator" : "This subscriber";
  const whose = subscriberId === null ? "the operator" : "a subscriber";
  if (growth.adds && counts.endpoints >= caps.endpoints)
    throw new WebhookApiError(
      409,
      "ERR_TOO_MANY_ENDPOINTS",
      `${who} already has ${counts.endpoints} endpoints, the most ${whose} may have: remove one first`,
    );
  if (growth.rateLimited && counts.rateLimited >= caps.rateLimited)
    throw new WebhookApiError(
      409,
      "ERR_TOO_MANY_RATE_LIMITED_ENDPOINTS",
      `${who} already has ${counts.rateLimited} rate-limited endpoints, the most ${whose} may have: remove a limit or an endpoint first`,
    );
  if (growth.url !== undefined && counts.atUrl >= caps.perUrl)
    throw new WebhookApiError(
      409,
      "ERR_TOO_MANY_ENDPOINTS_AT_URL",
      `${who} already has ${counts.atUrl} endpoints at this URL, the most ${whose} may have: use the one it has`,
    );
}

/** Caps given in part, completed from the defaults; a subscriber's other caps stay within its endpoints'. */
export function resolveEndpointCaps(
  given: { operator?: Partial<EndpointCaps>; subscriber?: Partial<EndpointCaps> } = {},
): {
  operator: EndpointCaps;
  subscriber: EndpointCaps;
} {
  const subscriber = { ...SUBSCRIBER_ENDPOINT_CAPS, ...given.subscriber };
  return {
    operator: { ...OPERATOR_ENDPOINT_CAPS, ...given.operator },
    subscriber: {
      endpoints: subscriber.endpoints,
      rateLimited: Math.min(subscriber.rateLimited, subscriber.endpoints),
      perUrl: Math.min(subscriber.perUrl, subscriber.endpoints),
    },
  };
}
