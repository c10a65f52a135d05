/**
 * A pulled event could not be handled now (its handler threw, the de-duplication store failed, or a
 * pushed copy of it is still being handled): the run stopped before it without moving the cursor past
 * its page, so the next run takes it again (what was handled before it is then a duplicate).
 */
export class CatchUpHandlerError extends Error {
  override readonly name = "CatchUpHandlerError";
  readonly code = "ERR_CATCH_UP_HANDLER";
  constructor(
    readonly webhookId: string,
    readonly status: number,
    readonly reason: string,
  ) {
    super(`Event ${webhookId} was not handled (${status} ${reason}); the catch-up takes it again next run`);
  }
}
