/**
 * Reads a V8 `.cpuprofile` (node --cpu-prof; the benches write one per server with BENCH_PROF=<dir>)
 * and prints the functions with the most self time, and the files, over the loaded part of the run:
 * by default from just after the last module load to the end (so start-up and compilation stay
 * out); `--from <s> --to <s>` sets it by hand.
 * Percentages are of the busy (non-idle) samples in the window.
 *
 * Run: tsx bench/profile-top.ts <file.cpuprofile> [--top 25] [--from s --to s]
 * @module
 */
import { existsSync, readFileSync } from "node:fs";
import { SourceMap, type SourceMapPayload } from "node:module";
import { fileURLToPath } from "node:url";

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number; readonly columnNumber: number };
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const args = process.argv.slice(2);
const file = args.find((a, i) => !a.startsWith("--") && !(args[i - 1] ?? "").startsWith("--"));
if (file === undefined) {
  console.error("usage: profile-top <file.cpuprofile> [--top N] [--from s --to s]");
  process.exit(2);
}
const flag = (name: string): number | undefined => {
  const i = args.indexOf(`--${name}`);
  return i < 0 ? undefined : Number(args[i + 1]);
};
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
// "(program)" (VM work outside JavaScript) and "(garbage collector)" count as busy.
const IDLE = new Set(["(idle)"]);

// Sample times in ms from the first sample.
const times: number[] = [];
let t = 0;
for (const d of profile.timeDeltas) {
  t += d / 1000;
  times.push(t);
}
const isBusy = (i: number): boolean => !IDLE.has(byId.get(profile.samples[i] ?? -1)?.callFrame.functionName ?? "(idle)");

// From a quarter second after the last module load (start-up: compile, tsx, config) to the end;
// idle samples count in no percentage, so the quiet stretches around the load do not matter.
function loadedWindow(): [number, number] {
  let lastLoad = 0;
  profile.samples.forEach((id, i) => {
    if (byId.get(id)?.callFrame.url.startsWith("node:internal/modules") === true) lastLoad = times[i] ?? 0;
  });
  return [lastLoad + 250, (times.at(-1) ?? 0) + 1];
}

// The benches run the built broker (dist/*.js with source maps): a bundled frame is reported at
// its source file and line, as if it ran from source.
const maps = new Map<string, SourceMap | undefined>();
function mapOf(url: string): SourceMap | undefined {
  if (!maps.has(url)) {
    const path = url.startsWith("file://") ? `${fileURLToPath(url)}.map` : undefined;
    maps.set(url, path !== undefined && existsSync(path) ? new SourceMap(JSON.parse(readFileSync(path, "utf8")) as SourceMapPayload) : undefined);
  }
  return maps.get(url);
}
function original(frame: ProfileNode["callFrame"]): { url: string; line: number } {
  const entry = mapOf(frame.url)?.findEntry(frame.lineNumber, frame.columnNumber);
  if (entry === undefined || !("originalSource" in entry)) return { url: frame.url, line: frame.lineNumber };
  return { url: entry.originalSource, line: entry.originalLine };
}

const from = flag("from");
const to = flag("to");
const [lo, hi] = from !== undefined && to !== undefined ? [from * 1000, to * 1000] : loadedWindow();
const shortUrl = (url: string): string => url.replace(/^file:\/\//, "").replace(/^.*\/node_modules\/\.pnpm\/[^/]+\/node_modules\//, "").replace(/^.*?\/(apps|packages)\//, "$1/");
const self = new Map<string, number>();
const files = new Map<string, number>();
let busy = 0;
let all = 0;
profile.samples.forEach((id, i) => {
  const at = times[i] ?? 0;
  if (at < lo || at >= hi) return;
  all++;
  if (!isBusy(i)) return;
  busy++;
  const frame = byId.get(id)?.callFrame;
  if (frame === undefined) return;
  const source = original(frame);
  const url = frame.url === "" ? "(native)" : shortUrl(source.url);
  const line = url === "(native)" ? "" : `:${String(source.line + 1)}`;
  const key = `${url}${line} ${frame.functionName === "" ? "(anonymous)" : frame.functionName}`;
  self.set(key, (self.get(key) ?? 0) + 1);
  files.set(url, (files.get(url) ?? 0) + 1);
});
const top = flag("top") ?? 25;
const pct = (n: number): string => `${((100 * n) / Math.max(1, busy)).toFixed(1)}%`.padStart(6);
console.log(`${file}: window ${(lo / 1000).toFixed(2)}-${(hi / 1000).toFixed(2)} s, busy ${((100 * busy) / Math.max(1, all)).toFixed(0)}% of ${String(all)} samples`);
console.log("self time by function (% of busy samples):");
for (const [k, n] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${pct(n)}  ${k}`);
console.log("self time by file:");
for (const [k, n] of [...files].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`  ${pct(n)}  ${k}`);
