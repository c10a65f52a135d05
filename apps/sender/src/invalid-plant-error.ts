/** The plant's New Plant payload does not satisfy the contract (`NewPlantSchema`): nothing was added. */
export class InvalidPlantError extends Error {
  readonly code = "ERR_INVALID_PLANT";
  /** The admin API's answer. */
  readonly status = 400;
  override readonly name = "InvalidPlantError";
}
