// Benchmarks for @handoff/moq-resume; each part prints its own figures.
import { benchLite } from "./lite.js";

console.log("@handoff/moq-resume");
await benchLite();
