import { describe, expect, it } from "vitest";
import { RecvWindow, SendCredit } from "./flow.js";

describe("RecvWindow", () => {
  it("refuses usage beyond the advertised limit", () => {
    const w = new RecvWindow(100);
    expect(w.receiveTo(100)).toBe(true);
    expect(w.receiveTo(101)).toBe(false);
  });

  it("raises the limit at once when the peer is blocked", () => {
    const w = new RecvWindow(100);
    w.receiveTo(100);
    expect(w.consume(1)).toBe(101);
  });

  it("waits for half the remaining credit before updating an unblocked peer", () => {
    const w = new RecvWindow(100);
    w.receiveTo(20);
    expect(w.consume(20)).toBeUndefined();
    w.receiveTo(60);
    expect(w.consume(40)).toBe(160);
  });

  it("slides on every release when eager", () => {
    const w = new RecvWindow(100, true);
    w.receiveTo(20);
    expect(w.consume(1)).toBe(101);
  });

  it("never releases more than was received", () => {
    const w = new RecvWindow(100);
    w.receiveTo(10);
    w.consume(1000);
    expect(w.consumed).toBe(10);
  });
});

describe("SendCredit", () => {
  it("ignores a limit that does not grow", () => {
    const c = new SendCredit(10);
    expect(c.raise(5)).toBe(false);
    expect(c.max).toBe(10);
    expect(c.raise(11)).toBe(true);
  });

  it("reports blocked once per limit value", () => {
    const c = new SendCredit(10);
    expect(c.shouldReportBlocked()).toBe(true);
    expect(c.shouldReportBlocked()).toBe(false);
    c.raise(20);
    expect(c.shouldReportBlocked()).toBe(true);
  });
});
