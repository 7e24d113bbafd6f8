// The demo page as the relay serves it (its build, ./build.ts, is for build time only: it loads esbuild).
export { DemoNotBuiltError, loadDemo, type DemoFile, type DemoPage } from "./files.js";
export { DEMO_PATH, serveDemo } from "./serve.js";
