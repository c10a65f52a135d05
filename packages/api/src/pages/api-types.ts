// What the pages read of the admin API's answers (docs: the admin API's OpenAPI document).

export interface Endpoint {
  id: number;
  url: string;
  status: "active" | "disabled";
  disabledReason: string | null;
  verified: boolean;
  subscriberId: number | null;
  rateLimit: number | null;
  failingSince: string | null;
  secretCount: number;
  eventTypes: string[] | null;
  signatureHeaders: "standard" | "svix";
  /** Names only: every value is masked by the API. */
  headers: Record<string, string>;
  filter: string | null;
  filteredCount: number;
}

export interface Health {
  endpointId: number;
  successRate: number | null;
  succeeded: number;
  attempts: number;
}

export interface Delivery {
  id: number;
  webhookId: string;
  endpointId: number;
  eventType: string | null;
  status: "pending" | "delivered" | "failed";
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  updatedAt: string;
}

export interface Attempt {
  attempt: number;
  startedAt: string;
  status: number | null;
  durationMs: number;
  outcome: string;
  error: string | null;
  responseBody: string | null;
}

export interface DeliveryDetails {
  attempts: Attempt[];
}

export interface Verification {
  verified: boolean;
  message?: string;
  reason?: string;
}

/** What a page shows, from its last poll. */
export interface Latest {
  endpoints: Endpoint[];
  health: Health[];
  deliveries: Delivery[];
}
