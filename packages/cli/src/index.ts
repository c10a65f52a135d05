export { DocumentReadError } from "./errors.js";
export { type GenerateOptions, generateWebhookModule, typeNameOf } from "./generate-webhook-module.js";
export { readDocument } from "./read-document.js";
export { type CliStreams, runCli } from "./run-cli.js";
