/**
 * `DeliveryClient.got` was read before got was loaded: got is imported on the first delivery (or by
 * `client.load()`), so that code which only enqueues never pays for loading it.
 */
export class DeliveryClientNotLoadedError extends Error {
  readonly code = "ERR_DELIVERY_CLIENT_NOT_LOADED";
  override readonly name = "DeliveryClientNotLoadedError";
}
