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
 * the known options after it would go unchecked. Values follow commander's rules: an option that
 * takes a value takes the next argument, whatever it looks like.
 */
export function splitKnownArgs(argv: readonly string[], options: readonly KnownOption[]): SplitArgs {
  const byName = new Map<string, KnownOption>();
  for (const option of options) {
    if (option.long) byName.set(option.long, option);
    if (option.short) byName.set(option.short, option);
  }
  const known: string[] = [];
  const problems: string[] = [];
  let operands = 0;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--") {
      operands += argv.length - i - 1;
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      operands++;
      continue;
    }
    const equals = arg.indexOf("=");
    const name = arg.startsWith("--") && equals !== -1 ? arg.slice(0, equals) : arg;
    const option = byName.get(name);
    if (option === undefined) {
      problems.push(`${name}: unknown option`);
      continue;
    }
    const takesValue = option.required === true || option.optional === true;
    if (!takesValue || name !== arg) {
      known.push(arg);
    } else if (i + 1 < argv.length) {
      known.push(arg, argv[++i] as string);
    } else if (option.optional) {
      known.push(arg);
    } else {
      problems.push(`${name}: needs a value`);
    }
  }
  if (operands > 0) {
    problems.push(
      `${operands} unexpected argument${operands === 1 ? "" : "s"}: every setting is a --flag (see --help)`,
    );
  }
  return { known, problems };
}
