// Every error the CLI raises, each with a `code`; `runCli` prints its message and exits 2.

/** The document could not be read or parsed (missing file, bad JSON or YAML, not an object). */
export class DocumentReadError extends Error {
  readonly code = "ERR_DOCUMENT_READ";
  override readonly name = "DocumentReadError";
}
