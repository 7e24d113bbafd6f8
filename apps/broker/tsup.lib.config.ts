import { libraryBuild } from "@handoff/app-kit/tsup";
import { defineConfig } from "tsup";
import { withCommitThread } from "./tsup.config.js";

// The published library entry: app-kit's library build shared by both apps (app-kit bundled in),
// with the commit worker's thread as the app build has it, so the library runs however dist/ was built.
export default defineConfig(withCommitThread(libraryBuild()));
