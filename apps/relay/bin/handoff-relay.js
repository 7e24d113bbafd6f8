#!/usr/bin/env node
// handoff-relay: runs the built relay (dist/, made by `pnpm build`, which `pnpm install` runs).
// `pnpm --filter relay dev` runs the sources in watch mode instead.
import { launch } from "@handoff/app-kit/launch";

await launch("handoff-relay", new URL("../dist/main.js", import.meta.url));
