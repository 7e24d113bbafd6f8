// The published packages as a consumer outside the workspace gets them: built, packed with
// `pnpm pack`, installed from the tarballs with plain npm into a fresh project (no workspace links,
// no @handoff/source condition), then imported, type-checked and run there. Also publint and
// @arethetypeswrong/cli on each package, and the release's dry run.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildPackages, packages } from "./build.mjs";
import { pnpm, sh } from "./commands.test-helpers.js";

const root = fileURLToPath(new URL("../", import.meta.url));
const bin = (name: string): string => join(root, "node_modules", ".bin", name);
const work = mkdtempSync(join(tmpdir(), "handoff-packages-"));
const packs = join(work, "packs");
const consumer = join(work, "consumer");

interface Manifest {
  readonly name: string;
  readonly version: string;
  readonly exports: Record<string, Record<string, string>>;
  readonly publishConfig?: { readonly exports?: Record<string, Record<string, string>> };
  readonly [field: string]: unknown;
}

const manifest = (dir: string): Manifest => JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;
const packageDir = (name: string): string => join(root, "packages", name);
/** Every import specifier a consumer can use: the package and each published subpath export (workspace-only ones, such as a `/testing` for the apps' fuzzers, are not published). */
const specifiers = (m: Manifest): string[] => Object.keys(m.publishConfig?.exports ?? m.exports).map((key) => (key === "." ? m.name : `${m.name}/${key.slice(2)}`));

/** The first ```ts block under a package README's "## Quick start" heading. */
function quickStart(name: string): string {
  const text = readFileSync(join(packageDir(name), "README.md"), "utf8");
  const section = text.split(/^## /m).find((s) => s.startsWith("Quick start"));
  const code = section?.match(/```ts\n([\s\S]*?)```/)?.[1];
  if (code === undefined) throw new Error(`packages/${name}/README.md has no "## Quick start" with a ts block`);
  return code;
}

beforeAll(async () => {
  expect(await buildPackages()).toBe(true);
  for (const name of packages) await pnpm(["pack", "--pack-destination", packs], { cwd: packageDir(name) });
  const tarballs = readdirSync(packs).filter((f) => f.endsWith(".tgz"));
  const dependencies = Object.fromEntries(packages.map((name) => [manifest(packageDir(name)).name, `file:${join(packs, tarballs.find((t) => t.startsWith(`handoff-${name}-`)) ?? "missing")}`]));
  mkdirSync(consumer);
  writeFileSync(join(consumer, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module", dependencies }, null, 2));
  await sh("npm", ["install", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"], { cwd: consumer, timeoutMs: 180_000 });
}, 400_000);

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

describe("the published packages, installed from their tarballs", () => {
  it("ship only what a consumer needs, with the manifest fields registries and tools read", () => {
    for (const name of packages) {
      const installed = manifest(join(consumer, "node_modules", "@handoff", name));
      expect(installed).toMatchObject({ type: "module", sideEffects: false, license: "MIT", engines: { node: ">=20.19" } });
      expect(installed["repository"]).toMatchObject({ type: "git", directory: `packages/${name}` });
      expect(installed["files"]).toEqual(["dist", "README.md", "LICENSE"]);
      // No development-only condition (the workspace's @handoff/source points at sources not shipped).
      for (const conditions of Object.values(installed.exports)) expect(Object.keys(conditions)).toEqual(["types", "import"]);
      expect(JSON.stringify(installed["dependencies"] ?? {})).not.toMatch(/workspace:/);
      const files = readdirSync(join(consumer, "node_modules", "@handoff", name));
      expect(files.sort()).toEqual(["LICENSE", "README.md", "dist", "package.json"]);
    }
  });

  it("import as ESM from plain Node, every entry point and subpath export", async () => {
    const all = packages.flatMap((name) => specifiers(manifest(packageDir(name))));
    const script = `for (const s of ${JSON.stringify(all)}) { const m = await import(s); if (Object.keys(m).length === 0) throw new Error(s + " exports nothing"); console.log(s, Object.keys(m).length); }`;
    writeFileSync(join(consumer, "imports.mjs"), script);
    const { stdout } = await sh(process.execPath, ["imports.mjs"], { cwd: consumer });
    expect(stdout.trim().split("\n").map((line) => line.split(" ")[0])).toEqual(all);
  });

  it.each(["node16", "bundler"] as const)("type-check a strict consumer and the READMEs' quick starts under moduleResolution %s", async (resolution) => {
    const lines = packages.flatMap((name) => specifiers(manifest(packageDir(name))).map((s, i) => `import * as m${name.replace(/-/g, "_")}${String(i)} from "${s}";`));
    const uses = packages.flatMap((name) => specifiers(manifest(packageDir(name))).map((_s, i) => `m${name.replace(/-/g, "_")}${String(i)}`));
    writeFileSync(join(consumer, `consumer-${resolution}.ts`), `${lines.join("\n")}\nexport const modules = [${uses.join(", ")}];\n`);
    // Each README's quick start as its own module, as a user would paste it.
    const quickStarts = packages.map((name) => {
      const file = `quick-start-${name}-${resolution}.ts`;
      writeFileSync(join(consumer, file), quickStart(name));
      return file;
    });
    const module = resolution === "node16" ? "node16" : "esnext";
    const tsconfig = {
      compilerOptions: { strict: true, noEmit: true, target: "es2022", lib: ["es2023", "dom"], module, moduleResolution: resolution, types: [], skipLibCheck: false, noUncheckedIndexedAccess: true, exactOptionalPropertyTypes: true },
      files: [`consumer-${resolution}.ts`, ...quickStarts],
    };
    writeFileSync(join(consumer, `tsconfig.${resolution}.json`), JSON.stringify(tsconfig));
    await sh(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", `tsconfig.${resolution}.json`], { cwd: consumer });
  }, 60_000);

  it.each([...packages])("run the %s README's quick start as written", async (name) => {
    const file = join(consumer, `quick-start-${name}.ts`);
    writeFileSync(file, quickStart(name));
    // tsx resolves the imports from the file's folder: the consumer's node_modules, not the workspace
    await sh(bin("tsx"), [file], { cwd: consumer });
  }, 60_000);

  it.each([...packages])("%s passes publint (strict) and @arethetypeswrong/cli", async (name) => {
    await sh(bin("publint"), ["--strict", packageDir(name)], { cwd: root });
    // ESM only: CommonJS resolution (node10, node16 from require) is out of scope by design. attw
    // packs with npm, which keeps the workspace-only subpaths pnpm drops: name the published ones.
    const m = manifest(packageDir(name));
    await sh(bin("attw"), ["--pack", packageDir(name), "--profile", "esm-only", "--entrypoints", ...Object.keys(m.publishConfig?.exports ?? m.exports)], { cwd: root });
  }, 60_000);

  it("the release's dry run builds and packs every package without publishing", async () => {
    const { stdout, stderr } = await sh(process.execPath, [join(root, "scripts", "release.mjs"), "--dry-run"], { cwd: root, timeoutMs: 300_000 });
    for (const name of packages) expect(`${stdout}${stderr}`).toMatch(new RegExp(`Skip publishing @handoff/${name}@`));
  }, 300_000);
});
