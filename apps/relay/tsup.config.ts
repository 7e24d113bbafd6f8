import { defineConfig } from "tsup";
import { buildDemo } from "./src/demo/build.js";

// The runnable relay: one ESM bundle per entry point. Workspace packages are bundled from their
// sources (the @handoff/source condition), so the app runs without building them first; npm
// dependencies stay external and load from node_modules. Then the demo page (`--demo`) is bundled
// for the browser into dist/demo, after the clean.
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
  async onSuccess() {
    await buildDemo("demo", "dist/demo");
  },
});
