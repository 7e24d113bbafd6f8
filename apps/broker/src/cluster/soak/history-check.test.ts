import { describe, expect, it } from "vitest";
import { FaultTimeline } from "./fault-timeline.js";
import { checkHistory, willOwed } from "./history-check.js";
import type { Connection, Lifetime, Mode, SentMessage } from "./history.js";

const RESUME: Mode = { clean: false, expiry: 300 };
const CLEAN: Mode = { clean: true, expiry: 0 };

function conn(attempt: number, mode: Mode, delaySeconds: number | undefined, outcome: Connection["outcome"] = "connected"): Connection {
  const will = delaySeconds === undefined ? undefined : { topic: `w/${String(attempt)}`, delaySeconds };
  return { clientId: "c", id: 0, attempt, node: "n0", mode, will, drain: false, stalled: false, started: attempt * 100, outcome, connected: attempt * 100 + 10, got: [] };
}

describe("the will oracle", () => {
  it("owes a will without delay once whatever follows, unless the suite ended it with DISCONNECT", () => {
    const attempts = [conn(0, RESUME, 0), conn(1, RESUME, 0)];
    expect(willOwed(attempts, 0)).toBe("once");
    expect(willOwed(attempts, 1)).toBe("once");
    attempts[1] = { ...conn(1, RESUME, 0), disconnected: true };
    expect(willOwed(attempts, 1)).toBe("never");
  });

  it("owes a delayed will once when the next connection starts clean, never when it resumes", () => {
    expect(willOwed([conn(0, RESUME, 3600), conn(1, CLEAN, 3600)], 0)).toBe("once");
    expect(willOwed([conn(0, RESUME, 3600), conn(1, RESUME, 3600)], 0)).toBe("never");
    // A session that ends with its connection fires any will.
    expect(willOwed([conn(0, CLEAN, 3600), conn(1, RESUME, 3600)], 0)).toBe("once");
  });

  it("skips refused attempts, and owes at most once across an uncertain one or without a CONNACK", () => {
    expect(willOwed([conn(0, RESUME, 3600), conn(1, CLEAN, 3600, "refused"), conn(2, RESUME, 3600)], 0)).toBe("never");
    expect(willOwed([conn(0, RESUME, 3600), conn(1, CLEAN, 3600, "uncertain"), conn(2, RESUME, 3600)], 0)).toBe("at most once");
    expect(willOwed([conn(0, RESUME, 0, "uncertain")], 0)).toBe("at most once");
  });
});

describe("the history checker", () => {
  const message = (n: number, acked: number): SentMessage => ({ publisher: "p0", n, payload: `p0:${String(n)}`, topic: "t", id: 0, sent: acked - 5, sends: 1, acked, ackNode: "n1" });

  function run(got: readonly [number, boolean][], connectSent = 0): string[] {
    const c: Connection = { ...conn(0, RESUME, undefined), got: got.map(([n, dup]) => ({ topic: "t", payload: `p0:${String(n)}`, retain: false, qos: 1, dup, at: 500 + n, node: "n0" })) };
    const l: Lifetime = { name: "c#0", id: 0, filter: "t", connectSent, subscribeSent: 20, subscribed: 30, connections: [c], end: Infinity };
    const messages = [message(0, 10), message(1, 100), message(2, 200), message(3, 300)];
    return checkHistory({ messages, churn: { attempts: [[c]], lifetimes: [[l]] }, willCopies: new Map(), connacks: [], timeline: new FaultTimeline() }).violations.map((v) => v.kind);
  }

  it("finds nothing when every owed message came once, in order", () => {
    expect(run([[1, false], [2, false], [3, false]])).toEqual([]);
  });

  it("finds a loss, a repeat without DUP, a reordering and a stray by kind", () => {
    expect(run([[1, false], [3, false]])).toEqual(["lost"]);
    expect(run([[1, false], [2, false], [2, false], [3, false]])).toEqual(["unflagged duplicate"]);
    expect(run([[1, false], [2, false], [2, true], [3, false]])).toEqual([]);
    expect(run([[2, false], [1, false], [3, false]])).toEqual(["out of order"]);
    // Acknowledged at 10 ms, before the CONNECT that created the session (50 ms).
    expect(run([[0, false], [1, false], [2, false], [3, false]], 50)).toEqual(["stray"]);
  });
});
