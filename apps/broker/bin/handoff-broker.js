#!/usr/bin/env node
// handoff-broker: runs the broker from its TypeScript sources.
import { runSource } from "../../../scripts/run-source.mjs";

runSource(new URL("../src/main.ts", import.meta.url));
