// What each app's bin (apps/*/bin/*.js) runs: the app's built bundle, or a hint to build it first.
// Plain JavaScript, loaded by Node itself (the bins run before and outside any build), so it is a
// runtime dependency of the apps while the rest of this package is bundled into them.
import { existsSync } from "node:fs";

/**
 * Runs the built entry point `main` of the command `name`; exits 2 with a hint when it is not built.
 * @param {string} name the command, for the hint (e.g. `handoff-broker`)
 * @param {URL} main the built entry point (the app's `dist/main.js`)
 * @returns {Promise<void>}
 */
export async function launch(name, main) {
  if (!existsSync(main)) {
    process.stderr.write(`${name}: not built yet; run \`pnpm build\` in the repository first\n`);
    process.exit(2);
  }
  await import(main.href);
}
