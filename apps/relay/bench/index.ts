/**
 * Relay benchmark: 1 publisher → 1, 100 and 1000 subscribers over WebSocket on loopback, against a plain
 * `ws` broadcast server relaying the same bytes. Prints delivered groups/s and frames/s, p50/p99
 * latency (publish → subscriber read) and the server's RSS, and the relay/ws ratios.
 * The relay and the ws server each run in their own process; clients run here.
 * Run: pnpm --filter relay bench
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import * as Moq from "@moq/lite";
import WebSocket from "ws";
import { connect, installPolyfills } from "../src/e2e/harness.js";
import { rawSubscriber, type RawSubscriber } from "../src/e2e/raw-subscriber.js";

const GROUPS_PER_S = 50;
const FRAMES_PER_GROUP = 5;
const FRAME_BYTES = 1000;
const SECONDS = 4;
const appDir = new URL("../", import.meta.url).pathname;

interface Result {
  cpuS: number;
  /** CPU of this process (the clients) while the relay ran; the clients are heavier than ws ones. */
  clientCpuS?: number;
  groups: number;
  frames: number;
  latencies: number[];
  rssMiB: number;
  seconds: number;
}

function rssMiB(pid: number | undefined): number {
  if (pid === undefined) return 0;
  const line = readFileSync(`/proc/${String(pid)}/status`, "utf8").split("\n").find((l) => l.startsWith("VmRSS:"));
  return Number(line?.replace(/\D+/g, "") ?? 0) / 1024;
}

/** User+system CPU seconds the process used so far. */
function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return 0;
  const fields = readFileSync(`/proc/${String(pid)}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11] ?? 0) + Number(fields[12] ?? 0)) / 100;
}

function frame(seq: number): Uint8Array {
  const out = new Uint8Array(FRAME_BYTES);
  const view = new DataView(out.buffer);
  view.setFloat64(0, performance.timeOrigin + performance.now());
  view.setUint32(8, seq);
  return out;
}

function latencyOf(payload: Uint8Array): number {
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  return performance.timeOrigin + performance.now() - view.getFloat64(0);
}

async function spawnServer(args: string[], ready: RegExp): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, args, { cwd: appDir, stdio: ["ignore", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout });
  for await (const line of lines) {
    const m = ready.exec(line);
    if (m?.[1] !== undefined) {
      // Keep draining the child's logs so a full pipe never blocks it.
      child.stdout.resume();
      return { child, port: Number(m[1]) };
    }
  }
  throw new Error("server exited before listening");
}

async function runRelay(subscribers: number): Promise<Result> {
  const { child, port } = await spawnServer(
    [...(process.env["BENCH_PROF"] === undefined ? [] : ["--cpu-prof", "--cpu-prof-dir=/tmp/prof"]), "--import", "tsx", "--conditions=@handoff/source", "src/main.ts", "--host", "127.0.0.1", "--port", "0", "--log-level", "info"],
    /"http":(\d+)/,
  );
  try {
    const pub = await connect(port, "", "lite-04");
    const broadcast = new Moq.Broadcast();
    pub.publish(Moq.Path.from("bench/bench"), broadcast);
    await new Promise((r) => setTimeout(r, 200));
    const result: Result = { cpuS: 0, groups: 0, frames: 0, latencies: [], rssMiB: 0, seconds: SECONDS };
    const sockets: RawSubscriber[] = [];
    for (let i = 0; i < subscribers; i++) {
      sockets.push(
        await rawSubscriber(port, {
          path: "bench",
          broadcast: "bench",
          track: "data",
          onFrame: (p) => {
            result.frames += 1;
            result.latencies.push(latencyOf(p));
          },
          onGroup: () => (result.groups += 1),
        }),
      );
    }
    const req = await broadcast.requested();
    if (!req) throw new Error("track not requested");
    await new Promise((r) => setTimeout(r, 300));
    const cpuBefore = cpuSeconds(child.pid);
    const clientBefore = process.cpuUsage();
    await drive(GROUPS_PER_S * SECONDS, (g) => {
      const group = req.track.appendGroup();
      for (let f = 0; f < FRAMES_PER_GROUP; f++) group.writeFrame(frame(g));
      group.close();
    });
    await new Promise((r) => setTimeout(r, 500));
    result.rssMiB = rssMiB(child.pid);
    result.cpuS = cpuSeconds(child.pid) - cpuBefore;
    const client = process.cpuUsage(clientBefore);
    result.clientCpuS = (client.user + client.system) / 1e6;
    for (const s of sockets) s.close();
    pub.close();
    return result;
  } finally {
    child.kill("SIGINT");
  }
}

const WS_SERVER = `
import { WebSocketServer } from "ws";
const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
wss.on("listening", () => console.log("port=" + wss.address().port));
wss.on("connection", (ws, req) => {
  if (req.url === "/pub") ws.on("message", (data) => { for (const c of wss.clients) if (c !== ws) c.send(data); });
});`;

async function runWs(subscribers: number): Promise<Result> {
  const { child, port } = await spawnServer(["--input-type=module", "-e", WS_SERVER], /port=(\d+)/);
  try {
    const result: Result = { cpuS: 0, groups: 0, frames: 0, latencies: [], rssMiB: 0, seconds: SECONDS };
    const subs: WebSocket[] = [];
    for (let i = 0; i < subscribers; i++) {
      const ws = new WebSocket(`ws://127.0.0.1:${String(port)}/sub`);
      await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
      ws.on("message", (data: Buffer) => {
        const p = new Uint8Array(data);
        result.frames += 1;
        // One message per frame; the first frame of a group counts the group.
        if (p[12] === 0) result.groups += 1;
        result.latencies.push(latencyOf(p));
      });
      subs.push(ws);
    }
    const pub = new WebSocket(`ws://127.0.0.1:${String(port)}/pub`);
    await new Promise((resolve, reject) => pub.once("open", resolve).once("error", reject));
    const cpuBefore = cpuSeconds(child.pid);
    await drive(GROUPS_PER_S * SECONDS, (g) => {
      for (let f = 0; f < FRAMES_PER_GROUP; f++) {
        const p = frame(g);
        p[12] = f;
        pub.send(p);
      }
    });
    await new Promise((r) => setTimeout(r, 500));
    result.rssMiB = rssMiB(child.pid);
    result.cpuS = cpuSeconds(child.pid) - cpuBefore;
    for (const s of subs) s.terminate();
    pub.terminate();
    return result;
  } finally {
    child.kill("SIGINT");
  }
}

