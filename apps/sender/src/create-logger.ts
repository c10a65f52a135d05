import pino, { type Logger } from "pino";

/** JSON lines on stdout. Tokens, secrets and signatures are redacted wherever they appear in a log object. */
export function createLogger(level = process.env.LOG_LEVEL ?? "info"): Logger {
  return pino({
    level,
    base: { pid: process.pid },
    redact: {
      paths: [
        "token",
        "secret",
        "secrets",
        "adminToken",
        "*.token",
        "*.secret",
        "*.secrets",
        "*.headers.authorization",
        '*.headers["webhook-signature"]',
      ],
      censor: "[redacted]",
    },
  });
}
