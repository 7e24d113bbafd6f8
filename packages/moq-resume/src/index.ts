/**
 * @handoff/moq-resume: a sans-I/O moq-lite codec, track model and resume across upstream
 * takeovers. The wire codec is also available alone as `@handoff/moq-resume/lite` (and as the
 * `lite` namespace here, so its names never clash with the model's).
 * @module
 */
export * as lite from "./lite/index.js";
export * from "./model/index.js";
export * from "./resume/index.js";
