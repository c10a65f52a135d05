/**
 * The top-level command a command line names, as commander will dispatch it: the first argument that is
 * not an option (the program itself takes no option with a value), or for `help <command>` the command
 * after it. `undefined` when none is named (`--help`, or nothing at all).
 */
export function invokedCommandName(args: readonly string[]): string | undefined {
  const operands = args.filter((arg) => !arg.startsWith("-"));
  return operands[0] === "help" ? operands[1] : operands[0];
}
