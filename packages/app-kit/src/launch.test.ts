import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const launcher = new URL("../launch.js", import.meta.url).href;
const dir = mkdtempSync(join(tmpdir(), "handoff-launch-"));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Runs a bin that launches `main` as `name`, the way apps/*\/bin/*.js do. */
function bin(name: string, main: string): { status: number | null; stdout: string; stderr: string } {
  const script = `import { launch } from ${JSON.stringify(launcher)}; await launch(${JSON.stringify(name)}, new URL(${JSON.stringify(pathToFileURL(main).href)}));`;
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: 10_000 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe("launch", () => {
  it("runs the built entry point", () => {
    const main = join(dir, "main.js");
    writeFileSync(main, 'process.stdout.write("started\\n");\n');
    expect(bin("handoff-demo", main)).toEqual({ status: 0, stdout: "started\n", stderr: "" });
  });

  it("exits 2 with a hint to build when there is no build", () => {
    const run = bin("handoff-demo", join(dir, "missing", "main.js"));
    expect(run.status).toBe(2);
    expect(run.stderr).toBe("handoff-demo: not built yet; run `pnpm build` in the repository first\n");
  });
});
