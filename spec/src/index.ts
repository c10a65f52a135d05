export { type ComponentSchemaName, componentJsonSchema } from "./component-json-schema.js";
export { CONTRACT_VERSION } from "./contract-version.js";
export { type OpenApiDocument, openapi } from "./openapi.js";
export { signInputVectors } from "./sign-input-vectors.js";
export type { SignInputVector, TestVector, TestVectorVerdict } from "./test-vector.js";
export { vectors } from "./vectors.js";
