/**
 * A vitest reporter that writes every skipped test with its reason to a JSON file beside vitest's
 * own report (`<report>.skips.json` for `<report>.json`), for .ci/run and `pnpm test:loaded` to
 * list (test-summary.mjs reads it). The reason is the test's own
 * `ctx.skip(note)`, or else what its file printed when it decided to skip: a test that needs an
 * optional tool (redis-server, python3, chromium, mosquitto's clients, docker) says on the console
 * that it is skipped and why when the tool is missing.
 * @module
 */
import { writeFileSync } from "node:fs";
import { relative } from "node:path";
import type { UserConsoleLog } from "vitest";
import type { Reporter, TestModule } from "vitest/node";

/** One skipped test, as written. */
export interface SkippedTest {
  /** The test file, relative to the directory vitest runs in (the workspace root). */
  readonly file: string;
  readonly name: string;
  readonly reason: string;
}

export class SkipReasons implements Reporter {
  readonly #out: string;
  /** Console lines that say "skipped", by the id of the test file (or test) that printed them. */
  readonly #said = new Map<string, string[]>();

  /** Writes to `out`. */
  constructor(out: string) {
    this.#out = out;
  }

  onUserConsoleLog(log: UserConsoleLog): void {
    if (log.taskId === undefined || !/\bskipped\b/.test(log.content)) return;
    const lines = this.#said.get(log.taskId) ?? [];
    lines.push(log.content.trim());
    this.#said.set(log.taskId, lines);
  }

  onTestRunEnd(modules: readonly TestModule[]): void {
    const skipped: SkippedTest[] = [];
    for (const module of modules) {
      const said = this.#said.get(module.id)?.join("; ");
      for (const test of module.children.allTests("skipped")) {
        const result = test.result();
        const note = result.state === "skipped" ? result.note : undefined;
        skipped.push({ file: relative(process.cwd(), module.moduleId), name: test.fullName, reason: note ?? this.#said.get(test.id)?.join("; ") ?? said ?? "no reason given" });
      }
    }
    writeFileSync(this.#out, `${JSON.stringify(skipped, null, 1)}\n`);
  }
}
