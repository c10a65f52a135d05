export {
  type ApiAnswer,
  type ApiClient,
  type ApiClientOptions,
  type ApiRequest,
  createApiClient,
} from "./api/create-api-client.js";
export { joinApiUrl } from "./api/join-api-url.js";
export { ApiError, ApiUnreachableError, DocumentReadError, ListenError, SettingsError } from "./errors.js";
export { type GenerateOptions, generateWebhookModule, typeNameOf } from "./generate-webhook-module.js";
export { type ListenEvent, type ListenOptions, listen } from "./listen/listen.js";
export { readDocument } from "./read-document.js";
export { type CliOptions, type CliStreams, runCli } from "./run-cli.js";
