import { appBuild } from "@handoff/app-kit/tsup";
import { defineConfig } from "tsup";

// The runnable app: app-kit's build shared by both apps (workspace packages bundled from source).
export default defineConfig(appBuild());
