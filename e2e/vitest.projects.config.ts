import { configDefaults, type TestProjectInlineConfiguration } from "vitest/config";

// Each file starts several processes (and some a PostgreSQL): one file at a time keeps a loaded 2-core
// machine from starving them, with one exception. The two files that install our packages as a
// stranger does (the tarballs; a release published to verdaccio) wait on npm, the registry and tsc
// more than on each other, and hold no timing assertion: they run side by side. They need only the
// published packages built, not the apps, so `pnpm test` runs them as a turbo task of their own
// (`test:installs`, `--project e2e-installs`) that starts as soon as those are built, beside the
// packages' tests, instead of at the end with the rest (`test`, `--project e2e`): waiting for the
// apps, they made the last 2 min 20 s of the turbo part. The others, the timing-sensitive reliability
// tests among them, run one at a time. `vitest run` here runs both projects, the installs first. Here,
// not in vitest.config.ts, so that the root config runs the same two projects.
const installing = ["test/packaging.test.ts", "test/registry-release.test.ts"];

const shared = {
  root: import.meta.dirname,
  setupFiles: ["../scripts/fail-on-console.ts"],
  testTimeout: 120_000,
  hookTimeout: 120_000,
};

export const e2eProjects: TestProjectInlineConfiguration[] = [
  {
    test: {
      ...shared,
      name: "e2e-installs",
      include: installing,
      // Vitest's default on 2 cores is one worker: both files at once needs saying.
      maxWorkers: 2,
      sequence: { groupOrder: 1 },
    },
  },
  {
    test: {
      ...shared,
      name: "e2e",
      include: ["test/**/*.test.ts"],
      exclude: [...configDefaults.exclude, ...installing],
      fileParallelism: false,
      sequence: { groupOrder: 2 },
    },
  },
];
