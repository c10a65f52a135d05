/** A group of plants whose COMMIT the server answered with something else (it had rolled back): nothing was added. */
export class GroupNotCommittedError extends Error {
  readonly code = "ERR_GROUP_NOT_COMMITTED";
  override readonly name = "GroupNotCommittedError";

  constructor(answer: string) {
    super(`the group's COMMIT was answered with ${answer}: nothing was added`);
  }
}
