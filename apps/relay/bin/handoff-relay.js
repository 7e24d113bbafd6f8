#!/usr/bin/env node
// handoff-relay: runs the built relay (dist/, made by `pnpm build`, which `pnpm install` runs).
// `pnpm --filter @handoff/relay dev` runs the sources in watch mode instead. Self-contained, not
// app-kit's launcher: the bin ships in the published @handoff/relay, which cannot depend on the
// private @handoff/app-kit (bundled into dist/ instead).
import { existsSync } from "node:fs";

const main = new URL("../dist/main.js", import.meta.url);
if (!existsSync(main)) {
  process.stderr.write("handoff-relay: not built yet; run `pnpm build` in the repository first\n");
  process.exit(2);
}
await import(main.href);
