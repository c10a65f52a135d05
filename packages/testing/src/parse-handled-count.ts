const RECEIVED_SERIES = /^plant_receiver_webhook_requests_total\{([^}]*)\}\s+(\d+(?:\.\d+)?)\s*$/gm;

/**
 * How many webhook requests the receiver answered by running its handler, from its Prometheus text
 * (`plant_receiver_webhook_requests_total` with `outcome="received"`, summed over statuses). Unlike
 * its stored plants (one row per webhook id), this count grows with every handler call, and it has
 * no page size: it is the receiver's own tally of "exactly once".
 */
export function parseHandledCount(metricsText: string): number {
  let total = 0;
  for (const [, labels, value] of metricsText.matchAll(RECEIVED_SERIES)) {
    if (/(^|,)outcome="received"(,|$)/.test(labels ?? "")) total += Number(value);
  }
  return total;
}
