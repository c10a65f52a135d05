/** The plant's New Plant payload does not satisfy the contract (`NewPlantSchema`): nothing was added. */
export class InvalidPlantError extends Error {
  readonly code = "ERR_INVALID_PLANT";
  override readonly name = "InvalidPlantError";
}
