// Builds the apps once before the launcher's tests (each test file building for itself would race:
// tsup cleans dist/ first).
import { buildApps } from "./build.mjs";

export default async function setup(): Promise<void> {
  if (!(await buildApps())) throw new Error("building the apps failed");
}
