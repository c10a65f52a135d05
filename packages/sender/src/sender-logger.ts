/** The logging the library does, pino-compatible (`logger.info(fields, message)`). Optional everywhere. */
export interface SenderLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}
