import { defineConfig } from "tsup";

// The runnable broker: one ESM bundle per entry point. Workspace packages are bundled from their
// sources (the @handoff/source condition), so the app runs without building them first; npm
// dependencies stay external and load from node_modules (better-sqlite3 is native).
export default defineConfig({
  entry: { main: "src/main.ts" },
  format: ["esm"],
  target: "node20",
  platform: "node",
  sourcemap: true,
  clean: true,
  dts: false,
  noExternal: [/^@handoff\//],
  esbuildOptions(options) {
    options.conditions = ["@handoff/source"];
  },
});
