import { defineConfig } from "tsup";

export default defineConfig({
  // The mutation score check runs as a script after `stryker run` (see check-mutation-scores-cli.ts).
  entry: ["src/index.ts", "src/check-mutation-scores-cli.ts"],
  splitting: true,
  format: ["esm"],
  target: "node20",
  dts: { entry: "src/index.ts" },
  sourcemap: true,
  clean: true,
});