/** Calls `send(g)` for g = 0..count-1 at GROUPS_PER_S. */
async function drive(count: number, send: (g: number) => void): Promise<void> {
  const start = performance.now();
  for (let g = 0; g < count; g++) {
    const due = start + (g * 1000) / GROUPS_PER_S;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    send(g);
  }
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

function summary(r: Result): { groupsPerS: number; framesPerS: number; p50: number; p99: number; rss: number; cpu: number; clientCpu: number } {
  const sorted = [...r.latencies].sort((a, b) => a - b);
  return { groupsPerS: r.groups / r.seconds, framesPerS: r.frames / r.seconds, p50: pct(sorted, 50), p99: pct(sorted, 99), rss: r.rssMiB, cpu: (100 * r.cpuS) / r.seconds, clientCpu: (100 * (r.clientCpuS ?? 0)) / r.seconds };
}

async function main(): Promise<void> {
  installPolyfills();
  // @moq/qmux 0.0.6 can enqueue into a stream controller it already closed when frames race its
  // teardown (an uncaught TypeError ERR_INVALID_STATE); that only ends the client, not the run.
  process.on("uncaughtException", (err: Error & { code?: string }) => {
    if (err.code !== "ERR_INVALID_STATE") throw err;
  });
  for (const level of ["debug", "log", "info", "warn"] as const) console[level] = () => undefined;
  // "fatal error running connection undefined" was @moq/lite logging its own clean close: when a
  // run ends, @moq/qmux 0.0.6 errors the open streams of a session closed without an error with
  // `undefined` (it passes its unset close error), so @moq/lite's run loop rejects with it. Not
  // a relay failure; any other error still prints.
  const error = console.error.bind(console);
  console.error = (...args: unknown[]) => {
    if (args[0] === "fatal error running connection" && args[1] === undefined) return;
    error(...args);
  };
  const out = (line: string): boolean => process.stdout.write(`${line}\n`);
  out(`publish: ${String(GROUPS_PER_S)} groups/s x ${String(FRAMES_PER_GROUP)} frames x ${String(FRAME_BYTES)} B for ${String(SECONDS)} s`);
  for (const n of (process.env["BENCH_SUBS"] ?? "1,100,1000").split(",").map(Number)) {
    const relay = summary(await runRelay(n));
    const ws = summary(await runWs(n));
    const f = (x: number): string => x.toFixed(1);
    out(`\n${String(n)} subscriber(s)`);
    out(`  relay : ${f(relay.groupsPerS)} groups/s  ${f(relay.framesPerS)} frames/s  p50 ${f(relay.p50)} ms  p99 ${f(relay.p99)} ms  RSS ${f(relay.rss)} MiB  server CPU ${f(relay.cpu)} %  (client CPU ${f(relay.clientCpu)} %)`);
    out(`  ws    : ${f(ws.groupsPerS)} groups/s  ${f(ws.framesPerS)} frames/s  p50 ${f(ws.p50)} ms  p99 ${f(ws.p99)} ms  RSS ${f(ws.rss)} MiB  server CPU ${f(ws.cpu)} %`);
    out(`  ratio relay/ws: frames/s ${(relay.framesPerS / ws.framesPerS).toFixed(2)}  p50 ${(relay.p50 / ws.p50).toFixed(2)}  p99 ${(relay.p99 / ws.p99).toFixed(2)}  RSS ${(relay.rss / ws.rss).toFixed(2)}`);
  }
  process.exit(0);
}

void main();
