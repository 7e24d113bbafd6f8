import { describe, expect, it } from "vitest";
import type { DisconnectPacket, Will } from "../codec/packet.js";
import type { ClosedEffect } from "./effects.js";
import { TestClient, closeOf, effectsOf, kindsOf, sentPackets } from "./test-client.test-helpers.js";

const will: Will = { topic: "last/words", payload: new Uint8Array([1]), qos: 0, retain: false, properties: {} };

function disconnect(reasonCode = 0, sessionExpiryInterval?: number): DisconnectPacket {
  return { type: "disconnect", reasonCode, properties: sessionExpiryInterval === undefined ? {} : { sessionExpiryInterval } };
}

function closedOf(actions: Parameters<typeof effectsOf>[0]): ClosedEffect {
  const e = effectsOf(actions).find((x) => x.kind === "closed");
  if (e?.kind !== "closed") throw new Error("no closed effect");
  return e;
}

describe("DISCONNECT from the client", () => {
  it.each([4, 5] as const)("v%i: a normal DISCONNECT closes and deletes the Will [MQTT-3.14.4-3]", (v) => {
    const client = new TestClient(v);
    client.connectAccepted({ will });
    const actions = client.send(disconnect());
    expect(kindsOf(actions)).toEqual(["effect:closed", "close"]);
    expect(closedOf(actions)).toMatchObject({ cause: "client-disconnect", reasonCode: 0, publishWill: false });
  });

  it("v5: DISCONNECT 0x04 closes and keeps the Will to be published", () => {
    const client = new TestClient(5);
    client.connectAccepted({ will });
    expect(closedOf(client.send(disconnect(0x04)))).toMatchObject({ cause: "client-disconnect", reasonCode: 0x04, publishWill: true });
  });

  it("v5: a DISCONNECT without a Will never asks to publish one", () => {
    const client = new TestClient(5);
    client.connectAccepted();
    expect(closedOf(client.send(disconnect(0x04))).publishWill).toBe(false);
  });

  it("v5: DISCONNECT may change a non-zero Session Expiry Interval", () => {
    const client = new TestClient(5);
    client.connectAccepted({ properties: { sessionExpiryInterval: 60 } });
    expect(closedOf(client.send(disconnect(0, 600))).sessionExpiryInterval).toBe(600);
  });

  it("v5: DISCONNECT raising a zero Session Expiry Interval is a protocol error answered with DISCONNECT 0x82", () => {
    const client = new TestClient(5);
    client.connectAccepted({ will });
    const actions = client.send(disconnect(0, 600));
    expect(sentPackets(actions, 5)).toMatchObject([{ type: "disconnect", reasonCode: 0x82 }]);
    expect(closedOf(actions)).toMatchObject({ cause: "protocol-error", publishWill: true, sessionExpiryInterval: 0 });
  });
});

describe("disconnect from the server", () => {
  it("v5: disconnect sends DISCONNECT with the reason code and reason string, then closes", () => {
    const client = new TestClient(5);
    client.connectAccepted({ will });
    expect(client.conn.disconnect(0x8e, "taken over")).toBe(true);
    const actions = client.drain();
    expect(sentPackets(actions, 5)).toEqual([{ type: "disconnect", reasonCode: 0x8e, properties: { reasonString: "taken over" } }]);
    expect(closedOf(actions)).toMatchObject({ cause: "server-disconnect", reasonCode: 0x8e, publishWill: true });
    expect(closeOf(actions)).toBe(0x8e);
  });

  it("v4: disconnect only closes: 3.1.1 has no server DISCONNECT", () => {
    const client = new TestClient(4);
    client.connectAccepted();
    client.conn.disconnect(0x8b);
    const actions = client.drain();
    expect(sentPackets(actions, 4)).toEqual([]);
    expect(closeOf(actions)).toBe(0x8b);
  });

  it("v5: no DISCONNECT is sent before CONNACK [MQTT-3.14.0-1]", () => {
    const client = new TestClient(5);
    client.connect();
    client.conn.disconnect(0x8b);
    expect(kindsOf(client.drain())).toEqual(["effect:closed", "close"]);
  });

  it("refuses a reason code DISCONNECT cannot carry", () => {
    const client = new TestClient(5);
    client.connectAccepted();
    expect(client.conn.disconnect(0x85)).toBe(false);
    expect(client.conn.phase).toBe("connected");
  });

  it("a lost connection asks for the Will", () => {
    const client = new TestClient(5);
    client.connectAccepted({ will });
    client.conn.connectionLost();
    expect(closedOf(client.drain())).toMatchObject({ cause: "connection-lost", publishWill: true });
  });

  it("a refused connection never publishes its Will", () => {
    const client = new TestClient(5);
    client.connect({ will });
    client.conn.reject(0x87);
    expect(closedOf(client.drain()).publishWill).toBe(false);
  });

  it("nothing is emitted after the close", () => {
    const client = new TestClient(5);
    client.connectAccepted();
    client.conn.disconnect(0x8b);
    client.drain();
    client.conn.receiveBytes(new Uint8Array([0xc0, 0x00]));
    client.conn.tick(Number.MAX_SAFE_INTEGER);
    client.conn.connectionLost();
    expect(client.conn.deliver({ topic: "t", payload: new Uint8Array(), qos: 0, retain: false, dup: false })).toEqual({ status: "not-connected" });
    expect(client.conn.disconnect(0x8b)).toBe(false);
    expect(client.drain()).toEqual([]);
  });
});

