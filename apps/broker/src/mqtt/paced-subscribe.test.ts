import { ManualClock } from "@handoff/seqlog";
import { Router, type DeliverySink, type SubscribeRequest } from "@handoff/mqtt-router";
import { describe, expect, it } from "vitest";
import { subscribeInTurns } from "./paced-subscribe.js";

const sink: DeliverySink = { publish: () => true, pubrel: () => undefined };
const request = (filter: string): SubscribeRequest => ({ filter, qos: 1, noLocal: false, retainAsPublished: false, retainHandling: 0 });

function setup(): { router: Router; generation: number } {
  const router = new Router({ clock: new ManualClock(0), maxSubscriptionsPerSession: 3 });
  const { generation } = router.connect({ clientId: "c", cleanStart: true, sessionExpiryInterval: 0, receiveMaximum: 10, protocolVersion: 5, sink });
  return { router, generation };
}

/** A clock that moves `step` ms each time it is read. */
function ticking(step: number): () => number {
  let t = 0;
  return () => (t += step);
}

describe("subscribeInTurns", () => {
  it("answers at once when every filter fits in this turn", () => {
    const { router, generation } = setup();
    expect(subscribeInTurns(router, "c", generation, [request("a"), request("b")], undefined, ticking(0))).toEqual([1, 1]);
  });

  it("takes the rest on later turns once a turn's work passed the slice, in order, codes as one SUBSCRIBE's", async () => {
    const { router, generation } = setup();
    const filters = ["a", "b", "c", "d", "e"];
    const granted = subscribeInTurns(router, "c", generation, filters.map(request), undefined, ticking(3));
    expect(granted).toBeInstanceOf(Promise);
    expect(router.session("c")?.subscriptions.size).toBe(2); // 3 ms + 3 ms passes the 5 ms slice
    expect(await granted).toEqual([1, 1, 1, 0x97, 0x97]);
    expect([...(router.session("c")?.subscriptions.keys() ?? [])]).toEqual(["a", "b", "c"]);
  });

  it("stops, with no answer, when the session is taken over between turns", async () => {
    const { router, generation } = setup();
    const granted = subscribeInTurns(router, "c", generation, ["a", "b", "c", "d"].map(request), undefined, ticking(10));
    router.connect({ clientId: "c", cleanStart: true, sessionExpiryInterval: 0, receiveMaximum: 10, protocolVersion: 5, sink });
    expect(await granted).toBeUndefined();
    expect(router.session("c")?.subscriptions.size).toBe(0);
  });
});
