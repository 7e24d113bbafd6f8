import { existsSync } from "node:fs";
import { basename } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Runs the app whose bin is `binUrl` (`<app>/bin/<command>.js`): its built `<app>/dist/main.js`,
 * or, when that is missing (a checkout whose build did not run or failed), a hint naming the
 * command and exit code 2. The command's name is the bin's file name, so one bin serves every app.
 */
export async function launch(binUrl: string): Promise<void> {
  const command = basename(fileURLToPath(binUrl), ".js");
  const main = new URL("../dist/main.js", binUrl);
  if (!existsSync(main)) {
    process.stderr.write(`${command}: not built yet; run \`pnpm build\` in the repository first\n`);
    process.exit(2);
  }
  await import(main.href);
}
