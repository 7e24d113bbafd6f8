import { describe, expect, it } from "vitest";
import type { SubscribePacket, Subscription } from "../codec/packet.js";
import { TestClient, closeOf, effectsOf, kindsOf, sentPackets } from "./test-client.test-helpers.js";

function sub(topicFilter: string, qos: 0 | 1 | 2 = 1): Subscription {
  return { topicFilter, qos, noLocal: false, retainAsPublished: false, retainHandling: 0 };
}

function subscribe(packetId: number, filters: readonly string[], subscriptionIdentifier?: number): SubscribePacket {
  return {
    type: "subscribe",
    packetId,
    subscriptions: filters.map((f) => sub(f)),
    properties: subscriptionIdentifier === undefined ? {} : { subscriptionIdentifier },
  };
}

describe("SUBSCRIBE", () => {
  it.each([4, 5] as const)("v%i: SUBSCRIBE becomes a subscribe effect and subscribed sends the SUBACK", (v) => {
    const client = new TestClient(v);
    client.connectAccepted();
    const effects = effectsOf(client.send(subscribe(4, ["a/+", "b"])));
    expect(effects).toMatchObject([{ kind: "subscribe", packetId: 4, subscriptions: [{ topicFilter: "a/+" }, { topicFilter: "b" }] }]);
    expect(client.conn.subscribed(4, [1, 0])).toBe(true);
    expect(sentPackets(client.drain(), v)).toMatchObject([{ type: "suback", packetId: 4, reasonCodes: [1, 0] }]);
  });

  it("v5: the Subscription Identifier is passed on", () => {
    const client = new TestClient(5);
    client.connectAccepted();
    expect(effectsOf(client.send(subscribe(4, ["a"], 17)))).toMatchObject([{ kind: "subscribe", subscriptionIdentifier: 17 }]);
  });

  it("v5: a Subscription Identifier when the server does not support them gets DISCONNECT 0xA1", () => {
    const client = new TestClient(5, { subscriptionIdentifiersAvailable: false });
    client.connectAccepted();
    const actions = client.send(subscribe(4, ["a"], 17));
    expect(sentPackets(actions, 5)).toMatchObject([{ type: "disconnect", reasonCode: 0xa1 }]);
    expect(closeOf(actions)).toBe(0xa1);
  });

  it("v5: a shared subscription when shared subscriptions are unavailable is refused with 0x9E, the rest go to the app", () => {
    const client = new TestClient(5, { sharedSubscriptionAvailable: false });
    client.connectAccepted();
    const effects = effectsOf(client.send(subscribe(4, ["$share/g/a", "b"])));
    expect(effects).toMatchObject([{ kind: "subscribe", subscriptions: [{ topicFilter: "b" }] }]);
    client.conn.subscribed(4, [1]);
    expect(sentPackets(client.drain(), 5)).toMatchObject([{ type: "suback", reasonCodes: [0x9e, 1] }]);
  });

  it("v5: a wildcard filter when wildcards are unavailable is refused with 0xA2 without asking the app", () => {
    const client = new TestClient(5, { wildcardSubscriptionAvailable: false });
    client.connectAccepted();
    const actions = client.send(subscribe(4, ["a/#"]));
    expect(kindsOf(actions)).toEqual(["send:suback"]);
    expect(sentPackets(actions, 5)).toMatchObject([{ reasonCodes: [0xa2] }]);
  });

  it("v4: a refused wildcard filter gets the 3.1.1 failure code 0x80", () => {
    const client = new TestClient(4, { wildcardSubscriptionAvailable: false });
    client.connectAccepted();
    expect(sentPackets(client.send(subscribe(4, ["a/#"])), 4)).toMatchObject([{ reasonCodes: [0x80] }]);
  });

  it("v4: an app failure code becomes 0x80 in the SUBACK", () => {
    const client = new TestClient(4);
    client.connectAccepted();
    client.send(subscribe(4, ["a"]));
    client.conn.subscribed(4, [0x87]);
    expect(sentPackets(client.drain(), 4)).toMatchObject([{ reasonCodes: [0x80] }]);
  });

  it("v5: a SUBSCRIBE reusing a packet id that awaits its SUBACK gets 0x91", () => {
    const client = new TestClient(5);
    client.connectAccepted();
    client.send(subscribe(4, ["a"]));
    expect(sentPackets(client.send(subscribe(4, ["b"])), 5)).toMatchObject([{ type: "suback", reasonCodes: [0x91] }]);
  });

  it("subscribed with the wrong number of codes is refused", () => {
    const client = new TestClient(5);
    client.connectAccepted();
    client.send(subscribe(4, ["a", "b"]));
    expect(client.conn.subscribed(4, [0])).toBe(false);
    expect(client.conn.subscribed(5, [0, 0])).toBe(false);
    expect(client.drain()).toEqual([]);
  });

  it("v5: an invalid topic filter ends the connection with DISCONNECT 0x8F", () => {
    const client = new TestClient(5);
    client.connectAccepted();
    const bytes = new Uint8Array([0x82, 0x08, 0x00, 0x01, 0x00, 0x00, 0x02, 0x61, 0x23, 0x00]); // filter "a#"
    expect(sentPackets(client.sendBytes(bytes), 5)).toMatchObject([{ type: "disconnect", reasonCode: 0x8f }]);
  });
});

