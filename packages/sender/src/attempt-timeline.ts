/** One minute of attempts (`Outbox.attemptTimeline`): what a "deliveries per minute" bar is made of. */
export interface AttemptMinute {
  /** The minute's first millisecond (Unix time, a multiple of 60,000). */
  start: Date;
  /** Attempts started in the minute, whatever their outcome. */
  attempts: number;
  /** Those the endpoint answered with a 2xx. */
  succeeded: number;
}

/** One endpoint's attempt latencies over the window. */
export interface EndpointLatency {
  endpointId: number;
  attempts: number;
  /** Nearest-rank percentiles of the attempts' `durationMs` (answers, errors and timeouts alike). */
  p50Ms: number;
  p95Ms: number;
}

/** The attempts started since a time, for charts: per minute, and latency per endpoint. */
export interface AttemptTimeline {
  /** Only minutes with at least one attempt, oldest first. */
  minutes: AttemptMinute[];
  /** Only endpoints with at least one attempt, by id. */
  endpoints: EndpointLatency[];
}
