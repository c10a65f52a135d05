#!/usr/bin/env node
import { reportCliError } from "./commands/report-cli-error.js";
import { createProgram } from "./create-program.js";

try {
  const program = await createProgram(process.argv.slice(2));
  await program.parseAsync(process.argv);
} catch (error) {
  process.exit(await reportCliError(error));
}
