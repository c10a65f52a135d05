export { type AdminAppOptions, createAdminApp } from "./create-admin-app.js";
export { type RunningStore, runServe } from "./run-serve.js";
export { type ServeConfig, ServeConfigSchema } from "./serve-config.js";
