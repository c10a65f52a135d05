/** The subset of a pino logger the receiver uses; pino, or any object with these methods, fits. */
export interface ReceiverLogger {
  /** Optional: one line per accepted delivery, for loggers that want that much. */
  debug?(object: object, message?: string): void;
  info(object: object, message?: string): void;
  warn(object: object, message?: string): void;
  error(object: object, message?: string): void;
}
