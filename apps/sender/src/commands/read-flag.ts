/** A flag from `flagOption`: `true` when given on the command line, else its environment variable's raw text. */
export function readFlag(given: unknown, envVar: string): true | string | undefined {
  return given === true ? true : process.env[envVar];
}
