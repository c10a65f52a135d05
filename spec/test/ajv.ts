import { Ajv2020 } from "ajv/dist/2020.js";

/**
 * ajv for OpenAPI 3.1 schemas: draft 2020-12, every error reported. OpenAPI's `int32`/`int64`
 * formats are annotations here: the numeric range is enforced by `minimum`/`maximum`.
 */
export function createAjv(): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  ajv.addFormat("int32", { type: "number", validate: Number.isInteger });
  ajv.addFormat("int64", { type: "number", validate: Number.isInteger });
  return ajv;
}
