import type { Subscriber } from "@plant-store/sender";

/** Who a request acts for: the store's operator, who sees everything, or one subscriber. */
export type Principal = { kind: "operator" } | { kind: "subscriber"; subscriber: Subscriber };
