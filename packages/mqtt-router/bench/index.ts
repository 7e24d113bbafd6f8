// Benchmarks for @handoff/mqtt-router: `pnpm --filter @handoff/mqtt-router bench`.
import { runCodecBench, runUtf8Bench } from "./codec.js";
import { benchRouter } from "./router.js";

await runUtf8Bench();
await runCodecBench();
await benchRouter();
