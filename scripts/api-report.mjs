// The published packages' public API, one report per entry point (`packages/<pkg>/api/<entry>.api.md`,
// written by API Extractor from the declarations tsc emits), checked in so that a change to what a
// consumer can import shows up in review. `node scripts/api-report.mjs` (`pnpm api:check`) fails
// when a report differs from the sources, printing the difference; `--update` (`pnpm api:update`)
// rewrites the reports. A member without its JSDoc fails both (its report would say "(undocumented)"),
// naming the source line; so does a public signature that names a type its entry point does not
// export (an internal leaking out). `--root <dir>` runs on another checkout (the test's temporary copy) and
// `--package <name>` on one package.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { packages } from "./build.mjs";

const require = createRequire(import.meta.url);
/** @type {typeof import("typescript")} */
const ts = require("typescript");
const { Extractor, ExtractorConfig } = require("@microsoft/api-extractor");

const { values: flags } = parseArgs({
  options: {
    update: { type: "boolean", default: false },
    root: { type: "string", default: fileURLToPath(new URL("../", import.meta.url)) },
    package: { type: "string", multiple: true },
  },
});
const root = flags.root;
const selected = flags.package ?? [...packages];

/** The report's base name for a subpath export: `.` is `index`, `./codec` is `codec`. */
const reportName = (subpath) => (subpath === "." ? "index" : subpath.slice(2).replaceAll("/", "-"));

/** Each published entry point of a package: its subpath, source file and report name. */
function entriesOf(name) {
  const dir = join(root, "packages", name);
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  // Only what is published: a workspace-only subpath (a /testing for the apps' fuzzers) is absent from publishConfig.
  const published = Object.keys(manifest.publishConfig?.exports ?? manifest.exports);
  return published.map((subpath) => {
    const source = manifest.exports[subpath]?.["@handoff/source"];
    if (typeof source !== "string") throw new Error(`packages/${name}: exports["${subpath}"] has no @handoff/source`);
    return { name, dir, subpath, source: join(dir, source), report: reportName(subpath) };
  });
}

/** Emits the declarations of every entry (and what they import) under `out`, mirroring the repository's layout. */
function emitDeclarations(entries, out) {
  const base = ts.getParsedCommandLineOfConfigFile(join(root, "tooling", "tsconfig", "base.json"), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => {
    throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
  } });
  if (base === undefined) throw new Error("cannot read tooling/tsconfig/base.json");
  // Declaration maps let API Extractor name the source line of what it reports, not the .d.ts line.
  const options = { ...base.options, noEmit: false, declaration: true, declarationMap: true, emitDeclarationOnly: true, rootDir: root, outDir: out };
  const program = ts.createProgram(entries.map((e) => e.source), options);
  const result = program.emit();
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...result.diagnostics];
  if (diagnostics.length > 0) {
    const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => "\n" };
    throw new Error(`declarations do not compile:\n${ts.formatDiagnostics(diagnostics, host)}`);
  }
}

