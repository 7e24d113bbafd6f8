import { appBuild, binBuild } from "@handoff/app-kit/tsup";
import { defineConfig } from "tsup";

// The runnable app and its bin: app-kit's builds shared by both apps (workspace packages bundled from source).
export default defineConfig([appBuild(), binBuild()]);
