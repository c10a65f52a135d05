import { type Logger, pino } from "pino";

/**
 * Paths pino replaces with "[redacted]" wherever they show up, as a second line of defence: the app
 * and the receiver library never log headers, tokens or secrets in the first place.
 */
export const REDACT_PATHS = [
  "authorization",
  "*.authorization",
  "headers.authorization",
  "req.headers.authorization",
  '*["webhook-signature"]',
  'headers["webhook-signature"]',
  'req.headers["webhook-signature"]',
  "token",
  "tokens",
  "secret",
  "secrets",
  "*.token",
  "*.tokens",
  "*.secret",
  "*.secrets",
];

/** JSON lines on stdout (or the given stream). */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  const options = {
    level,
    base: { name: "plant-receiver" },
    redact: { paths: REDACT_PATHS, censor: "[redacted]" },
  };
  return destination === undefined ? pino(options) : pino(options, destination);
}
