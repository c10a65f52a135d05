import { openapi } from "./openapi.js";

/** The contract's own version (`info.version`): it changes only when the wire contract changes, not with the packages. */
export const CONTRACT_VERSION = openapi.info.version;
