/**
 * The database refused a plant's values (PostgreSQL's data exceptions, SQLSTATE class 22: a NUL
 * character, a value too long for a column an operator narrowed). The same bytes would fail on every
 * retry, so the webhook is answered 400, not 500: a 500 would have the sender retry for its whole
 * schedule (28 hours by default) without a chance of success.
 */
export class PlantNotStorableError extends Error {
  override readonly name = "PlantNotStorableError";
  readonly code = "ERR_PLANT_NOT_STORABLE";
  constructor(cause: unknown) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    super(`Invalid NewPlant: a value cannot be stored (${detail})`, { cause });
  }
}
