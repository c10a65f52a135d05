export type { CaseResult } from "./check-case.js";
export { formatCheckReport } from "./format-check-report.js";
export { InvalidCheckOptionsError } from "./invalid-check-options-error.js";
export { CHECK_EXIT, type CheckCliOutput, runCheckCli } from "./run-check-cli.js";
export {
  type CaseReport,
  type CheckReport,
  type ReceiverCheckOptions,
  runReceiverCheck,
} from "./run-receiver-check.js";
export type { FetchHandler } from "./send-to-fetch-handler.js";
