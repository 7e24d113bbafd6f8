// Builds with tsup: the broker and the relay into their runnable `dist/` (about a second each), or
// the published packages into theirs (with declarations; slower). `node scripts/build.mjs` builds
// the apps: run by `pnpm install` (the root `prepare` script), so the apps' bins work after an
// install, and by `scripts/start.mjs` before every start, so a start never runs stale code.
// `node scripts/build.mjs --if-stale <app>` (an app's `start` script) builds that app only when a
// source it bundles is newer than its dist/main.js.
import { spawn } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../", import.meta.url));

/** The apps, by folder under apps/. */
export const apps = /** @type {const} */ (["broker", "relay"]);

/** The published packages, by folder under packages/, dependencies first. */
export const packages = /** @type {const} */ (["seqlog", "mqtt-router", "qmux", "moq-resume", "moq-relay"]);

/** Runs tsup (with `args`) in each folder (relative to the repository root) in parallel; true when all succeeded. */
async function tsupIn(dirs, args = []) {
  const tsup = createRequire(import.meta.url).resolve("tsup/dist/cli-default.js");
  const codes = await Promise.all(
    dirs.map(
      (dir) =>
        new Promise((resolve) => {
          const child = spawn(process.execPath, [tsup, "--silent", ...args], { cwd: `${root}${dir}`, stdio: ["ignore", "inherit", "inherit"] });
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

/**
 * Builds the apps as the packages @handoff/broker and @handoff/relay publish them: the runnable
 * app (which cleans dist/), then the library entry with its declarations (tsup.lib.config.ts).
 */
export async function buildAppPackages() {
  const dirs = apps.map((app) => `apps/${app}`);
  return (await tsupIn(dirs)) && tsupIn(dirs, ["--config", "tsup.lib.config.ts"]);
}

/** The newest modification time (ms) of the files under a path; 0 when it does not exist. */
function newest(path) {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of readdirSync(path)) {
    if (entry === "node_modules" || entry === "dist") continue;
    latest = Math.max(latest, newest(`${path}/${entry}`));
  }
  return latest;
}

/** True when the app's dist/main.js is missing or older than anything its build reads. */
export function appIsStale(app) {
  const built = newest(`${root}apps/${app}/dist/main.js`);
  if (built === 0) return true;
  const own = ["src", "demo", "package.json", "tsup.config.ts"].map((name) => `${root}apps/${app}/${name}`);
  const inputs = [...own, ...[...packages, "app-kit"].map((name) => `${root}packages/${name}/src`), `${root}packages/app-kit/tsup-app.js`];
  return inputs.some((input) => newest(input) > built);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const staleOnly = process.argv[2] === "--if-stale";
  const app = process.argv[3];
  if (staleOnly) {
    if (!apps.includes(app)) {
      process.stderr.write(`build: --if-stale takes one of ${apps.join(", ")}\n`);
      process.exit(2);
    }
    if (appIsStale(app) && !(await tsupIn([`apps/${app}`]))) {
      process.stderr.write(`build: the ${app} build failed (see above)\n`);
      process.exit(1);
    }
  } else if (!(await buildApps())) {
    process.stderr.write("build: the build failed (see above)\n");
    process.exit(1);
  }
}
