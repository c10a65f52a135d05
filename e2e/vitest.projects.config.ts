import { configDefaults, type TestProjectInlineConfiguration } from "vitest/config";

// Each file starts several processes (and some a PostgreSQL): one file at a time keeps a loaded 2-core
// machine from starving them, with one exception. The files that install our packages as a stranger
// does (the tarballs; a release published to verdaccio; the embedded API's Express and Hono projects)
// wait on npm, the registry and tsc more than on each other, and hold no timing assertion: they run
// two at a time, first, where these tests always began. The registry release alone takes as long as
// the other two one after the other, so the short files that start no app and hold no timing
// assertion either (the packed tarballs' quality, the release train's and turbo's configuration, the
// event types in-process) run there too, beside it, instead of after it. The others, the
// timing-sensitive reliability tests among them, run one at a time after them. Here, not in
// vitest.config.ts, so that the root config runs the same two projects.
const installing = ["test/packaging.test.ts", "test/registry-release.test.ts", "test/embedded-api.test.ts"];
const untimed = [
  "test/package-quality.test.ts",
  "test/release-train.test.ts",
  "test/turbo-cache.test.ts",
  "test/event-types.test.ts",
];
const sideBySide = [...installing, ...untimed];

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
      include: sideBySide,
      // The tarballs, packed once for the files here that read them.
      globalSetup: ["test/fixtures/pack-tarballs.global-setup.ts"],
      // Vitest's default on 2 cores is one worker: two files at once needs saying.
      maxWorkers: 2,
      sequence: { groupOrder: 1 },
    },
  },
  {
    test: {
      ...shared,
      name: "e2e",
      include: ["test/**/*.test.ts"],
      exclude: [...configDefaults.exclude, ...sideBySide],
      fileParallelism: false,
      sequence: { groupOrder: 2 },
    },
  },
];
