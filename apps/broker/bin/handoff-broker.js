#!/usr/bin/env node
// handoff-broker: runs the built broker (dist/, made by `pnpm build`, which `pnpm install` runs).
// `pnpm --filter broker dev` runs the sources in watch mode instead.
import { launch } from "@handoff/app-kit/launch";

await launch("handoff-broker", new URL("../dist/main.js", import.meta.url));
