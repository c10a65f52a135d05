/**
 * Thrown when a webhook's payload schema uses what a catalog cannot check (or a generated type cannot
 * say): `path` is the JSON pointer of the keyword in the document, so the author knows where to look.
 */
export class UnsupportedSchemaError extends TypeError {
  readonly code = "ERR_UNSUPPORTED_SCHEMA";
  override readonly name = "UnsupportedSchemaError";
  constructor(
    readonly path: string,
    problem: string,
  ) {
    super(`The schema at ${path} ${problem}`);
  }
}
