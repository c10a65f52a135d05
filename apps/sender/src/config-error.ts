/** Invalid settings: the message lists every problem at once. The CLI exits 2. */
export class ConfigError extends Error {
  readonly code = "ERR_CONFIG";
  override readonly name = "ConfigError";
}
