import { appBuild, binBuild } from "@handoff/app-kit/tsup";
import { defineConfig } from "tsup";
import { buildDemo } from "./src/demo/build.js";

// The runnable relay and its bin: app-kit's builds shared by both apps (workspace packages bundled
// from source), then the demo page (`--demo`) bundled for the browser into dist/demo, after the clean.
export default defineConfig([
  {
    ...appBuild(),
    async onSuccess() {
      await buildDemo("demo", "dist/demo");
    },
  },
  binBuild(),
]);
