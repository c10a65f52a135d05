import { type ParseArgsConfig, parseArgs } from "node:util";

/** What `splitKnownArgs` needs to know of each option (commander's `Option` has these fields). */
export interface KnownOption {
  long?: string | undefined;
  short?: string | undefined;
  /** Takes a value: the next argument, or `--name=value`. */
  required?: boolean;
  optional?: boolean;
}

export interface SplitArgs {
  /** The arguments to hand to commander: every known option, with its value. */
  known: string[];
  /** One line per argument left out; names only, never values (they may be secrets). */
  problems: string[];
}

/**
 * Separates the command-line arguments commander can parse from the ones it would stop at, so that
 * they are reported together with every invalid setting instead of alone. Commander exits at the
 * first unknown option, and once unknown options are allowed it stops parsing at the first one, so
 * the known options after it would go unchecked. Node's own `parseArgs`, not strict, reads every
 * argument (an option that takes a value takes the next argument, whatever it looks like, as
 * commander does); this only sorts what it found.
 */
export function splitKnownArgs(argv: readonly string[], options: readonly KnownOption[]): SplitArgs {
  const byName = new Map<string, KnownOption>();
  const config: ParseArgsConfig["options"] = {};
  for (const option of options) {
    const name = (option.long ?? option.short ?? "").replace(/^--?/, "");
    const short = option.short?.replace(/^-/, "");
    byName.set(name, option);
    config[name] = {
      type: option.required || option.optional ? "string" : "boolean",
      ...(short ? { short } : {}),
    };
  }
  const { tokens } = parseArgs({ args: [...argv], options: config, strict: false, tokens: true });
  const known: string[] = [];
  const problems: string[] = [];
  let operands = 0;
  for (const token of tokens) {
    if (token.kind === "positional") operands++;
    if (token.kind !== "option") continue;
    const option = byName.get(token.name);
    if (option === undefined) problems.push(`${token.rawName}: unknown option`);
    else if (token.value === undefined && option.required) problems.push(`${token.rawName}: needs a value`);
    else if (token.value === undefined) known.push(token.rawName);
    else if (token.inlineValue) known.push(`${token.rawName}=${token.value}`);
    else known.push(token.rawName, token.value);
  }
  if (operands > 0) {
    problems.push(
      `${operands} unexpected argument${operands === 1 ? "" : "s"}: every setting is a --flag (see --help)`,
    );
  }
  return { known, problems };
}
