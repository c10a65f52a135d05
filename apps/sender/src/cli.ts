#!/usr/bin/env node
import { ConfigError } from "@plant-store/app-shell";
import {
  EncryptionKeyRequiredError,
  EndpointNotFoundError,
  InvalidEncryptionKeyError,
  SecretsDecryptionError,
} from "@plant-store/sender";
import { Command } from "commander";
import { deliveriesCommand, replayCommand } from "./commands/deliveries-command.js";
import { endpointsCommand } from "./commands/endpoints-command.js";
import { listenCommand } from "./commands/listen-command.js";
import { plantsCommand } from "./commands/plants-command.js";
import { resolveJsonFlag } from "./commands/resolve-json-flag.js";
import { serveCommand } from "./commands/serve-command.js";
import { NotFoundError } from "./commands/with-store.js";
import { IdempotencyConflictError } from "./idempotency-conflict-error.js";
import { InvalidPlantError } from "./invalid-plant-error.js";
import { ListenError } from "./listen-error.js";

const program = new Command("plant-store")
  .description("The Plant Store: adds plants and delivers New Plant webhooks to subscribed receivers")
  .showHelpAfterError()
  .hook("preAction", resolveJsonFlag)
  .addCommand(serveCommand())
  .addCommand(plantsCommand())
  .addCommand(endpointsCommand())
  .addCommand(deliveriesCommand())
  .addCommand(replayCommand())
  .addCommand(listenCommand());

try {
  await program.parseAsync(process.argv);
} catch (error) {
  // A missing or wrong encryption key is a setting to fix, like any other.
  if (
    error instanceof SecretsDecryptionError ||
    error instanceof InvalidEncryptionKeyError ||
    error instanceof EncryptionKeyRequiredError
  ) {
    console.error(`${error.message} (PLANT_STORE_ENCRYPTION_KEY or --encryption-key-file)`);
    process.exit(2);
  }
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(2);
  }
  // Input the store refused: the same exit code as any other invalid input.
  if (error instanceof InvalidPlantError || error instanceof IdempotencyConflictError) {
    console.error(error.message);
    process.exit(2);
  }
  if (
    error instanceof NotFoundError ||
    error instanceof EndpointNotFoundError ||
    error instanceof ListenError
  ) {
    console.error(error.message);
    process.exit(1);
  }
  console.error(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
  process.exit(1);
}
