// Builds the broker and the relay into their runnable `dist/` with tsup (about a second each).
// Run by `pnpm install` (the root `prepare` script), so the apps' bins work after install, and
// by `scripts/start.mjs` before every start, so a start never runs stale code.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../", import.meta.url));

/** The apps, by folder under apps/. */
export const apps = /** @type {const} */ (["broker", "relay"]);

/** Builds both apps in parallel; resolves to true when both builds succeeded. */
export async function buildApps() {
  const tsup = createRequire(import.meta.url).resolve("tsup/dist/cli-default.js");
  const codes = await Promise.all(
    apps.map(
      (app) =>
        new Promise((resolve) => {
          const child = spawn(process.execPath, [tsup, "--silent"], { cwd: `${root}apps/${app}`, stdio: ["ignore", "inherit", "inherit"] });
          child.on("error", () => resolve(1));
          child.on("exit", (code) => resolve(code ?? 1));
        }),
    ),
  );
  return codes.every((code) => code === 0);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!(await buildApps())) {
    process.stderr.write("build-apps: the build failed (see above)\n");
    process.exit(1);
  }
}
