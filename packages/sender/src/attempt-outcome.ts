/** What became of one attempt, as stored: the delivery delivered, to be retried, failed, or its endpoint disabled. */
export type AttemptOutcome = "delivered" | "retrying" | "failed" | "disabled";
