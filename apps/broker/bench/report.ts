/**
 * Plain-text tables for the load and memory results.
 * @module
 */
import type { BurstResult } from "./burst.js";
import type { ScenarioResult } from "./load.js";
import type { MemoryResult } from "./memory.js";

/** Prints rows as an aligned table (first row is the header). */
export function printTable(title: string, rows: readonly (readonly string[])[]): void {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  const line = (row: readonly string[]): string =>
    row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join("  ");
  console.log(`\n${title}`);
  const [header, ...body] = rows;
  if (header === undefined) return;
  console.log(line(header));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const row of body) console.log(line(row));
}

const int = (n: number): string => Math.round(n).toLocaleString("en-US");
const ms = (n: number | undefined): string => (n === undefined ? "-" : n.toFixed(n < 10 ? 2 : 1));
const mib = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);

/** One scenario: a row per broker, with handoff's throughput as a multiple of aedes'. */
export function printScenario(title: string, results: readonly { readonly broker: string; readonly result: ScenarioResult }[]): void {
  const aedes = results.find((r) => r.broker === "aedes")?.result;
  const rows = [["broker", "status", "sent/s", "delivered msgs/s", "delivered %", "p50 ms", "p99 ms", "broker CPU", "generator CPU", "msgs/s vs aedes"]];
  const notes: string[] = [];
  for (const { broker, result: r } of results) {
    const ratio = aedes !== undefined && aedes.deliveredPerSec > 0 && broker !== "aedes" ? `x${(r.deliveredPerSec / aedes.deliveredPerSec).toFixed(2)}` : "-";
    rows.push([
      broker,
      r.status,
      int(r.sentPerSec),
      int(r.deliveredPerSec),
      (r.deliveredRatio * 100).toFixed(1),
      ms(r.p50Ms),
      ms(r.p99Ms),
      r.brokerCpu === undefined ? "in-proc" : `${Math.round(r.brokerCpu * 100)}%`,
      `${Math.round(r.generatorCpu * 100)}%`,
      ratio,
    ]);
    if (r.detail !== undefined) notes.push(`  ${broker}: ${r.detail}`);
  }
  printTable(title, rows);
  for (const n of notes) console.log(n);
}

/** The idle-connection memory table. */
export function printMemory(results: readonly { readonly broker: string; readonly result: MemoryResult }[]): void {
  const rows = [["broker", "connected", "RSS idle MiB", "RSS loaded MiB", "KiB/conn", "RSS after close MiB", "RSS 2nd round MiB", "connects/s"]];
  const notes: string[] = [];
  for (const { broker, result: r } of results) {
    const per = r.connected > 0 ? (r.rssLoadedBytes - r.rssIdleBytes) / r.connected / 1024 : 0;
    rows.push([broker, `${r.connected}/${r.requested}`, mib(r.rssIdleBytes), mib(r.rssLoadedBytes), per.toFixed(2), mib(r.rssAfterCloseBytes), mib(r.rssSecondRoundBytes), int(r.connectsPerSec)]);
    if (r.error !== undefined) notes.push(`  ${broker}: ${r.error}`);
  }
  printTable("Memory: broker RSS per idle MQTT 3.1.1 connection", rows);
  for (const n of notes) console.log(n);
}

/** The overload probe table. */
export function printBurst(title: string, results: readonly { readonly broker: string; readonly result: BurstResult }[]): void {
  const rows = [["broker", "status", "written msgs/s", "delivered msgs/s", "peak RSS MiB", "next CONNACK after s"]];
  const notes: string[] = [];
  for (const { broker, result: r } of results) {
    rows.push([broker, r.status, int(r.writtenPerSec), int(r.deliveredPerSec), mib(r.peakRssBytes), r.recoverySec === undefined ? "never" : r.recoverySec.toFixed(1)]);
    if (r.detail !== undefined) notes.push(`  ${broker}: ${r.detail}`);
  }
  printTable(title, rows);
  for (const n of notes) console.log(n);
}
