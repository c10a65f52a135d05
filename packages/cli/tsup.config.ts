import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts", "src/cli.ts", "src/listen.ts"],
  splitting: true,
  format: ["esm"],
  target: "node20",
  dts: { entry: ["src/index.ts", "src/listen.ts"] },
  sourcemap: true,
  clean: true,
});
