import { defineConfig } from "tsup";

// The published library entry (dist/index.js + index.d.ts), built after the runnable app (which
// cleans dist/ first). The private @handoff/app-kit is bundled in, code and types, since a
// published package cannot depend on it; the published @handoff/* packages stay dependencies.
export default defineConfig({
  entry: { index: "src/index.ts" },
  format: ["esm"],
  target: "node20",
  platform: "node",
  sourcemap: true,
  clean: false,
  dts: { resolve: [/^@handoff\/app-kit/] },
  noExternal: [/^@handoff\/app-kit/],
  esbuildOptions(options) {
    options.conditions = ["@handoff/source"];
  },
});