/** Runs API Extractor on one entry; returns the report it would write and its messages. */
function extract(entry, out, temp) {
  const declaration = join(out, relative(root, entry.source)).replace(/\.ts$/, ".d.ts");
  const config = ExtractorConfig.prepare({
    configObject: {
      projectFolder: entry.dir,
      mainEntryPointFilePath: declaration,
      compiler: { overrideTsconfig: { compilerOptions: { target: "ES2023", lib: ["ES2023"], module: "NodeNext", moduleResolution: "NodeNext", strict: true, types: [], skipLibCheck: true }, files: [declaration] } },
      apiReport: { enabled: true, reportFileName: entry.report, reportFolder: join(temp, "expected"), reportTempFolder: join(temp, "actual") },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        compilerMessageReporting: { default: { logLevel: "warning" } },
        extractorMessageReporting: {
          default: { logLevel: "warning" },
          // No release tags: what an entry point exports is public, and nothing else is.
          "ae-missing-release-tag": { logLevel: "none" },
          // A type in a signature that its entry point does not export (an internal leaking out): a failure.
          "ae-forgotten-export": { logLevel: "warning", addToApiReportFile: false },
          // A member without its JSDoc (the report would mark it "(undocumented)"): a failure, listed apart.
          "ae-undocumented": { logLevel: "warning", addToApiReportFile: false },
          // JSDoc {@link}s name members and other entry points' exports, which TSDoc cannot resolve.
          "ae-unresolved-link": { logLevel: "none" },
        },
        // Our comments are JSDoc, not strict TSDoc (@module, {@link} to non-exported names).
        tsdocMessageReporting: { default: { logLevel: "none" } },
      },
    },
    configObjectFullPath: undefined,
    packageJsonFullPath: join(entry.dir, "package.json"),
  });
  const messages = [];
  const undocumented = [];
  const result = Extractor.invoke(config, {
    localBuild: true,
    messageCallback: (message) => {
      // "console" messages are API Extractor's own notes about the report file, which this script compares itself.
      if (message.messageId === "ae-undocumented") undocumented.push(message.formatMessageWithLocation(root));
      else if (message.category !== "console" && (message.logLevel === "warning" || message.logLevel === "error")) messages.push(message.formatMessageWithLocation(root));
      message.handled = true;
    },
  });
  // A message about a declaration names its file; without the temporary folder, so the report is stable.
  const report = readFileSync(join(temp, "actual", `${entry.report}.api.md`), "utf8").replaceAll(`${out}/`, "");
  return { report, messages, undocumented, succeeded: result.succeeded };
}

/** A unified diff of two texts (git's, which CI has). */
function diff(expectedFile, actualText, temp) {
  const actualFile = join(temp, "actual.api.md");
  writeFileSync(actualFile, actualText);
  const { stdout } = spawnSync("git", ["diff", "--no-index", "--no-color", "--", expectedFile, actualFile], { encoding: "utf8" });
  return stdout;
}

const temp = mkdtempSync(join(tmpdir(), "handoff-api-"));
mkdirSync(join(temp, "expected"));
let failed = false;
try {
  const entries = selected.flatMap(entriesOf);
  emitDeclarations(entries, join(temp, "dts"));
  for (const entry of entries) {
    const file = join(entry.dir, "api", `${entry.report}.api.md`);
    const label = `${relative(root, file)} (${entry.name}${entry.subpath === "." ? "" : entry.subpath.slice(1)})`;
    const { report, messages, undocumented, succeeded } = extract(entry, join(temp, "dts"), temp);
    // Not written even with --update: the reports stay free of "(undocumented)".
    if (undocumented.length > 0 || report.includes("(undocumented)")) {
      failed = true;
      process.stderr.write(`api: ${label}: public members without JSDoc (say why each exists, briefly):\n${undocumented.join("\n")}\n`);
      continue;
    }
    if (!succeeded || messages.length > 0) {
      failed = true;
      process.stderr.write(`api: ${label}: API Extractor failed\n${messages.join("\n")}\n`);
      continue;
    }
    let current;
    try {
      current = readFileSync(file, "utf8");
    } catch {
      current = undefined;
    }
    if (current === report) continue;
    if (flags.update) {
      mkdirSync(join(entry.dir, "api"), { recursive: true });
      writeFileSync(file, report);
      process.stdout.write(`api: updated ${label}\n`);
    } else {
      failed = true;
      const shown = current === undefined ? "(the report is missing)\n" : diff(file, report, temp);
      process.stderr.write(`api: ${label} differs from the public API of the sources:\n${shown}\n`);
    }
  }
} finally {
  rmSync(temp, { recursive: true, force: true });
}
if (failed) {
  if (!flags.update) process.stderr.write("api: the public API changed; if that is intended, run `pnpm api:update` and commit the reports.\n");
  process.exit(1);
}
if (!flags.update) process.stdout.write(`api: ${String(selected.length)} packages' reports match their sources\n`);