describe("malformed bytes", () => {
  it("v5: a reserved packet type gets DISCONNECT 0x81 Malformed Packet", () => {
    const client = new TestClient(5);
    client.connectAccepted();
    const actions = client.sendBytes(new Uint8Array([0x00, 0x00]));
    expect(sentPackets(actions, 5)).toMatchObject([{ type: "disconnect", reasonCode: 0x81 }]);
    expect(closedOf(actions)).toMatchObject({ cause: "protocol-error", reasonCode: 0x81 });
  });

  it("v5: a packet over the server's Maximum Packet Size gets DISCONNECT 0x95", () => {
    const client = new TestClient(5, { maximumPacketSize: 64 });
    client.connectAccepted();
    const actions = client.sendBytes(new Uint8Array([0x30, 0xff, 0x01]));
    expect(sentPackets(actions, 5)).toMatchObject([{ type: "disconnect", reasonCode: 0x95 }]);
  });

  it("v5: a PUBACK with an invalid reason code gets DISCONNECT 0x81", () => {
    const client = new TestClient(5);
    client.connectAccepted();
    expect(sentPackets(client.sendBytes(new Uint8Array([0x40, 0x03, 0x00, 0x01, 0x05])), 5)).toMatchObject([
      { type: "disconnect", reasonCode: 0x81 },
    ]);
  });

  it("v5: a server-to-client packet from the client gets DISCONNECT 0x82", () => {
    const client = new TestClient(5);
    client.connectAccepted();
    expect(sentPackets(client.sendBytes(new Uint8Array([0xd0, 0x00])), 5)).toMatchObject([{ type: "disconnect", reasonCode: 0x82 }]);
  });

  it("v4: malformed bytes close the connection without a DISCONNECT", () => {
    const client = new TestClient(4);
    client.connectAccepted();
    const actions = client.sendBytes(new Uint8Array([0x00, 0x00]));
    expect(sentPackets(actions, 4)).toEqual([]);
    expect(closeOf(actions)).toBe(0x81);
  });

  it("v4: an AUTH packet, which 3.1.1 does not have, closes the connection as malformed", () => {
    const client = new TestClient(4);
    client.connectAccepted();
    expect(closeOf(client.sendBytes(new Uint8Array([0xf0, 0x00])))).toBe(0x81);
  });

  it("a malformed CONNECT closes without a CONNACK", () => {
    const client = new TestClient(5);
    const actions = client.sendBytes(new Uint8Array([0x10, 0x01, 0x00]));
    expect(sentPackets(actions, 5)).toEqual([]);
    expect(closeOf(actions)).toBe(0x81);
  });

  it("packets split across chunks and coalesced in one chunk are all processed", () => {
    const client = new TestClient(4);
    client.connectAccepted();
    const pings = new Uint8Array([0xc0, 0x00, 0xc0, 0x00, 0xc0]);
    expect(kindsOf(client.sendBytes(pings))).toEqual(["send:pingresp", "send:pingresp"]);
    expect(kindsOf(client.sendBytes(new Uint8Array([0x00])))).toEqual(["send:pingresp"]);
  });
});

describe("DISCONNECT before CONNACK", () => {
  it("a DISCONNECT while CONNECT awaits its verdict ends the connection without a Will", () => {
    const client = new TestClient(5);
    client.connect({ will });
    const actions = client.send(disconnect(0x04));
    expect(closedOf(actions)).toMatchObject({ cause: "client-disconnect", publishWill: false });
    expect(client.conn.accept({ sessionPresent: false })).toBe(false);
  });
});
