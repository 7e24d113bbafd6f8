import { describe, expect, it } from "vitest";
import type { PublishPacket, QoS } from "../codec/packet.js";
import { TestClient, closeOf, effectsOf, kindsOf, sentPackets } from "./test-client.test-helpers.js";

function publish(qos: QoS, packetId: number, dup = false): PublishPacket {
  const base = { type: "publish", retain: false, topic: "in/t", payload: new Uint8Array([42]), properties: {} } as const;
  return qos === 0 ? { ...base, qos: 0, dup: false } : { ...base, qos, dup, packetId };
}

describe("inbound QoS 0", () => {
  it.each([4, 5] as const)("v%i: a QoS 0 PUBLISH becomes a publish effect with nothing sent back", (v) => {
    const client = new TestClient(v);
    client.connectAccepted();
    const actions = client.send(publish(0, 0));
    expect(kindsOf(actions)).toEqual(["effect:publish"]);
    expect(effectsOf(actions)).toMatchObject([{ kind: "publish", topic: "in/t", qos: 0, payload: new Uint8Array([42]) }]);
  });
});

describe("inbound QoS 1", () => {
  it.each([4, 5] as const)("v%i: PUBACK is sent only when the app acknowledges the committed message [MQTT-4.3.2-4]", (v) => {
    const client = new TestClient(v);
    client.connectAccepted();
    expect(kindsOf(client.send(publish(1, 7)))).toEqual(["effect:publish"]);
    expect(client.conn.acknowledgePublish(7)).toBe(true);
    expect(sentPackets(client.drain(), v)).toMatchObject([{ type: "puback", packetId: 7 }]);
  });

  it("v5: the app's failure reason code goes into the PUBACK", () => {
    const client = new TestClient(5);
    client.connectAccepted();
    client.send(publish(1, 7));
    client.conn.acknowledgePublish(7, 0x87, "not allowed");
    expect(sentPackets(client.drain(), 5)).toMatchObject([{ type: "puback", reasonCode: 0x87, properties: { reasonString: "not allowed" } }]);
  });

  it("v5: reason strings on PUBACK are dropped when the client asked for no problem information [MQTT-3.1.2-29]", () => {
    const client = new TestClient(5);
    client.connectAccepted({ properties: { requestProblemInformation: false } });
    client.send(publish(1, 7));
    client.conn.acknowledgePublish(7, 0x87, "not allowed");
    expect(sentPackets(client.drain(), 5)).toMatchObject([{ type: "puback", reasonCode: 0x87, properties: {} }]);
  });

  it("a repeated PUBLISH while the first awaits its acknowledgement is not delivered twice", () => {
    const client = new TestClient(4);
    client.connectAccepted();
    client.send(publish(1, 7));
    expect(client.send(publish(1, 7, true))).toEqual([]);
  });

  it("after PUBACK the same packet id is a new message [MQTT-4.3.2-5]", () => {
    const client = new TestClient(5);
    client.connectAccepted();
    client.send(publish(1, 7));
    client.conn.acknowledgePublish(7);
    client.drain();
    expect(kindsOf(client.send(publish(1, 7, true)))).toEqual(["effect:publish"]);
  });

  it("acknowledging an unknown packet id does nothing", () => {
    const client = new TestClient(5);
    client.connectAccepted();
    expect(client.conn.acknowledgePublish(99)).toBe(false);
    expect(client.drain()).toEqual([]);
  });

  it("refuses a reason code that PUBACK cannot carry", () => {
    const client = new TestClient(5);
    client.connectAccepted();
    client.send(publish(1, 7));
    expect(client.conn.acknowledgePublish(7, 0x8d)).toBe(false);
  });
});

