import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { DeniedSummary, LimitSummary } from "./log-summary.js";

interface Line {
  readonly level: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}

function capture(): { log: pino.Logger; lines: Line[] } {
  const lines: Line[] = [];
  const log = pino({ level: "info" }, { write: (text: string) => lines.push(JSON.parse(text) as Line) });
  return { log, lines };
}

const INFO = 30;
const WARN = 40;

describe("DeniedSummary", () => {
  it("logs one info line per client and kind once 10 s have passed, with the count", () => {
    const { log, lines } = capture();
    const summary = new DeniedSummary(log, 0);
    for (let i = 0; i < 500; i++) summary.note("publish", "x");
    summary.note("subscribe", "x");
    summary.note("publish", "y");
    summary.flush(9_999);
    expect(lines).toEqual([]);
    summary.flush(10_000);
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      [INFO, "500 publishes denied for client x in the last 10 s"],
      [INFO, "1 subscriptions denied for client x in the last 10 s"],
      [INFO, "1 publishes denied for client y in the last 10 s"],
    ]);
    expect(lines[0]).toMatchObject({ clientId: "x", kind: "publish", denied: 500, seconds: 10 });
  });

  it("starts a new interval after each summary and says nothing when nothing was denied", () => {
    const { log, lines } = capture();
    const summary = new DeniedSummary(log, 0);
    summary.note("publish", "x");
    summary.flush(10_000);
    summary.flush(20_000);
    summary.note("publish", "x");
    summary.flush(25_000);
    summary.flush(30_000);
    expect(lines.map((l) => l.msg)).toEqual(["1 publishes denied for client x in the last 10 s", "1 publishes denied for client x in the last 10 s"]);
  });

  it("sums up the clients past 1000 in one line, so many client ids cannot grow it", () => {
    const { log, lines } = capture();
    const summary = new DeniedSummary(log, 0);
    for (let i = 0; i < 1500; i++) summary.note("publish", `c${String(i)}`);
    summary.flush(10_000);
    expect(lines).toHaveLength(1001);
    expect(lines.at(-1)?.msg).toBe("500 publishes denied for 1000+ other clients in the last 10 s");
  });
});

describe("LimitSummary", () => {
  it("logs a warning per limit that refused something in the interval, naming its setting", () => {
    const { log, lines } = capture();
    const counts: Record<string, number> = { sessions: 2, "retained-messages": 0 };
    const summary = new LimitSummary(log, () => counts, { sessions: "limits.maxSessions" }, 0);
    counts["sessions"] = 5;
    counts["retained-messages"] = 1;
    summary.flush(5_000);
    expect(lines).toEqual([]);
    summary.flush(10_000);
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      [WARN, "limit reached: 3 refused by limits.maxSessions in the last 10 s"],
      [WARN, "limit reached: 1 refused by retained-messages in the last 10 s"],
    ]);
    summary.flush(20_000);
    expect(lines).toHaveLength(2);
  });
});
