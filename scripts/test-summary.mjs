#!/usr/bin/env node
/**
 * Sums vitest runs up, for .ci/run and `pnpm test:loaded`. Each argument is `<root>=<report>`: a
 * JSON report of `vitest run` (HANDOFF_TEST_REPORT) made in the checkout at <root>, with the
 * skipped tests' reasons beside it (`<report>.skips.json`, see skip-reasons.ts).
 *
 *   node scripts/test-summary.mjs counts <root>=<report>...  prints "<passed> <failed>"
 *   node scripts/test-summary.mjs list <root>=<report>...    lists the skipped tests with their
 *     reasons, then the failed tests
 *
 * A test counts once however many runs ran it (one per Node line in CI): it failed if it failed in
 * any run, else it passed if it passed in one. A test file that failed outside its tests (it did
 * not load, a hook threw) counts as one failed test of its own. A missing report counts nothing:
 * lint or typecheck failed before the tests ran, which the caller reports.
 */
import { existsSync, readFileSync } from "node:fs";
import { relative } from "node:path";

/** @typedef {{ file: string, name: string, state: "passed" | "failed" | "skipped", reason?: string }} Outcome */

/**
 * The outcomes of one run, by "<file> > <name>".
 * @param {string} arg `<root>=<report>`
 * @returns {Map<string, Outcome>}
 */
function outcomesOf(arg) {
  const at = arg.indexOf("=");
  const root = arg.slice(0, at);
  const report = arg.slice(at + 1);
  /** @type {Map<string, Outcome>} */
  const outcomes = new Map();
  if (!existsSync(report)) return outcomes;
  const skipsFile = report.replace(/\.json$/, ".skips.json");
  /** @type {{ file: string, name: string, reason: string }[]} */
  const skips = existsSync(skipsFile) ? JSON.parse(readFileSync(skipsFile, "utf8")) : [];
  const reasons = new Map(skips.map((s) => [`${s.file} > ${s.name}`, s.reason]));
  const json = JSON.parse(readFileSync(report, "utf8"));
  for (const result of json.testResults) {
    const file = relative(root, result.name);
    let failedTests = 0;
    /** Tests of one file that share a name, numbered (#2, #3, ...) so each still counts. */
    const seen = new Map();
    for (const test of result.assertionResults) {
      const title = [...test.ancestorTitles, test.title].join(" > ");
      const nth = (seen.get(title) ?? 0) + 1;
      seen.set(title, nth);
      const name = nth === 1 ? title : `${title} #${String(nth)}`;
      const key = `${file} > ${name}`;
      const state = test.status === "passed" ? "passed" : test.status === "failed" ? "failed" : "skipped";
      if (state === "failed") failedTests += 1;
      outcomes.set(key, { file, name, state, reason: state === "skipped" ? (reasons.get(`${file} > ${title}`) ?? "no reason given") : undefined });
    }
    if (result.status === "failed" && failedTests === 0) {
      const name = `(the file itself: ${(result.message || "failed outside its tests").split("\n")[0]})`;
      outcomes.set(`${file} > ${name}`, { file, name, state: "failed" });
    }
  }
  return outcomes;
}

/**
 * One outcome per test over all runs: failed in any beats passed in any beats skipped.
 * @param {Map<string, Outcome>[]} runs
 */
function merged(runs) {
  const rank = { skipped: 0, passed: 1, failed: 2 };
  /** @type {Map<string, Outcome>} */
  const all = new Map();
  for (const run of runs) {
    for (const [key, outcome] of run) {
      const had = all.get(key);
      if (had === undefined || rank[outcome.state] > rank[had.state]) all.set(key, outcome);
    }
  }
  return [...all.values()];
}

/** @param {Outcome[]} outcomes */
function count(outcomes, state) {
  return outcomes.filter((o) => o.state === state).length;
}

const [command, ...args] = process.argv.slice(2);
const outcomes = merged(args.map(outcomesOf));
if (command === "counts") {
  console.log(`${String(count(outcomes, "passed"))} ${String(count(outcomes, "failed"))}`);
} else if (command === "list") {
  const skipped = outcomes.filter((o) => o.state === "skipped");
  const failed = outcomes.filter((o) => o.state === "failed");
  if (skipped.length > 0) console.log(`skipped (${String(skipped.length)}):\n${skipped.map((o) => `  ${o.file} > ${o.name}: ${o.reason ?? ""}`).join("\n")}`);
  if (failed.length > 0) console.log(`failed (${String(failed.length)}):\n${failed.map((o) => `  ${o.file} > ${o.name}`).join("\n")}`);
} else {
  console.error("usage: test-summary.mjs counts|list <root>=<report>...");
  process.exit(2);
}
