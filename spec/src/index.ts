export { type ComponentSchemaName, componentJsonSchema } from "./component-json-schema.js";
export { CONTRACT_VERSION } from "./contract-version.js";
export { type OpenApiDocument, openapi } from "./openapi.js";
export type { TestVector, TestVectorVerdict } from "./test-vector.js";
export { vectors } from "./vectors.js";
