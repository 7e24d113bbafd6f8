import { libraryBuild } from "@handoff/app-kit/tsup";
import { defineConfig } from "tsup";

// The published library entry: app-kit's library build shared by both apps (app-kit bundled in).
export default defineConfig(libraryBuild());
