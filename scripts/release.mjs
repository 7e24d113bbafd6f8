// `pnpm release`: builds every published package, then publishes the versions changesets made
// (`changeset publish`). `pnpm release --dry-run` builds and runs `pnpm publish --dry-run` over
// the same packages: everything up to the upload (packing, manifest rewriting), nothing sent.
import { spawn } from "node:child_process";
import { buildPackages } from "./build.mjs";

const dryRun = process.argv.slice(2).includes("--dry-run");

function run(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: "inherit" });
    child.on("error", () => resolve(1));
    child.on("exit", (code) => resolve(code ?? 1));
  });
}

if (!(await buildPackages())) {
  process.stderr.write("release: the build failed (see above)\n");
  process.exit(1);
}
const code = dryRun
  ? await run("npx", ["-y", "pnpm@12.4.2", "-r", "--filter", "./packages/*", "publish", "--dry-run", "--no-git-checks"])
  : await run("npx", ["-y", "pnpm@12.4.2", "exec", "changeset", "publish"]);
process.exit(code);
