import { describe, expect, it } from "vitest";
import type { QoS } from "../codec/packet.js";
import { preparePublish } from "../codec/publish-template.js";
import type { OutboundMessage } from "./outbound-flow.js";
import { TestClient, effectsOf, kindsOf, sentPackets } from "./test-client.test-helpers.js";

function message(qos: QoS, packetId?: number, dup = false): OutboundMessage {
  const base = { topic: "out/t", payload: new Uint8Array([5]), qos, retain: false, dup };
  return packetId === undefined ? base : { ...base, packetId };
}

const ack = (type: "puback" | "pubrec" | "pubcomp", packetId: number, reasonCode = 0) =>
  ({ type, packetId, reasonCode, properties: {} }) as const;

describe("outbound QoS 1", () => {
  it.each([4, 5] as const)("v%i: deliver sends the PUBLISH and PUBACK yields delivery-acked", (v) => {
    const client = new TestClient(v);
    client.connectAccepted();
    expect(client.conn.deliver(message(1, 3))).toEqual({ status: "sent" });
    expect(sentPackets(client.drain(), v)).toMatchObject([{ type: "publish", qos: 1, packetId: 3, dup: false, topic: "out/t" }]);
    expect(effectsOf(client.send(ack("puback", 3)))).toEqual([{ kind: "delivery-acked", packetId: 3, reasonCode: 0 }]);
    expect(client.conn.outboundInFlight).toBe(0);
  });

  it("a resend after reconnect carries DUP=1 and the original packet id [MQTT-3.3.1-1] [MQTT-4.4.0-1]", () => {
    const client = new TestClient(5);
    client.connectAccepted({ cleanStart: false }, { sessionPresent: true });
    client.conn.deliver(message(1, 40, true));
    expect(sentPackets(client.drain(), 5)).toMatchObject([{ packetId: 40, dup: true }]);
  });

  it("a PUBACK for an id not in flight is ignored", () => {
    const client = new TestClient(5);
    client.connectAccepted();
    expect(client.send(ack("puback", 3))).toEqual([]);
  });

  it("refuses a packet id that is still in flight", () => {
    const client = new TestClient(5);
    client.connectAccepted();
    client.conn.deliver(message(1, 3));
    expect(client.conn.deliver(message(2, 3))).toEqual({ status: "packet-id-in-use" });
  });

  it("refuses QoS 1 without a packet id", () => {
    const client = new TestClient(5);
    client.connectAccepted();
    expect(client.conn.deliver(message(1))).toMatchObject({ status: "invalid" });
  });
});

describe("outbound QoS 2", () => {
  it.each([4, 5] as const)("v%i: PUBREC → delivery-received then PUBREL; PUBCOMP → delivery-completed [MQTT-4.3.3-4]", (v) => {
    const client = new TestClient(v);
    client.connectAccepted();
    client.conn.deliver(message(2, 8));
    client.drain();
    const afterRec = client.send(ack("pubrec", 8));
    expect(kindsOf(afterRec)).toEqual(["effect:delivery-received", "send:pubrel"]);
    expect(sentPackets(afterRec, v)).toMatchObject([{ type: "pubrel", packetId: 8 }]);
    expect(client.conn.sendQuota).toBe(65_534);
    expect(effectsOf(client.send(ack("pubcomp", 8)))).toEqual([{ kind: "delivery-completed", packetId: 8, reasonCode: 0 }]);
    expect(client.conn.sendQuota).toBe(65_535);
  });

  it("v5: PUBREC with an error code ends the flow without PUBREL and frees the slot [MQTT-4.4.0-2]", () => {
    const client = new TestClient(5);
    client.connectAccepted({ properties: { receiveMaximum: 1 } });
    client.conn.deliver(message(2, 8));
    client.drain();
    const actions = client.send(ack("pubrec", 8, 0x80));
    expect(kindsOf(actions)).toEqual(["effect:delivery-rejected"]);
    expect(client.conn.sendQuota).toBe(1);
  });

  it("a repeated PUBREC gets the PUBREL again", () => {
    const client = new TestClient(5);
    client.connectAccepted();
    client.conn.deliver(message(2, 8));
    client.send(ack("pubrec", 8));
    expect(kindsOf(client.send(ack("pubrec", 8)))).toEqual(["send:pubrel"]);
  });

  it("v5: PUBREC for an unknown id gets PUBREL 0x92", () => {
    const client = new TestClient(5);
    client.connectAccepted();
    expect(sentPackets(client.send(ack("pubrec", 77)), 5)).toMatchObject([{ type: "pubrel", packetId: 77, reasonCode: 0x92 }]);
  });

  it("resendPubrel resends a PUBREL after reconnect and PUBCOMP completes it [MQTT-4.4.0-1]", () => {
    const client = new TestClient(5);
    client.connectAccepted({ cleanStart: false }, { sessionPresent: true });
    expect(client.conn.resendPubrel(12)).toBe(true);
    expect(sentPackets(client.drain(), 5)).toMatchObject([{ type: "pubrel", packetId: 12 }]);
    expect(effectsOf(client.send(ack("pubcomp", 12)))).toMatchObject([{ kind: "delivery-completed", packetId: 12 }]);
  });
});

