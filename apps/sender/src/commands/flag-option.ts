import { Option } from "commander";

/**
 * A boolean flag whose environment variable is read by `readFlag` and parsed by `BooleanSetting`,
 * not by commander: commander's `.env()` sets a boolean flag whenever the variable exists, whatever it says.
 */
export function flagOption(flags: string, description: string, envVar: string): Option {
  return new Option(flags, `${description} (env: ${envVar}=true|false)`);
}
