/**
 * Test helpers for the apps' entry points and settings (`@handoff/app-kit/testing`).
 * @module
 */
export { entryPointTests, runApp, startApp, stopApp, type EntryPointCase, type Launch, type StartedApp, type TestApi } from "./app-process.js";
export { configErrorOf } from "./config-error.js";
export { findChromium } from "./chromium.js";
export { watchHandles, type HandleWatch } from "./open-handles.js";
