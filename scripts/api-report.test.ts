// The API reports (packages/<pkg>/api/*.api.md) are checked here, so `pnpm test` fails when a
// package's public surface changes without its report; and the checker is shown to catch a change.
import { spawnSync } from "node:child_process";
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../", import.meta.url));
const script = join(root, "scripts", "api-report.mjs");
const work = mkdtempSync(join(tmpdir(), "handoff-api-test-"));

/** Runs the checker; its exit status and output. */
function apiReport(args: readonly string[]): { status: number | null; stdout: string; stderr: string } {
  const { status, stdout, stderr } = spawnSync(process.execPath, [script, ...args], { cwd: root, encoding: "utf8", timeout: 240_000 });
  return { status, stdout, stderr };
}

/** A copy of seqlog with what the checker reads (manifest, sources, reports, the shared tsconfig); the checker's arguments for it. */
function seqlogCopy(name: string): { copy: string; args: string[] } {
  const copy = join(work, name);
  mkdirSync(join(copy, "packages"), { recursive: true });
  cpSync(join(root, "packages", "seqlog"), join(copy, "packages", "seqlog"), { recursive: true, filter: (src) => !src.includes("node_modules") });
  cpSync(join(root, "tooling", "tsconfig"), join(copy, "tooling", "tsconfig"), { recursive: true, filter: (src) => !src.includes("node_modules") });
  symlinkSync(join(root, "node_modules"), join(copy, "node_modules"), "dir");
  return { copy, args: ["--root", copy, "--package", "seqlog"] };
}

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

describe("the public API reports", () => {
  it("match every published entry point's sources (run `pnpm api:update` after an intended change)", () => {
    const { status, stdout, stderr } = apiReport([]);
    expect(stderr).toBe("");
    expect(status).toBe(0);
    expect(stdout).toMatch(/reports match their sources/);
  }, 300_000);

  it("fail on an export the report lacks, print the difference, and pass again once updated", () => {
    const { copy, args } = seqlogCopy("changed");

    appendFileSync(join(copy, "packages", "seqlog", "src", "index.ts"), '/** Not in the report. */\nexport const EXTRA = 1;\n');
    const changed = apiReport(args);
    expect(changed.status).toBe(1);
    expect(changed.stderr).toMatch(/packages\/seqlog\/api\/index\.api\.md \(seqlog\) differs/);
    expect(changed.stderr).toMatch(/^\+export const EXTRA = 1;$/m);
    expect(changed.stderr).toMatch(/run `pnpm api:update`/);

    const updated = apiReport([...args, "--update"]);
    expect(updated.status).toBe(0);
    expect(readFileSync(join(copy, "packages", "seqlog", "api", "index.api.md"), "utf8")).toMatch(/^export const EXTRA = 1;$/m);
    expect(apiReport(args).status).toBe(0);
  }, 300_000);

  it("fail on a public member without JSDoc, naming its source line, and do not write it into the report with --update", () => {
    const { copy, args } = seqlogCopy("undocumented");
    const report = join(copy, "packages", "seqlog", "api", "index.api.md");
    const before = readFileSync(report, "utf8");
    const index = join(copy, "packages", "seqlog", "src", "index.ts");
    const line = readFileSync(index, "utf8").split("\n").length;
    appendFileSync(index, "export const UNDOCUMENTED = 1;\n");

    const checked = apiReport(args);
    expect(checked.status).toBe(1);
    expect(checked.stderr).toMatch(/packages\/seqlog\/api\/index\.api\.md \(seqlog\): public members without JSDoc/);
    expect(checked.stderr).toContain(`packages/seqlog/src/index.ts:${String(line)}:`);
    expect(checked.stderr).toMatch(/"UNDOCUMENTED"/);

    const updated = apiReport([...args, "--update"]);
    expect(updated.status).toBe(1);
    expect(readFileSync(report, "utf8")).toBe(before);
  }, 300_000);

  it("fail on a public signature that names a type its entry point does not export", () => {
    const { copy, args } = seqlogCopy("leak");
    appendFileSync(join(copy, "packages", "seqlog", "src", "index.ts"), "interface Hidden {\n  readonly x: number;\n}\n/** Leaks Hidden. */\nexport declare function leak(): Hidden;\n");
    const leaked = apiReport(args);
    expect(leaked.status).toBe(1);
    expect(leaked.stderr).toMatch(/\(ae-forgotten-export\) The symbol "Hidden" needs to be exported/);
  }, 300_000);
});
