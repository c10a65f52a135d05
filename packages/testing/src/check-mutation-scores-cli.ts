// Run after `stryker run` in a package's directory (its `test:mutation` script), as
// `node node_modules/@plant-store/testing/dist/check-mutation-scores-cli.js`: not a package bin, since pnpm
// links a workspace package's bins at install time, before its dist exists.
import { checkMutationScores } from "./check-mutation-scores.js";

process.exitCode = await checkMutationScores(process.cwd());
