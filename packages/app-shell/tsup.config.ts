import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts", "src/settings.ts", "src/http.ts"],
  format: ["esm"],
  target: "node20",
  dts: true,
  sourcemap: true,
  clean: true,
});
