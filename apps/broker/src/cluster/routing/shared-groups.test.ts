// One node's part in the cluster's shared groups, without Redis: the decisions it makes for the
// messages it accepts, the ones it obeys for other nodes' messages, what it tells the others, and
// what it withdraws at start or for a dead node.
import { shareKey, type Message } from "@handoff/mqtt-router";
import { describe, expect, it } from "vitest";
import type { MessageEntry, ShareChange } from "./route-entry.js";
import { SharedGroupsRouting } from "./shared-groups.js";

const message = (topic: string): Message => ({ topic, payload: new Uint8Array(), qos: 1, retain: false, properties: {} });
const entry = (m: Message, shares: ReadonlyMap<string, string>): MessageEntry => ({ kind: "message", id: "1-0", origin: { node: "n2", incarnation: 1, counter: 1 }, message: m, shares });

function node(self = "n1") {
  const told: ShareChange[] = [];
  return { groups: new SharedGroupsRouting(self, (c) => told.push(c)), told };
}

describe("shared groups routing of one node", () => {
  it("decides once per accepted message, takes its own turn here, and tells the others of its members", () => {
    const { groups, told } = node();
    groups.localChanged("g", "t/#", true);
    groups.applied({ node: "n2", group: "g", filter: "t/#", present: true });
    const first = message("t/a");
    const second = message("t/a");
    expect(groups.sharedCopy(first, "g", "t/#")).toBe(true);
    expect(groups.decisionsFor(first)).toEqual(new Map([[shareKey("g", "t/#"), "n1"]]));
    expect(groups.sharedCopy(second, "g", "t/#")).toBe(false);
    expect(groups.decisionsFor(second)).toEqual(new Map([[shareKey("g", "t/#"), "n2"]]));
    expect(told).toEqual([{ node: "n1", group: "g", filter: "t/#", present: true }]);
  });

  it("routes another node's message by its decisions and counts a copy decided here that found no member", () => {
    const { groups } = node();
    groups.localChanged("g", "t", true);
    const m = message("t");
    const decisions = new Map([
      [shareKey("g", "t"), "n1"],
      [shareKey("gone", "t"), "n1"],
      [shareKey("h", "t"), "n3"],
    ]);
    const asked: boolean[] = [];
    const { outcome, unrouted } = groups.routeRemote(entry(m, decisions), (routed) => {
      asked.push(groups.sharedCopy(routed, "g", "t"), groups.sharedCopy(routed, "h", "t"));
      return "routed";
    });
    expect(asked).toEqual([true, false]);
    expect(outcome).toBe("routed");
    expect(unrouted).toBe(1); // "gone": no member here any more
    // Outside the remote routing, the node decides again for its own messages.
    expect(groups.sharedCopy(message("t"), "g", "t")).toBe(true);
  });

  it("withdraws at start a membership of its own its router no longer has; keeps the others'", () => {
    const { groups, told } = node();
    groups.localChanged("kept", "t", true);
    told.length = 0;
    groups.load([
      { node: "n1", group: "kept", filter: "t", present: true },
      { node: "n1", group: "left", filter: "t", present: true },
      { node: "n2", group: "other", filter: "t", present: true },
    ]);
    expect(told).toEqual([{ node: "n1", group: "left", filter: "t", present: false }]);
    expect(groups.decisionsFor(message("t"))).toEqual(
      new Map([
        [shareKey("kept", "t"), "n1"],
        [shareKey("other", "t"), "n2"],
      ]),
    );
  });

  it("drops a dead node's memberships and tells the others", () => {
    const { groups, told } = node();
    groups.applied({ node: "n2", group: "g", filter: "t", present: true });
    groups.applied({ node: "n3", group: "g", filter: "t", present: true });
    groups.nodeDead("n2");
    expect(told).toEqual([{ node: "n2", group: "g", filter: "t", present: false }]);
    expect([...groups.decisionsFor(message("t")).values()]).toEqual(["n3"]);
  });

  it("takes a dead node's copies once it adopts from it, until that node reports a member again", () => {
    const { groups } = node();
    groups.localChanged("g", "t", true);
    groups.applied({ node: "n2", group: "g", filter: "t", present: true }); // before n2 died
    const decidedFor = (n: string): MessageEntry => entry(message("t"), new Map([[shareKey("g", "t"), n]]));
    const takes = (e: MessageEntry): boolean => {
      let took = false;
      groups.routeRemote(e, (m) => (took = groups.sharedCopy(m, "g", "t")));
      return took;
    };
    expect(takes(decidedFor("n2"))).toBe(false);
    groups.takeCopiesOf("n2");
    expect(takes(decidedFor("n2"))).toBe(true);
    expect(takes(decidedFor("n3"))).toBe(false);
    // Its own messages too: a copy it decides for the dead node (not yet withdrawn) is its own.
    const own = [message("t"), message("t")].map((m) => groups.sharedCopy(m, "g", "t"));
    expect(own).toEqual([true, true]); // n1's turn, then n2's, taken by n1
    groups.applied({ node: "n2", group: "g", filter: "t", present: true }); // n2 reports a member: restarted
    expect(takes(decidedFor("n2"))).toBe(false);
  });

  it("keeps its own membership its router's, whatever the stream says of it", () => {
    const { groups } = node();
    groups.localChanged("g", "t", true);
    groups.applied({ node: "n1", group: "g", filter: "t", present: false });
    expect([...groups.decisionsFor(message("t")).values()]).toEqual(["n1"]);
  });
});
