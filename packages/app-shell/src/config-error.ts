/**
 * Every problem with an app's flags, environment and settings at once; each problem names the flag
 * and its environment variable, never a value (values may be secrets). The CLIs exit 2 on it.
 */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  readonly code = "ERR_INVALID_CONFIG";
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  ${p}`).join("\n")}`);
    this.problems = problems;
  }
}
