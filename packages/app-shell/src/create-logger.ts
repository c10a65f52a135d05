import { type Logger, pino } from "pino";

/**
 * Paths pino replaces with "[redacted]" wherever they show up, in both apps: a second line of
 * defence, since neither app nor library logs headers, tokens or secrets in the first place.
 */
export const REDACT_PATHS = [
  "authorization",
  "*.authorization",
  "headers.authorization",
  "*.headers.authorization",
  "req.headers.authorization",
  '*["webhook-signature"]',
  'headers["webhook-signature"]',
  '*.headers["webhook-signature"]',
  'req.headers["webhook-signature"]',
  "token",
  "tokens",
  "secret",
  "secrets",
  "adminToken",
  "*.token",
  "*.tokens",
  "*.secret",
  "*.secrets",
  "*.adminToken",
];

export interface LoggerOptions {
  /** The app's name, on every line. */
  name: string;
  level?: string;
  /** Default: stdout. */
  destination?: NodeJS.WritableStream;
}

/** JSON lines, one redact list for both apps. */
export function createLogger(options: LoggerOptions): Logger {
  const settings = {
    level: options.level ?? "info",
    base: { name: options.name, pid: process.pid },
    redact: { paths: REDACT_PATHS, censor: "[redacted]" },
  };
  // Written synchronously: pino's default stdout stream writes in the thread pool, and a process that
  // exits right after a line (a clean stop's "stopped") lost it or wrote it before the line in flight.
  const destination = options.destination ?? pino.destination({ dest: 1, sync: true });
  return pino(settings, destination);
}
