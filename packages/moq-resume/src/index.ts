/**
 * @handoff/moq-resume: a sans-I/O moq-lite codec, track model and resume across upstream
 * takeovers. The wire codec is also available alone as `@handoff/moq-resume/lite`.
 * @module
 */
export * as lite from "./lite/index.js";
