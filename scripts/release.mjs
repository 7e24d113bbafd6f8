// `pnpm release`: builds every published package (the cores, then @handoff/broker and
// @handoff/relay), then publishes the versions changesets made
// (`changeset publish`). `pnpm release --dry-run` builds and runs `pnpm publish --dry-run` over
// the same packages: everything up to the upload (packing, manifest rewriting), nothing sent.
import { spawn } from "node:child_process";
import { buildAppPackages, buildPackages } from "./build.mjs";

const dryRun = process.argv.slice(2).includes("--dry-run");

function run(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: "inherit" });
    child.on("error", () => resolve(1));
    child.on("exit", (code) => resolve(code ?? 1));
  });
}

// One after the other: the machine's cores go to one set of builds at a time.
if (!(await buildPackages()) || !(await buildAppPackages())) {
  process.stderr.write("release: the build failed (see above)\n");
  process.exit(1);
}
const code = dryRun
  ? await run("npx", ["-y", "pnpm@12.4.2", "-r", "--filter", "./packages/*", "--filter", "./apps/*", "publish", "--dry-run", "--no-git-checks"])
  : await run("npx", ["-y", "pnpm@12.4.2", "exec", "changeset", "publish"]);
process.exit(code);
