import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { calculateMetrics } from "mutation-testing-metrics";

/** The `files` of a Stryker JSON report (mutation-testing-report-schema), as the metrics library reads them. */
export type ReportFiles = Parameters<typeof calculateMetrics>[0];

/** One mutated file's score, counted as Stryker counts it. */
export interface FileMutationScore {
  file: string;
  /** Detected (killed or timed out) over valid mutants, in percent; NaN when the file has no valid mutant. */
  score: number;
  detected: number;
  /** Survived or not covered by any test. */
  undetected: number;
}

/**
 * Each file's score, by name. Stryker's own library counts them (killed + timeout over the valid mutants:
 * compile and runtime errors and ignored mutants left out), so the scores are the ones its table prints.
 */
export function mutationScores(files: ReportFiles): FileMutationScore[] {
  return Object.keys(files)
    .sort()
    .map((file) => {
      const { metrics } = calculateMetrics({ [file]: files[file] as ReportFiles[string] });
      return {
        file,
        score: metrics.mutationScore,
        detected: metrics.totalDetected,
        undetected: metrics.totalUndetected,
      };
    });
}

/** Where the check writes; the process's own streams by default. */
export interface MutationScoreOutput {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

// Two decimals, as Stryker prints them, but cut rather than rounded: 89.996 must not read as 90.00.
const shown = (score: number) => (Number.isNaN(score) ? "n/a" : (Math.floor(score * 100) / 100).toFixed(2));

/**
 * Stryker's `thresholds.break` judges the whole run only, so one file's score can fall far while the total
 * stays above it (the sender's queue/sql.ts was at 73 in a run of 94). This holds every mutated file to the
 * same number: it reads `stryker.config.json` in `dir` (the `break` threshold and the JSON reporter's file),
 * prints each file's score and resolves with 1, naming each file under it, when any is; 0 otherwise.
 */
export async function checkMutationScores(
  dir: string,
  output: MutationScoreOutput = process,
): Promise<number> {
  const config = JSON.parse(await readFile(join(dir, "stryker.config.json"), "utf8")) as {
    thresholds?: { break?: number | null };
    jsonReporter?: { fileName?: string };
  };
  const minimum = config.thresholds?.break;
  if (typeof minimum !== "number") {
    output.stderr.write(
      "stryker.config.json has no thresholds.break: the per-file check holds every file to that number\n",
    );
    return 1;
  }
  // Stryker's default when the JSON reporter is given no file name.
  const reportPath = join(dir, config.jsonReporter?.fileName ?? "reports/mutation/mutation.json");
  let report: { files?: ReportFiles };
  try {
    report = JSON.parse(await readFile(reportPath, "utf8")) as { files?: ReportFiles };
  } catch (error) {
    output.stderr.write(
      `cannot read the mutation report ${reportPath} (does stryker.config.json list the "json" reporter, and did stryker run?): ${(error as Error).message}\n`,
    );
    return 1;
  }
  if (typeof report.files !== "object" || report.files === null) {
    output.stderr.write(`${reportPath} is not a mutation testing report: it has no "files"\n`);
    return 1;
  }
  const scores = mutationScores(report.files);
  output.stdout.write(
    `Mutation score per file (at least ${minimum}, stryker.config.json's thresholds.break):\n`,
  );
  for (const { file, score, detected, undetected } of scores)
    output.stdout.write(
      `${shown(score).padStart(7)}  ${file} (${detected} detected, ${undetected} undetected)\n`,
    );
  // A file without a valid mutant has no score to fall.
  const under = scores.filter(({ score }) => score < minimum);
  if (under.length === 0) return 0;
  output.stderr.write(
    `${under.length} of ${scores.length} mutated files score under ${minimum}: ${under
      .map(({ file, score }) => `${file} ${shown(score)}`)
      .join(", ")}\n`,
  );
  return 1;
}
