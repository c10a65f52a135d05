import type { FilterInput } from "../filter/compile-endpoint-filter.js";
import { toFilterInput } from "../filter/compile-endpoint-filter.js";
import { passesFilter } from "./excluded-by-filters.js";
import type { PreparedMessage } from "./prepare-message.js";

/**
 * Every endpoint that has a filter (id and expression, whatever its status or subscription), as the
 * store held them when read, and the store's fingerprint of that set. An enqueue evaluates a process's
 * copy and hands the store the fingerprint with its verdicts: the insert compares it with the set as it
 * stands in the insert's own snapshot, and writes nothing when they differ (`StaleFilterSetError`).
 */
export interface FilterSet {
  readonly fingerprint: string;
  readonly endpoints: readonly { readonly id: number; readonly filter: string }[];
}

/** One outbox's copy of the filter set, shared by its enqueues; `undefined` until read, or once found stale. */
export interface FilterSetCache {
  current: FilterSet | undefined;
}

/**
 * Each message's endpoints in `set` whose filter did not give `true`, by webhook id (each distinct
 * expression run once per message). Endpoints the message would not reach anyway are among them: the
 * store's insert records exclusions for the endpoints the fan-out would have sent to only.
 */
export function excludedBySet(set: FilterSet, messages: readonly PreparedMessage[]): Map<string, number[]> {
  const excluded = new Map<string, number[]>();
  if (set.endpoints.length === 0) return excluded;
  for (const message of messages) {
    let input: FilterInput | undefined;
    const verdicts = new Map<string, boolean>();
    const out: number[] = [];
    for (const endpoint of set.endpoints) {
      let passes = verdicts.get(endpoint.filter);
      if (passes === undefined) {
        input ??= toFilterInput(message.eventType, JSON.parse(message.payload));
        passes = passesFilter(endpoint.filter, input);
        verdicts.set(endpoint.filter, passes);
      }
      if (!passes) out.push(endpoint.id);
    }
    if (out.length > 0) excluded.set(message.webhookId, out);
  }
  return excluded;
}
