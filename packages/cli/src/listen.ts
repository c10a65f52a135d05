// `@plant-store/cli/listen`: `listen` alone, for a program embedding it (the Plant Store's `plant-store
// listen`) without loading the code generator the package's index brings.
export { ListenError } from "./errors.js";
export { type ListenEvent, type ListenOptions, listen } from "./listen/listen.js";
