// The apps' runnable build, shared by apps/*/tsup.config.ts: one ESM bundle per entry point.
// Workspace packages (this one too) are bundled from their sources (the @handoff/source
// condition), so an app runs without building them first; npm dependencies stay external and load
// from the app's node_modules (better-sqlite3 is native). Plain JavaScript, because tsup loads its
// config with Node, which does not read this package's TypeScript.

/**
 * tsup options for an app whose entry point is `src/main.ts`.
 * @returns {import("tsup").Options}
 */
export function appBuild() {
  return {
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
  };
}
