import { Ajv2020 } from "ajv/dist/2020.js";

/**
 * ajv for OpenAPI 3.1 schemas: draft 2020-12, strict. OpenAPI's `int32`/`int64` formats are
 * annotations here: the numeric ranges are enforced by `minimum`/`maximum` in the document.
 */
export function createAjv(): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  ajv.addFormat("int32", { type: "number", validate: Number.isInteger });
  ajv.addFormat("int64", { type: "number", validate: Number.isInteger });
  return ajv;
}
