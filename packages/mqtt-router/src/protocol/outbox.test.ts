import { describe, expect, it } from "vitest";
import { Outbox } from "./outbox.js";

describe("Outbox", () => {
  it("keeps actions in order and empties on drain", () => {
    const o = new Outbox(true);
    o.send({ type: "pingresp" });
    o.effect({ kind: "inbound-qos2-released", packetId: 1 });
    expect(o.drain().map((a) => a.kind)).toEqual(["send", "effect"]);
    expect(o.drain()).toEqual([]);
  });

  it("accepts nothing after close", () => {
    const o = new Outbox(true);
    o.close(0x82);
    o.send({ type: "pingresp" });
    o.effect({ kind: "inbound-qos2-released", packetId: 1 });
    o.close(0x81);
    expect(o.drain()).toEqual([{ kind: "close", reasonCode: 0x82 }]);
  });

  it("drops Reason String and User Properties from a packet the peer would find too large", () => {
    const o = new Outbox(true);
    o.peer.version = 5;
    o.peer.maximumPacketSize = 16;
    const r = o.send({ type: "puback", packetId: 1, reasonCode: 0x80, properties: { reasonString: "x".repeat(40), userProperties: [["a", "b"]] } });
    expect(r.ok).toBe(true);
    expect(o.drain()).toMatchObject([{ kind: "send", packet: { type: "puback", reasonCode: 0x80, properties: {} } }]);
  });

  it("keeps Reason Strings on CONNACK and DISCONNECT when the client asked for no problem information", () => {
    const o = new Outbox(true);
    o.peer.version = 5;
    o.peer.problemInformation = false;
    o.send({ type: "disconnect", reasonCode: 0x82, properties: { reasonString: "why" } });
    o.send({ type: "puback", packetId: 1, reasonCode: 0x80, properties: { reasonString: "why" } });
    expect(o.drain()).toMatchObject([
      { packet: { type: "disconnect", properties: { reasonString: "why" } } },
      { packet: { type: "puback", properties: {} } },
    ]);
  });

  it("leaves Reason Strings out everywhere when they are configured off, keeping User Properties", () => {
    const o = new Outbox(false);
    o.peer.version = 5;
    o.send({ type: "disconnect", reasonCode: 0x82, properties: { reasonString: "why", userProperties: [["k", "v"]] } });
    expect(o.drain()).toMatchObject([{ packet: { properties: { userProperties: [["k", "v"]] } } }]);
    o.send({ type: "disconnect", reasonCode: 0x82, properties: { reasonString: "why" } });
    const [action] = o.drain();
    expect(action?.kind === "send" && action.packet.type === "disconnect" ? action.packet.properties : undefined).toEqual({});
  });
});
