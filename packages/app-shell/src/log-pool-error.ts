interface WarnLogger {
  warn(object: object, message: string): void;
}

/**
 * The handler for a PostgreSQL pool's `error` event (an idle connection the server ended: a restart,
 * a failover; the pool reconnects). Without a listener that event is an uncaught exception and the
 * process dies. Code and message only: pg attaches the pooled client, connection parameters and
 * password included, to these errors, and pino would print every field of `err`.
 */
export function logPoolError(logger: WarnLogger): (error: Error) => void {
  return (error) =>
    logger.warn(
      { err: { code: (error as { code?: unknown }).code, message: error.message } },
      "database connection lost",
    );
}
