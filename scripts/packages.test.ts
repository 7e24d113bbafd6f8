// The published packages as a consumer outside the workspace gets them: built, packed with
// `pnpm pack`, installed from the tarballs with plain npm into a fresh project (no workspace links,
// no @handoff/source condition), then imported, type-checked and run there. Also publint and
// @arethetypeswrong/cli on each package, and the release's dry run. The cores (packages/*) and the
// servers (apps/*, published as @handoff/broker and @handoff/relay: library and CLI).
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apps, buildAppPackages, buildPackages, packages } from "./build.mjs";
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
/** Every published package by its name after `@handoff/`, with its folder: the cores, then the servers. */
const folders = new Map<string, string>([...packages.map((name) => [name, `packages/${name}`] as const), ...apps.map((app) => [app, `apps/${app}`] as const)]);
const published = [...folders.keys()];
const servers: readonly string[] = apps;
const packageDir = (name: string): string => join(root, folders.get(name) ?? `packages/${name}`);
/** Every import specifier a consumer can use: the package and each published subpath export (workspace-only ones, such as a `/testing` for the apps' fuzzers, are not published). */
const specifiers = (m: Manifest): string[] => Object.keys(m.publishConfig?.exports ?? m.exports).map((key) => (key === "." ? m.name : `${m.name}/${key.slice(2)}`));

