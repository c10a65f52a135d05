/** One message as `insertMessages` writes it. */
export interface MessageToInsert {
  webhookId: string;
  eventType: string | null;
  idempotencyKey: string | null;
  payload: string;
  traceparent: string | null;
  subscriberId: number | null;
  orderingKey: string | null;
  /** Endpoints whose filter excluded it (`excludedByFilters`): the fan-out queues it to none of them. */
  filteredOut?: readonly number[];
}

/** One message `insertMessages` stored (a message whose webhook id or key was taken is not among them). */
export interface InsertedMessage {
  id: number | string;
  webhook_id: string;
  deliveries: number | string;
}