describe("UNSUBSCRIBE", () => {
  it("v5: UNSUBSCRIBE becomes an unsubscribe effect and unsubscribed sends the UNSUBACK with codes", () => {
    const client = new TestClient(5);
    client.connectAccepted();
    const effects = effectsOf(client.send({ type: "unsubscribe", packetId: 6, topicFilters: ["a", "b"], properties: {} }));
    expect(effects).toMatchObject([{ kind: "unsubscribe", packetId: 6, topicFilters: ["a", "b"] }]);
    expect(client.conn.unsubscribed(6, [0, 0x11])).toBe(true);
    expect(sentPackets(client.drain(), 5)).toMatchObject([{ type: "unsuback", packetId: 6, reasonCodes: [0, 0x11] }]);
  });

  it("v4: the UNSUBACK carries no reason codes", () => {
    const client = new TestClient(4);
    client.connectAccepted();
    client.send({ type: "unsubscribe", packetId: 6, topicFilters: ["a"], properties: {} });
    client.conn.unsubscribed(6, []);
    const actions = client.drain();
    expect(sentPackets(actions, 4)).toMatchObject([{ type: "unsuback", packetId: 6, reasonCodes: [] }]);
    const bytes = actions[0]?.kind === "send" ? actions[0].bytes : undefined;
    expect(bytes).toEqual(new Uint8Array([0xb0, 0x02, 0x00, 0x06]));
  });

  it("v5: unsubscribed with the wrong number of codes is refused", () => {
    const client = new TestClient(5);
    client.connectAccepted();
    client.send({ type: "unsubscribe", packetId: 6, topicFilters: ["a", "b"], properties: {} });
    expect(client.conn.unsubscribed(6, [0])).toBe(false);
  });
});

describe("SUBSCRIBE limits", () => {
  const deep = (levels: number): string => Array.from({ length: levels }, () => "+").join("/");

  it("copies of one filter in a packet are forwarded once, with the last copy's options, and every copy gets its code", () => {
    const client = new TestClient(5);
    client.connectAccepted();
    const packet: SubscribePacket = {
      type: "subscribe",
      packetId: 4,
      subscriptions: [sub("#", 0), sub("a"), sub("#", 2), sub("#", 1)],
      properties: {},
    };
    const effects = effectsOf(client.send(packet));
    expect(effects).toMatchObject([{ kind: "subscribe", subscriptions: [{ topicFilter: "#", qos: 1 }, { topicFilter: "a" }] }]);
    expect(client.conn.subscribed(4, [0, 1, 0])).toBe(false);
    expect(client.conn.subscribed(4, [1, 0x87])).toBe(true);
    expect(sentPackets(client.drain(), 5)).toMatchObject([{ type: "suback", reasonCodes: [1, 0x87, 1, 1] }]);
  });

  it("20,000 copies of # reach the app as one subscription", () => {
    const client = new TestClient(5, { maximumFiltersPerSubscribe: 20_000 });
    client.connectAccepted();
    const effects = effectsOf(client.send(subscribe(4, Array.from({ length: 20_000 }, () => "#"))));
    expect(effects).toMatchObject([{ kind: "subscribe", subscriptions: [{ topicFilter: "#" }] }]);
    expect(client.conn.subscribed(4, [1])).toBe(true);
    const [suback] = sentPackets(client.drain(), 5);
    expect(suback?.type === "suback" ? suback.reasonCodes.length : 0).toBe(20_000);
  });

  it.each([4, 5] as const)("v%i: more filters than maximumFiltersPerSubscribe end the connection (v5: DISCONNECT 0x97)", (v) => {
    const client = new TestClient(v, { maximumFiltersPerSubscribe: 3 });
    client.connectAccepted();
    expect(effectsOf(client.send(subscribe(4, ["a", "b", "c"])))).toMatchObject([{ kind: "subscribe" }]);
    const actions = client.send(subscribe(5, ["a", "b", "c", "d"]));
    expect(effectsOf(actions)).toMatchObject([{ kind: "closed", cause: "protocol-error", reasonCode: 0x97 }]);
    if (v === 5) expect(sentPackets(actions, 5)).toMatchObject([{ type: "disconnect", reasonCode: 0x97 }]);
    expect(closeOf(actions)).toBe(0x97);
  });

  it("a filter deeper than maximumTopicLevels ends the connection with DISCONNECT 0x8F; one at the limit is forwarded", () => {
    const client = new TestClient(5);
    client.connectAccepted();
    expect(effectsOf(client.send(subscribe(4, [deep(128), "$share/g/" + deep(128)])))).toMatchObject([{ kind: "subscribe" }]);
    const actions = client.send(subscribe(5, ["a", deep(129)]));
    expect(sentPackets(actions, 5)).toMatchObject([{ type: "disconnect", reasonCode: 0x8f }]);
    expect(closeOf(actions)).toBe(0x8f);
  });

  it("a 10,000-level filter is refused without a subscribe effect", () => {
    const client = new TestClient(5);
    client.connectAccepted();
    const actions = client.send(subscribe(4, [deep(10_000)]));
    expect(effectsOf(actions).map((e) => e.kind)).toEqual(["closed"]);
  });
});
