// Builds with tsup: the broker and the relay into their runnable `dist/` (about a second each), or
// the published packages into theirs (with declarations; slower). `node scripts/build.mjs` builds
// the apps: run by `pnpm install` (the root `prepare` script), so the apps' bins work after an
// install, and by `scripts/start.mjs` before every start, so a start never runs stale code.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../", import.meta.url));

/** The apps, by folder under apps/. */
export const apps = /** @type {const} */ (["broker", "relay"]);

/** The published packages, by folder under packages/, dependencies first. */
export const packages = /** @type {const} */ (["seqlog", "mqtt-router", "qmux", "moq-resume"]);

/** Runs tsup in each folder (relative to the repository root) in parallel; true when all succeeded. */
async function tsupIn(dirs) {
  const tsup = createRequire(import.meta.url).resolve("tsup/dist/cli-default.js");
  const codes = await Promise.all(
    dirs.map(
      (dir) =>
        new Promise((resolve) => {
          const child = spawn(process.execPath, [tsup, "--silent"], { cwd: `${root}${dir}`, stdio: ["ignore", "inherit", "inherit"] });
          child.on("error", () => resolve(1));
          child.on("exit", (code) => resolve(code ?? 1));
        }),
    ),
  );
  return codes.every((code) => code === 0);
}

/** Builds both apps in parallel; resolves to true when both builds succeeded. */
export function buildApps() {
  return tsupIn(apps.map((app) => `apps/${app}`));
}

/** Builds every published package (ESM + .d.ts); resolves to true when all succeeded. */
export function buildPackages() {
  return tsupIn(packages.map((name) => `packages/${name}`));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!(await buildApps())) {
    process.stderr.write("build: the build failed (see above)\n");
    process.exit(1);
  }
}
