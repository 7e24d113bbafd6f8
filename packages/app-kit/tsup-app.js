// The apps' builds, shared by apps/*/tsup.config.ts and tsup.lib.config.ts: one ESM bundle per entry point.
// Workspace packages (this one too) are bundled from their sources (the @handoff/source
// condition), so an app runs without building them first; npm dependencies stay external and load
// from the app's node_modules (better-sqlite3 is native). Plain JavaScript, because tsup loads its
// config with Node, which does not read this package's TypeScript.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * tsup options for an app whose entry point is `src/main.ts`.
 * @returns {import("tsup").Options}
 */
export function appBuild() {
  return { ...shared(), entry: { main: "src/main.ts" }, clean: true, dts: false, noExternal: [/^@handoff\//] };
}

/**
 * tsup options for an app's commands: each name in its package.json `bin` becomes bin/<name>.js,
 * this package's src/bin.ts bundled (it runs the app's dist/main.js, or says to build it when that
 * is missing). One source for every app's bin, and a published app carries it self-contained.
 * @returns {import("tsup").Options}
 */
export function binBuild() {
  const manifest = JSON.parse(readFileSync("package.json", "utf8"));
  const bin = fileURLToPath(new URL("src/bin.ts", import.meta.url));
  const entry = Object.fromEntries(Object.keys(manifest.bin ?? {}).map((name) => [name, bin]));
  return { ...shared(), entry, outDir: "bin", clean: true, dts: false, sourcemap: false };
}

/**
 * tsup options for an app's published library entry (`src/index.ts` → dist/index.js + index.d.ts),
 * built after the runnable app (which cleans dist/ first). The private @handoff/app-kit is bundled
 * in, code and types, since a published package cannot depend on it; the published @handoff/*
 * packages stay dependencies.
 * @returns {import("tsup").Options}
 */
export function libraryBuild() {
  return { ...shared(), entry: { index: "src/index.ts" }, clean: false, dts: { resolve: [/^@handoff\/app-kit/] }, noExternal: [/^@handoff\/app-kit/] };
}

/**
 * What both builds share: ESM for Node 20, source maps, workspace packages read from source.
 * @returns {import("tsup").Options}
 */
function shared() {
  return {
    format: ["esm"],
    target: "node20",
    platform: "node",
    sourcemap: true,
    esbuildOptions(options) {
      options.conditions = ["@handoff/source"];
    },
  };
}
