// Shared groups across a cluster's routers: where groups have members (ClusterShares), the one
// node that takes each group's copy, and the router hooks that obey and report it.
import { describe, expect, it } from "vitest";
import { ClusterShares, shareKey } from "./cluster-shares.js";
import { message, newRouter, online, sub } from "./router.test-helpers.js";

describe("cluster shares: deciding which node delivers a group's copy", () => {
  it("lets the nodes with members take turns, in name order", () => {
    const shares = new ClusterShares();
    shares.set("n2", "g", "jobs/+", true);
    shares.set("n1", "g", "jobs/+", true);
    const chosen = Array.from({ length: 4 }, () => shares.decide("jobs/x").get(shareKey("g", "jobs/+")));
    expect(chosen).toEqual(["n1", "n2", "n1", "n2"]);
  });

  it("decides for every matching group, and only those", () => {
    const shares = new ClusterShares();
    shares.set("n1", "a", "jobs/#", true);
    shares.set("n2", "b", "jobs/x", true);
    shares.set("n3", "c", "other", true);
    expect(shares.decide("jobs/x")).toEqual(
      new Map([
        [shareKey("a", "jobs/#"), "n1"],
        [shareKey("b", "jobs/x"), "n2"],
      ]),
    );
    expect(shares.decide("nothing")).toEqual(new Map());
  });

  it("forgets a node's membership, and the group once no node has members", () => {
    const shares = new ClusterShares();
    shares.set("n1", "g", "t", true);
    shares.set("n2", "g", "t", true);
    shares.set("n2", "h", "t", true);
    expect(shares.groupsOf("n2")).toEqual([
      { group: "g", filter: "t" },
      { group: "h", filter: "t" },
    ]);
    shares.set("n2", "g", "t", false);
    expect(shares.nodesOf("g", "t")).toEqual(["n1"]);
    expect([...shares.decide("t").values()]).toEqual(["n1", "n2"]);
    shares.set("n1", "g", "t", false);
    expect(shares.nodesOf("g", "t")).toEqual([]);
    expect([...shares.decide("t").keys()]).toEqual([shareKey("h", "t")]);
  });
});

describe("router: shared groups spanning routers", () => {
  it("delivers a group's copy only where sharedCopy says so; plain subscriptions are untouched", () => {
    const asked: string[] = [];
    const { router } = newRouter({
      sharedCopy: (m, group, filter) => {
        asked.push(`${group} ${filter}`);
        return new TextDecoder().decode(m.payload) === "mine";
      },
    });
    const a = online(router, "a");
    router.subscribe("a", a.generation, [sub("$share/g/t"), sub("t")]);
    router.publish(message("t", "mine"));
    router.publish(message("t", "theirs"));
    expect(a.sink.payloads()).toEqual(["mine", "mine", "theirs"]);
    expect(asked).toEqual(["g t", "g t"]);
  });

  it("tells when a group gets its first member here and loses its last", () => {
    const changes: string[] = [];
    const { router } = newRouter({ onSharedGroup: (group, filter, present) => changes.push(`${group} ${filter} ${String(present)}`) });
    const a = online(router, "a");
    const b = online(router, "b", { sessionExpiryInterval: 0 });
    router.subscribe("a", a.generation, [sub("$share/g/t")]);
    router.subscribe("b", b.generation, [sub("$share/g/t"), sub("plain")]);
    expect(changes).toEqual(["g t true"]);
    router.unsubscribe("a", a.generation, ["$share/g/t"]);
    expect(changes).toEqual(["g t true"]);
    router.disconnect("b", b.generation, { publishWill: false }); // expiry 0: the session ends
    expect(changes).toEqual(["g t true", "g t false"]);
  });

  it("tells of a group a forgotten session took away", () => {
    const changes: string[] = [];
    const { router } = newRouter({ onSharedGroup: (group, filter, present) => changes.push(`${group} ${filter} ${String(present)}`) });
    const a = online(router, "a");
    router.subscribe("a", a.generation, [sub("$share/g/t")]);
    router.forget("a");
    expect(changes).toEqual(["g t true", "g t false"]);
  });
});
