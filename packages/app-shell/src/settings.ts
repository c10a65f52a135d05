// The settings half of the shell on its own entry point (`@plant-store/app-shell/settings`): a command
// that only validates its flags loads zod's types and these few functions, not pino, prom-client or
// the sender, which the package's main entry brings with the logger, the registry and durations.
export { ConfigError } from "./config-error.js";
export { describeProblem, parseSettings, prefixedSources, type SettingSource } from "./parse-settings.js";