describe("client Receive Maximum (send quota)", () => {
  it("v5: deliver is refused once the client's Receive Maximum is in flight [MQTT-3.3.4-9] [MQTT-4.9.0-2]", () => {
    const client = new TestClient(5);
    client.connectAccepted({ properties: { receiveMaximum: 2 } });
    expect(client.conn.deliver(message(1, 1)).status).toBe("sent");
    expect(client.conn.deliver(message(2, 2)).status).toBe("sent");
    expect(client.conn.deliver(message(1, 3))).toEqual({ status: "quota-exhausted" });
    expect(sentPackets(client.drain(), 5)).toHaveLength(2);
  });

  it("v5: QoS 0 is sent while the quota is exhausted", () => {
    const client = new TestClient(5);
    client.connectAccepted({ properties: { receiveMaximum: 1 } });
    client.conn.deliver(message(1, 1));
    expect(client.conn.deliver(message(0)).status).toBe("sent");
  });

  it("v5: an acknowledgement frees a send slot", () => {
    const client = new TestClient(5);
    client.connectAccepted({ properties: { receiveMaximum: 1 } });
    client.conn.deliver(message(1, 1));
    client.send(ack("puback", 1));
    expect(client.conn.deliver(message(1, 2)).status).toBe("sent");
  });

  it("v5: other packets flow while the quota is exhausted [MQTT-4.9.0-3]", () => {
    const client = new TestClient(5);
    client.connectAccepted({ properties: { receiveMaximum: 1 } });
    client.conn.deliver(message(1, 1));
    client.drain();
    expect(kindsOf(client.send({ type: "pingreq" }))).toEqual(["send:pingresp"]);
  });
});

describe("client Maximum Packet Size", () => {
  it("v5: a PUBLISH larger than the client's maximum is discarded, not sent, and uses no slot [MQTT-3.1.2-25]", () => {
    const client = new TestClient(5);
    client.connectAccepted({ properties: { maximumPacketSize: 32 } });
    const big = { ...message(1, 1), payload: new Uint8Array(64) };
    expect(client.conn.deliver(big)).toEqual({ status: "too-large" });
    expect(client.drain()).toEqual([]);
    expect(client.conn.outboundInFlight).toBe(0);
  });

  it("v5: a discarded PUBLISH does not bind the topic alias it would have introduced", () => {
    const client = new TestClient(5);
    client.connectAccepted({ properties: { maximumPacketSize: 32, topicAliasMaximum: 2 } });
    client.conn.deliver({ ...message(0), payload: new Uint8Array(64) });
    client.conn.deliver(message(0));
    expect(sentPackets(client.drain(), 5)).toMatchObject([{ topic: "out/t", properties: { topicAlias: 1 } }]);
  });
});

describe("deliver outside a connection", () => {
  it("is refused before CONNACK", () => {
    const client = new TestClient(5);
    client.connect();
    expect(client.conn.deliver(message(0))).toEqual({ status: "not-connected" });
  });
});

describe("pre-encoded PUBLISH templates", () => {
  function template(qos: QoS, version: 4 | 5 = 5) {
    const r = preparePublish(
      { type: "publish", qos: 1, dup: false, retain: false, topic: "out/t", packetId: 1, payload: new Uint8Array([5]), properties: {} },
      version,
    );
    const q = preparePublish({ type: "publish", qos: 0, dup: false, retain: false, topic: "out/t", payload: new Uint8Array([5]), properties: {} }, version);
    const chosen = qos === 0 ? q : r;
    if (!chosen.ok) throw new Error("template");
    return chosen.template;
  }

  it("sends the template's bytes with this delivery's packet id and DUP patched in", () => {
    const client = new TestClient(5);
    client.connectAccepted();
    expect(client.conn.deliver({ ...message(1, 300, true), encoded: template(1) }).status).toBe("sent");
    expect(sentPackets(client.drain(), 5)).toMatchObject([{ type: "publish", packetId: 300, dup: true, topic: "out/t" }]);
    expect(effectsOf(client.send(ack("puback", 300)))).toMatchObject([{ kind: "delivery-acked", packetId: 300 }]);
  });

  it("refuses a template whose QoS differs from the message", () => {
    const client = new TestClient(5);
    client.connectAccepted();
    expect(client.conn.deliver({ ...message(1, 3), encoded: template(0) })).toMatchObject({ status: "invalid" });
    expect(client.drain()).toEqual([]);
  });

  it("discards a template larger than the client's Maximum Packet Size", () => {
    const client = new TestClient(5);
    client.connectAccepted({ properties: { maximumPacketSize: 8 } });
    expect(client.conn.deliver({ ...message(0), encoded: template(0) })).toEqual({ status: "too-large" });
  });
});
