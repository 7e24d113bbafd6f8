// Benchmarks for @handoff/moq-resume; each part prints its own figures.
import { benchLite } from "./lite.js";
import { benchResume } from "./resume.js";

console.log("@handoff/moq-resume");
await benchLite();
await benchResume();
