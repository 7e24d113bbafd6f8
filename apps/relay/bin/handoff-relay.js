#!/usr/bin/env node
// handoff-relay: runs the relay from its TypeScript sources.
import { runSource } from "../../../scripts/run-source.mjs";

runSource(new URL("../src/main.ts", import.meta.url));
