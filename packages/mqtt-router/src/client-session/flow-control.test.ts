import { describe, expect, it } from "vitest";
import { FlowControl } from "./flow-control.js";

const settled = async (p: Promise<void>): Promise<boolean> => {
  let done = false;
  void p.then(() => (done = true));
  await Promise.resolve();
  await Promise.resolve();
  return done;
};

describe("FlowControl", () => {
  it("holds a publisher until every congested subscriber has drained", async () => {
    const backlog = new Set(["a", "b"]);
    const flow = new FlowControl((id) => backlog.has(id), 5000);
    const hold = flow.hold(["a", "b"], 0);
    if (hold === undefined) throw new Error("expected a hold");
    backlog.delete("a");
    flow.progressed("a");
    expect(await settled(hold.released)).toBe(false);
    backlog.delete("b");
    flow.progressed("b");
    expect(await settled(hold.released)).toBe(true);
  });

  it("does not hold for subscribers that are no longer backlogged", () => {
    const flow = new FlowControl(() => false, 5000);
    expect(flow.hold(["a"], 0)).toBeUndefined();
  });

  it("names a subscriber stalled once it has held publishers back for the budget, and frees those that drained meanwhile", async () => {
    const backlog = new Set(["slow", "drained"]);
    const flow = new FlowControl((id) => backlog.has(id), 5000);
    const hold = flow.hold(["drained"], 0);
    flow.hold(["slow"], 1000);
    backlog.delete("drained"); // e.g. its session was replaced by a clean start: no ack reports it
    expect(flow.stalled(4999)).toEqual([]);
    expect(hold !== undefined && (await settled(hold.released))).toBe(true);
    expect(flow.stalled(6000)).toEqual(["slow"]);
  });

  it("lets a publisher whose connection ends stop waiting", async () => {
    const flow = new FlowControl(() => true, 5000);
    const hold = flow.hold(["a"], 0);
    hold?.cancel();
    expect(hold !== undefined && (await settled(hold.released))).toBe(true);
    expect(flow.congestedCount).toBe(0);
  });
});
