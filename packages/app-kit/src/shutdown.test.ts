import { EventEmitter } from "node:events";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { stopOnSignals, type StopSignal } from "./shutdown.js";

/** A process stand-in: signals are emitted by the test, exits recorded. */
class FakeProcess extends EventEmitter {
  readonly exits: number[] = [];
  exit(code: number): void {
    this.exits.push(code);
  }
}

function setup(stop: (signal: StopSignal) => Promise<void>) {
  const target = new FakeProcess();
  const lines: { msg: string; signal?: string; sessions?: number }[] = [];
  const log = pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line) as { msg: string }) });
  const hangups: number[] = [];
  stopOnSignals({ name: "app", log, stop, target, fields: () => ({ sessions: 3 }), hangup: () => hangups.push(1) });
  return { target, lines, hangups };
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe("stopOnSignals", () => {
  it("stops once on SIGINT, logs stopping and stopped, and exits 0", async () => {
    const signals: StopSignal[] = [];
    const { target, lines } = setup((signal) => {
      signals.push(signal);
      return Promise.resolve();
    });
    target.emit("SIGINT");
    target.emit("SIGINT");
    target.emit("SIGTERM");
    await settle();
    expect([signals, target.exits, lines.map((line) => [line.msg, line.signal, line.sessions])]).toEqual([
      ["SIGINT"],
      [0],
      [
        ["app stopping", "SIGINT", 3],
        ["app stopped", undefined, undefined],
      ],
    ]);
  });

  it("stops as on SIGTERM when the supervisor's IPC channel goes away", async () => {
    const signals: StopSignal[] = [];
    const { target } = setup((signal) => {
      signals.push(signal);
      return Promise.resolve();
    });
    target.emit("disconnect");
    await settle();
    expect([signals, target.exits]).toEqual([["SIGTERM"], [0]]);
  });

  it("exits 1 when stopping fails", async () => {
    const { target, lines } = setup(() => Promise.reject(new Error("stuck")));
    target.emit("SIGTERM");
    await settle();
    expect([target.exits, lines.at(-1)?.msg]).toEqual([[1], "app failed to stop cleanly"]);
  });

  it("hands SIGHUP to the app instead of stopping", async () => {
    const { target, hangups } = setup(() => Promise.resolve());
    target.emit("SIGHUP");
    await settle();
    expect([hangups, target.exits]).toEqual([[1], []]);
  });
});
