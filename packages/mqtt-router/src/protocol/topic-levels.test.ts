import { describe, expect, it } from "vitest";
import type { Packet } from "../codec/packet.js";
import { TestClient, effectsOf, sentPackets } from "./test-client.test-helpers.js";

describe("topic levels of PUBLISH and Will", () => {
  const topic = (levels: number): string => Array.from({ length: levels }, () => "x").join("/");

  it.each([0, 1] as const)("QoS %i: a PUBLISH deeper than maximumTopicLevels ends the connection with DISCONNECT 0x90", (qos) => {
    const client = new TestClient(5, { maximumTopicLevels: 4 });
    client.connectAccepted();
    const publish = (t: string, packetId: number): Packet =>
      qos === 0
        ? { type: "publish", topic: t, qos, retain: false, dup: false, payload: new Uint8Array(1), properties: {} }
        : { type: "publish", topic: t, qos, retain: false, dup: false, packetId, payload: new Uint8Array(1), properties: {} };
    const ok = client.send(publish(topic(4), 1));
    expect(effectsOf(ok)).toMatchObject([{ kind: "publish" }]);
    const actions = client.send(publish(topic(5), 2));
    expect(effectsOf(actions)).toMatchObject([{ kind: "closed", reasonCode: 0x90 }]);
    expect(sentPackets(actions, 5)).toMatchObject([{ type: "disconnect", reasonCode: 0x90 }]);
  });

  it("a Will Topic deeper than maximumTopicLevels gets CONNACK 0x90 (v4: return code 3)", () => {
    const will = { topic: topic(129), payload: new Uint8Array(1), qos: 0, retain: false, properties: {} } as const;
    const v5 = new TestClient(5);
    expect(sentPackets(v5.connect({ will }), 5)).toMatchObject([{ type: "connack", reasonCode: 0x90 }]);
    const v4 = new TestClient(4);
    expect(sentPackets(v4.connect({ will }), 4)).toMatchObject([{ type: "connack", reasonCode: 3 }]);
  });
});