/** The first ```ts block under a package README's "## Quick start" heading. */
function quickStart(name: string): string {
  const text = readFileSync(join(packageDir(name), "README.md"), "utf8");
  const section = text.split(/^## /m).find((s) => s.startsWith("Quick start"));
  const code = section?.match(/```ts\n([\s\S]*?)```/)?.[1];
  if (code === undefined) throw new Error(`${folders.get(name) ?? name}/README.md has no "## Quick start" with a ts block`);
  return code;
}

beforeAll(async () => {
  expect(await buildPackages()).toBe(true);
  expect(await buildAppPackages()).toBe(true);
  for (const name of published) await pnpm(["pack", "--pack-destination", packs], { cwd: packageDir(name) });
  const tarballs = readdirSync(packs).filter((f) => f.endsWith(".tgz"));
  const tarballOf = (name: string): string => tarballs.find((t) => t.startsWith(`handoff-${name}-`)) ?? "missing";
  // The servers' npm dependencies come from the registry; @types/node for consumers of their types.
  const typesNode = manifest(join(root, "node_modules", "@types", "node")).version;
  const dependencies = { ...Object.fromEntries(published.map((name) => [manifest(packageDir(name)).name, `file:${join(packs, tarballOf(name))}`])), "@types/node": typesNode };
  mkdirSync(consumer);
  writeFileSync(join(consumer, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module", dependencies }, null, 2));
  // --ignore-scripts: better-sqlite3's native build is not needed to import the broker or to run
  // it on memory storage (the binding loads when a database opens).
  await sh("npm", ["install", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"], { cwd: consumer, timeoutMs: 300_000 });
}, 600_000);

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

describe("the published packages, installed from their tarballs", () => {
  it("ship only what a consumer needs, with the manifest fields registries and tools read", () => {
    for (const name of published) {
      const installed = manifest(join(consumer, "node_modules", "@handoff", name));
      const server = servers.includes(name);
      expect(installed).toMatchObject({ type: "module", sideEffects: false, license: "MIT", engines: { node: ">=20.19" }, types: "./dist/index.d.ts" });
      expect(installed["repository"]).toMatchObject({ type: "git", directory: folders.get(name) });
      expect(installed["files"]).toEqual(server ? ["bin", "dist", "README.md", "LICENSE"] : ["dist", "README.md", "LICENSE"]);
      // The servers keep their commands; the private @handoff/app-kit is bundled, never a dependency.
      if (server) expect(installed["bin"]).toEqual({ [`handoff-${name}`]: `./bin/handoff-${name}.js` });
      expect(Object.keys({ ...(installed["dependencies"] as object | undefined) })).not.toContain("@handoff/app-kit");
      // No development-only condition (the workspace's @handoff/source points at sources not shipped).
      for (const conditions of Object.values(installed.exports)) expect(Object.keys(conditions)).toEqual(["types", "import"]);
      expect(JSON.stringify(installed["dependencies"] ?? {})).not.toMatch(/workspace:/);
      const files = readdirSync(join(consumer, "node_modules", "@handoff", name));
      expect(files.sort()).toEqual(server ? ["LICENSE", "README.md", "bin", "dist", "package.json"] : ["LICENSE", "README.md", "dist", "package.json"]);
    }
  });

  it("import as ESM from plain Node, every entry point and subpath export", async () => {
    const all = published.flatMap((name) => specifiers(manifest(packageDir(name))));
    const script = `for (const s of ${JSON.stringify(all)}) { const m = await import(s); if (Object.keys(m).length === 0) throw new Error(s + " exports nothing"); console.log(s, Object.keys(m).length); }`;
    writeFileSync(join(consumer, "imports.mjs"), script);
    const { stdout } = await sh(process.execPath, ["imports.mjs"], { cwd: consumer });
    expect(stdout.trim().split("\n").map((line) => line.split(" ")[0])).toEqual(all);
  });

  // The cores' types need nothing of Node's (types: []); the servers' name Node's streams and
  // requests, so their consumer has @types/node.
  it.each([
    ["cores", "node16"],
    ["cores", "bundler"],
    ["servers", "node16"],
    ["servers", "bundler"],
  ] as const)("type-check a strict consumer of the %s and their READMEs' quick starts under moduleResolution %s", async (set, resolution) => {
    const names = set === "cores" ? [...packages] : [...servers];
    const lines = names.flatMap((name) => specifiers(manifest(packageDir(name))).map((s, i) => `import * as m${name.replace(/-/g, "_")}${String(i)} from "${s}";`));
    const uses = names.flatMap((name) => specifiers(manifest(packageDir(name))).map((_s, i) => `m${name.replace(/-/g, "_")}${String(i)}`));
    const entry = `consumer-${set}-${resolution}.ts`;
    writeFileSync(join(consumer, entry), `${lines.join("\n")}\nexport const modules = [${uses.join(", ")}];\n`);
    // Each README's quick start as its own module, as a user would paste it.
    const quickStarts = names.map((name) => {
      const file = `quick-start-${name}-${resolution}.ts`;
      writeFileSync(join(consumer, file), quickStart(name));
      return file;
    });
    const module = resolution === "node16" ? "node16" : "esnext";
    const tsconfig = {
      compilerOptions: { strict: true, noEmit: true, target: "es2022", lib: ["es2023", "dom"], module, moduleResolution: resolution, types: set === "cores" ? [] : ["node"], skipLibCheck: false, noUncheckedIndexedAccess: true, exactOptionalPropertyTypes: true },
      files: [entry, ...quickStarts],
    };
    writeFileSync(join(consumer, `tsconfig.${set}.${resolution}.json`), JSON.stringify(tsconfig));
    // The servers' declarations pull in Node's, zod's and pino's: a minute or more on a busy machine.
    await sh(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", `tsconfig.${set}.${resolution}.json`], { cwd: consumer, timeoutMs: 240_000 });
  }, 250_000);

  it.each(published)("run the %s README's quick start as written", async (name) => {
    const file = join(consumer, `quick-start-${name}.ts`);
    writeFileSync(file, quickStart(name));
    // tsx resolves the imports from the file's folder: the consumer's node_modules, not the workspace
    await sh(bin("tsx"), [file], { cwd: consumer });
  }, 60_000);

  it.each(published)("%s passes publint (strict) and @arethetypeswrong/cli", async (name) => {
    await sh(bin("publint"), ["--strict", packageDir(name)], { cwd: root });
    // ESM only: CommonJS resolution (node10, node16 from require) is out of scope by design. attw
    // packs with npm, which keeps the workspace-only subpaths pnpm drops: name the published ones.
    const m = manifest(packageDir(name));
    await sh(bin("attw"), ["--pack", packageDir(name), "--profile", "esm-only", "--entrypoints", ...Object.keys(m.publishConfig?.exports ?? m.exports)], { cwd: root });
  }, 60_000);

  it("the release's dry run builds and packs every package without publishing", async () => {
    const { stdout, stderr } = await sh(process.execPath, [join(root, "scripts", "release.mjs"), "--dry-run"], { cwd: root, timeoutMs: 300_000 });
    for (const name of published) expect(`${stdout}${stderr}`).toMatch(new RegExp(`Skip publishing @handoff/${name}@`));
  }, 300_000);
});
