import { appBuild, binBuild } from "@handoff/app-kit/tsup";
import { defineConfig, type Options } from "tsup";

/**
 * Adds the SQLite commit worker's thread to a build as an entry of its own: a worker starts from a
 * file, dist/commit-worker-thread.js beside the bundle (see src/storage/commit-worker-start.ts).
 * Declarations stay those of the build's own entries: the thread has nothing a user imports.
 */
export function withCommitThread(build: Options): Options {
  const { entry, dts } = build;
  if (entry === undefined || Array.isArray(entry)) throw new Error("the broker's builds name their entries");
  return {
    ...build,
    entry: { ...entry, "commit-worker-thread": "src/storage/commit-worker-thread.ts" },
    ...(typeof dts === "object" ? { dts: { ...dts, entry } } : {}),
  };
}

// The runnable app and its bin: app-kit's builds shared by both apps (workspace packages bundled from source).
export default defineConfig([withCommitThread(appBuild()), binBuild()]);
