#!/usr/bin/env node
// handoff-relay: runs the built relay (dist/, made by `pnpm build`, which `pnpm install` runs).
// `pnpm --filter relay dev` runs the sources in watch mode instead.
try {
  await import("../dist/main.js");
} catch (err) {
  if (err instanceof Error && "code" in err && err.code === "ERR_MODULE_NOT_FOUND" && err.message.includes("dist/main.js")) {
    process.stderr.write("handoff-relay: not built yet; run `pnpm build` in the repository first\n");
    process.exit(2);
  }
  throw err;
}
