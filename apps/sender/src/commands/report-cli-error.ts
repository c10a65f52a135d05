import { printErrorLine } from "./cli-streams.js";

/**
 * Prints a command's error the way the store's CLI always has and answers its exit code: 2 for a
 * setting or an input to fix, 1 for anything else. The error classes are imported here, once a command
 * has failed, so that a command that succeeds never loads the modules that define them.
 */
export async function reportCliError(error: unknown): Promise<number> {
  const [{ ConfigError }, sender, { NotFoundError }, { InvalidPlantError }, { ListenError }] =
    await Promise.all([
      import("@plant-store/app-shell/settings"),
      import("@plant-store/sender"),
      import("./with-store.js"),
      import("../invalid-plant-error.js"),
      import("../listen-error.js"),
    ]);
  // A missing or wrong encryption key is a setting to fix, like any other (a plain write into an
  // encrypted store included: nothing was written).
  if (
    error instanceof sender.SecretsDecryptionError ||
    error instanceof sender.InvalidEncryptionKeyError ||
    error instanceof sender.EncryptionKeyRequiredError
  ) {
    printErrorLine(`${error.message} (PLANT_STORE_ENCRYPTION_KEY or --encryption-key-file)`);
    return 2;
  }
  if (error instanceof ConfigError) {
    printErrorLine(error.message);
    return 2;
  }
  // Input the store refused (a filter that does not compile, say): the same exit code as any other
  // invalid input.
  if (
    error instanceof InvalidPlantError ||
    error instanceof sender.IdempotencyConflictError ||
    error instanceof sender.InvalidEndpointError
  ) {
    printErrorLine(error.message);
    return 2;
  }
  if (
    error instanceof NotFoundError ||
    error instanceof sender.EndpointNotFoundError ||
    error instanceof ListenError
  ) {
    printErrorLine(error.message);
    return 1;
  }
  printErrorLine(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
  return 1;
}