describe("inbound QoS 2", () => {
  it.each([4, 5] as const)("v%i: PUBLISH → effects, PUBREC after acknowledge, PUBREL → released effect then PUBCOMP", (v) => {
    const client = new TestClient(v);
    client.connectAccepted();
    expect(kindsOf(client.send(publish(2, 9)))).toEqual(["effect:publish", "effect:inbound-qos2-received"]);
    client.conn.acknowledgePublish(9);
    expect(sentPackets(client.drain(), v)).toMatchObject([{ type: "pubrec", packetId: 9 }]);
    const actions = client.send({ type: "pubrel", packetId: 9, reasonCode: 0, properties: {} });
    expect(kindsOf(actions)).toEqual(["effect:inbound-qos2-released", "send:pubcomp"]);
    expect(sentPackets(actions, v)).toMatchObject([{ type: "pubcomp", packetId: 9, reasonCode: 0 }]);
  });

  it.each([4, 5] as const)("v%i: a duplicate PUBLISH awaiting PUBREL is answered with PUBREC, not delivered again [MQTT-4.3.3-10]", (v) => {
    const client = new TestClient(v);
    client.connectAccepted();
    client.send(publish(2, 9));
    client.conn.acknowledgePublish(9);
    client.drain();
    const actions = client.send(publish(2, 9, true));
    expect(kindsOf(actions)).toEqual(["send:pubrec"]);
  });

  it("a QoS 2 id restored from the session is deduplicated after a reconnect", () => {
    const client = new TestClient(5);
    client.connectAccepted({ cleanStart: false }, { sessionPresent: true, inboundQos2PacketIds: [9] });
    expect(kindsOf(client.send(publish(2, 9, true)))).toEqual(["send:pubrec"]);
    expect(kindsOf(client.send({ type: "pubrel", packetId: 9, reasonCode: 0, properties: {} }))).toEqual([
      "effect:inbound-qos2-released",
      "send:pubcomp",
    ]);
  });

  it("v5: PUBREL for an unknown packet id is answered with PUBCOMP 0x92", () => {
    const client = new TestClient(5);
    client.connectAccepted();
    const actions = client.send({ type: "pubrel", packetId: 5, reasonCode: 0, properties: {} });
    expect(sentPackets(actions, 5)).toMatchObject([{ type: "pubcomp", packetId: 5, reasonCode: 0x92 }]);
  });

  it("v4: PUBREL for an unknown packet id is still answered with PUBCOMP", () => {
    const client = new TestClient(4);
    client.connectAccepted();
    expect(sentPackets(client.send({ type: "pubrel", packetId: 5, reasonCode: 0, properties: {} }), 4)).toMatchObject([
      { type: "pubcomp", packetId: 5 },
    ]);
  });

  it("v5: a QoS 2 message the app refuses ends the flow and releases the id", () => {
    const client = new TestClient(5);
    client.connectAccepted();
    client.send(publish(2, 9));
    client.conn.acknowledgePublish(9, 0x97);
    const actions = client.drain();
    expect(kindsOf(actions)).toEqual(["effect:inbound-qos2-released", "send:pubrec"]);
    expect(sentPackets(actions, 5)).toMatchObject([{ type: "pubrec", reasonCode: 0x97 }]);
    expect(effectsOf(client.send(publish(2, 9)))).toMatchObject([{ kind: "publish" }, { kind: "inbound-qos2-received" }]);
  });

  it("v5: PUBREL before the server sent PUBREC is a protocol error", () => {
    const client = new TestClient(5);
    client.connectAccepted();
    client.send(publish(2, 9));
    expect(closeOf(client.send({ type: "pubrel", packetId: 9, reasonCode: 0, properties: {} }))).toBe(0x82);
  });
});

describe("server Receive Maximum", () => {
  it("v5: one more unacknowledged QoS 1/2 PUBLISH than the Receive Maximum gets DISCONNECT 0x93 [MQTT-3.3.4-7]", () => {
    const client = new TestClient(5, { receiveMaximum: 2 });
    client.connectAccepted();
    client.send(publish(1, 1), publish(2, 2));
    const actions = client.send(publish(1, 3));
    expect(sentPackets(actions, 5)).toMatchObject([{ type: "disconnect", reasonCode: 0x93 }]);
    expect(closeOf(actions)).toBe(0x93);
  });

  it("v5: acknowledged messages free inbound slots; QoS 2 holds its slot until PUBREL", () => {
    const client = new TestClient(5, { receiveMaximum: 2 });
    client.connectAccepted();
    client.send(publish(1, 1), publish(2, 2));
    client.conn.acknowledgePublish(1);
    client.conn.acknowledgePublish(2);
    client.drain();
    expect(kindsOf(client.send(publish(1, 3)))).toEqual(["effect:publish"]);
    expect(closeOf(client.send(publish(1, 4)))).toBe(0x93);
  });

  it("v5: QoS 0 PUBLISHes do not count against the Receive Maximum", () => {
    const client = new TestClient(5, { receiveMaximum: 1 });
    client.connectAccepted();
    client.send(publish(1, 1));
    expect(kindsOf(client.send(publish(0, 0), publish(0, 0)))).toEqual(["effect:publish", "effect:publish"]);
  });

  it("v4: there is no Receive Maximum to enforce", () => {
    const client = new TestClient(4, { receiveMaximum: 1 });
    client.connectAccepted();
    expect(kindsOf(client.send(publish(1, 1), publish(1, 2)))).toEqual(["effect:publish", "effect:publish"]);
  });
});

describe("inbound capabilities", () => {
  it("v5: a PUBLISH above the Maximum QoS gets DISCONNECT 0x9B [MQTT-3.2.2-11]", () => {
    const client = new TestClient(5, { maximumQoS: 1 });
    client.connectAccepted();
    expect(sentPackets(client.send(publish(2, 1)), 5)).toMatchObject([{ type: "disconnect", reasonCode: 0x9b }]);
  });

  it("v5: a retained PUBLISH without retain support gets DISCONNECT 0x9A [MQTT-3.2.2-14]", () => {
    const client = new TestClient(5, { retainAvailable: false });
    client.connectAccepted();
    expect(sentPackets(client.send({ ...publish(0, 0), retain: true }), 5)).toMatchObject([{ type: "disconnect", reasonCode: 0x9a }]);
  });
});

describe("inbound Subscription Identifier", () => {
  it("v5: a client PUBLISH carrying a Subscription Identifier gets DISCONNECT 0x82 [MQTT-3.3.4-6]", () => {
    const client = new TestClient(5);
    client.connectAccepted();
    const actions = client.send({ ...publish(0, 0), properties: { subscriptionIdentifiers: [3] } });
    expect(sentPackets(actions, 5)).toMatchObject([{ type: "disconnect", reasonCode: 0x82 }]);
  });
});
