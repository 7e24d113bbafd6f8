import { readdirSync } from "node:fs";
import { defineConfig, type TestProjectInlineConfiguration } from "vitest/config";
import { TEST_TIMEOUT_MS } from "./packages/test-kit/src/patience.js";
import { SkipReasons } from "./scripts/skip-reasons.js";

// One inline project per package and app, so `vitest run` is one process and
// `vitest run --project seqlog` runs one. Paths are built from this file's URL
// because vitest walks up to this config from any package directory.
const groups = ["packages", "apps"] as const;
const projects = groups.flatMap((group) => {
  const dir = new URL(`./${group}/`, import.meta.url);
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry): TestProjectInlineConfiguration => ({
      extends: true,
      test: { name: entry.name, root: new URL(`./${entry.name}/`, dir).pathname },
    }));
});
// The workspace as a user meets it (scripts/): the launcher, the bins, deploy copies and packed packages.
projects.push({ extends: true, test: { name: "workspace", root: new URL("./scripts/", import.meta.url).pathname, include: ["*.test.ts"], globalSetup: ["./build.global-setup.ts"] } });

// Source-first: workspace packages resolve to their TypeScript sources, no build needed.
// (No "import" here: it would also reach Node for externalised CommonJS dependencies, and MQTT.js's
// `require("ws")` would then load ws's ESM wrapper, which lacks `createWebSocketStream`.)
const conditions = ["@handoff/source", "module", "node", "development|production"];

// HANDOFF_TEST_REPORT (.ci/run, pnpm test:loaded): vitest's JSON report there, and beside it the
// skipped tests with their reasons (scripts/skip-reasons.ts).
const report = process.env["HANDOFF_TEST_REPORT"];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    projects,
    include: ["src/**/*.test.ts"],
    // Safety nets, not budgets: a test is bounded by its work (runs, messages, turns), and a
    // loaded machine may take many times longer than an idle one (see test-kit's patience.ts).
    testTimeout: TEST_TIMEOUT_MS,
    // @moq/qmux 0.0.6 (inside the @moq/lite test clients) enqueues a STREAM frame that arrives after
    // its own session closed into the closed stream and rejects unhandled: a bug of the test peer,
    // not of the relay, hit at random when a test closes a client while the relay is still sending.
    onUnhandledError(error) {
      const knownQmuxBug = "code" in error && error["code"] === "ERR_INVALID_STATE" && (error.stack ?? "").includes("@moq/qmux/");
      return !knownQmuxBug;
    },
    hookTimeout: TEST_TIMEOUT_MS,
    reporters: report === undefined ? ["default"] : ["default", ["json", { outputFile: report }], new SkipReasons(report.replace(/\.json$/, ".skips.json"))],
  },
});
