import { concat } from "@handoff/test-kit";
import { describe, expect, it } from "vitest";
import type { ConnackPacket } from "../codec/packet.js";
import { connectReturnCode } from "./connect.js";
import type { ConnectRequestEffect } from "./effects.js";
import { TestClient, bytesOf, closeOf, connectPacket, effectsOf, kindsOf, sentPackets } from "./test-client.test-helpers.js";

function connackOf(client: TestClient, actions: Parameters<typeof sentPackets>[0]): ConnackPacket {
  const p = sentPackets(actions, client.version).find((x) => x.type === "connack");
  if (p?.type !== "connack") throw new Error("no CONNACK sent");
  return p;
}

function requestOf(actions: Parameters<typeof effectsOf>[0]): ConnectRequestEffect {
  const e = effectsOf(actions).find((x) => x.kind === "connect-request");
  if (e?.kind !== "connect-request") throw new Error("no connect-request");
  return e;
}

describe("CONNECT", () => {
  it.each([4, 5] as const)("v%i: a valid CONNECT yields a connect-request and no CONNACK until accepted", (v) => {
    const client = new TestClient(v);
    const actions = client.connect({ clientId: "dev-7", username: "u", password: new Uint8Array([1]) });
    expect(kindsOf(actions)).toEqual(["effect:connect-request"]);
    const req = requestOf(actions);
    expect(req).toMatchObject({ clientId: "dev-7", clientIdAssigned: false, protocolVersion: v, username: "u", keepAlive: 60 });
  });

  it.each([4, 5] as const)("v%i: accept sends CONNACK 0x00 with the session present flag [MQTT-3.2.2-3]", (v) => {
    const client = new TestClient(v);
    const actions = client.connectAccepted({ cleanStart: false }, { sessionPresent: true });
    const connack = connackOf(client, actions);
    expect(connack.reasonCode).toBe(0);
    expect(connack.sessionPresent).toBe(true);
    expect(client.conn.phase).toBe("connected");
  });

  it("forces Session Present to 0 when Clean Start is set [MQTT-3.2.2-2]", () => {
    const client = new TestClient(5);
    const connack = connackOf(client, client.connectAccepted({ cleanStart: true }, { sessionPresent: true }));
    expect(connack.sessionPresent).toBe(false);
  });

  it.each([4, 5] as const)("v%i: the first packet must be CONNECT, otherwise the connection closes [MQTT-3.1.0-1]", (v) => {
    const client = new TestClient(v);
    const actions = client.sendBytes(new Uint8Array([0xc0, 0x00])); // PINGREQ
    expect(sentPackets(actions, v)).toEqual([]);
    expect(closeOf(actions)).toBe(0x82);
  });

  it("v5: a second CONNECT is a protocol error answered with DISCONNECT 0x82 [MQTT-3.1.0-2]", () => {
    const client = new TestClient(5);
    client.connectAccepted();
    const actions = client.connect();
    expect(sentPackets(actions, 5)).toMatchObject([{ type: "disconnect", reasonCode: 0x82 }]);
    expect(closeOf(actions)).toBe(0x82);
  });

  it("v4: a second CONNECT closes the connection without a DISCONNECT [MQTT-3.1.0-2]", () => {
    const client = new TestClient(4);
    client.connectAccepted();
    const actions = client.connect();
    expect(sentPackets(actions, 4)).toEqual([]);
    expect(closeOf(actions)).toBe(0x82);
  });

  it("refuses MQTT 3.1 (level 3) with return code 0x01 and closes", () => {
    const client = new TestClient(4);
    const actions = client.sendBytes(bytesOf(connectPacket(4, { protocolVersion: 3 }), 4));
    expect(connackOf(client, actions).reasonCode).toBe(0x01);
    expect(closeOf(actions)).toBe(0x84);
  });

  it("refuses an unknown protocol level with return code 0x01 in the 3.1.1 format", () => {
    const client = new TestClient(4);
    const bytes = bytesOf(connectPacket(4), 4);
    bytes[8] = 6; // protocol level byte after the "MQTT" name
    const actions = client.sendBytes(bytes);
    expect(connackOf(client, actions).reasonCode).toBe(0x01);
    expect(closeOf(actions)).toBe(0x84);
  });

  it("v5: a server that only speaks 3.1.1 refuses MQTT 5 with CONNACK 0x84", () => {
    const client = new TestClient(5, { protocolVersions: [4] });
    const actions = client.connect();
    expect(connackOf(client, actions).reasonCode).toBe(0x84);
    expect(closeOf(actions)).toBe(0x84);
  });

  it("v5: an empty client id gets an assigned one, returned in CONNACK [MQTT-3.1.3-6] [MQTT-3.2.2-16]", () => {
    const client = new TestClient(5);
    const actions = client.connect({ clientId: "", cleanStart: false });
    expect(requestOf(actions)).toMatchObject({ clientId: "auto-1", clientIdAssigned: true });
    client.conn.accept({ sessionPresent: false });
    expect(connackOf(client, client.drain()).properties.assignedClientIdentifier).toBe("auto-1");
  });

  it("v4: an empty client id with Clean Session gets a generated id", () => {
    const client = new TestClient(4);
    expect(requestOf(client.connect({ clientId: "", cleanStart: true }))).toMatchObject({ clientId: "auto-1", clientIdAssigned: true });
  });

  it("v4: an empty client id without Clean Session is refused with return code 0x02 (3.1.1 [MQTT-3.1.3-8])", () => {
    const client = new TestClient(4);
    const actions = client.connect({ clientId: "", cleanStart: false });
    expect(connackOf(client, actions)).toMatchObject({ reasonCode: 0x02, sessionPresent: false });
    expect(closeOf(actions)).toBe(0x85);
  });

  it.each([
    [5, 0x85],
    [4, 0x02],
  ] as const)("v%i: a client id longer than the configured maximum is refused with %i [MQTT-3.1.3-8]", (v, code) => {
    const client = new TestClient(v, { clientIdMaxLength: 4 });
    expect(connackOf(client, client.connect({ clientId: "toolong" })).reasonCode).toBe(code);
  });

  it("v5: a client id outside the configured charset is refused with 0x85", () => {
    const client = new TestClient(5, { clientIdPattern: /^[a-z0-9]+$/ });
    expect(connackOf(client, client.connect({ clientId: "Bad Id" })).reasonCode).toBe(0x85);
  });

  it("v5: a Will QoS above the server's Maximum QoS is refused with 0x9B [MQTT-3.2.2-12]", () => {
    const client = new TestClient(5, { maximumQoS: 1 });
    const will = { topic: "w", payload: new Uint8Array(), qos: 2, retain: false, properties: {} } as const;
    expect(connackOf(client, client.connect({ will })).reasonCode).toBe(0x9b);
  });

  it("v5: a retained Will without retain support is refused with 0x9A [MQTT-3.2.2-13]", () => {
    const client = new TestClient(5, { retainAvailable: false });
    const will = { topic: "w", payload: new Uint8Array(), qos: 0, retain: true, properties: {} } as const;
    expect(connackOf(client, client.connect({ will })).reasonCode).toBe(0x9a);
  });

  it("v5: reject sends CONNACK with the reason code and a reason string, then closes [MQTT-3.2.2-7]", () => {
    const client = new TestClient(5);
    client.connect();
    expect(client.conn.reject(0x86, "bad password")).toBe(true);
    const actions = client.drain();
    expect(connackOf(client, actions)).toMatchObject({ reasonCode: 0x86, sessionPresent: false, properties: { reasonString: "bad password" } });
    expect(kindsOf(actions)).toEqual(["send:connack", "effect:closed", "close"]);
  });

  it("v5: reason strings are left out when configured off", () => {
    const client = new TestClient(5, { reasonStrings: false });
    client.connect();
    client.conn.reject(0x87, "nope");
    expect(connackOf(client, client.drain()).properties.reasonString).toBeUndefined();
  });

  it("v4: reject maps the reason code to a 3.1.1 return code", () => {
    const client = new TestClient(4);
    client.connect();
    client.conn.reject(0x86);
    expect(connackOf(client, client.drain()).reasonCode).toBe(0x04);
  });

  it("maps MQTT 5 refusal codes to the nearest 3.1.1 return codes", () => {
    expect([0x84, 0x85, 0x86, 0x87, 0x88, 0x89].map(connectReturnCode)).toEqual([1, 2, 4, 5, 3, 3]);
  });

  it("refuses a success code passed to reject", () => {
    const client = new TestClient(5);
    client.connect();
    expect(client.conn.reject(0x00)).toBe(false);
    expect(client.conn.phase).toBe("connecting");
  });

  it("v5: CONNACK announces the server limits that differ from the defaults", () => {
    const client = new TestClient(5, {
      receiveMaximum: 10,
      maximumPacketSize: 4096,
      topicAliasMaximum: 8,
      maximumQoS: 1,
      retainAvailable: false,
      wildcardSubscriptionAvailable: false,
      subscriptionIdentifiersAvailable: false,
      sharedSubscriptionAvailable: false,
      serverKeepAlive: 30,
    });
    const connack = connackOf(client, client.connectAccepted());
    expect(connack.properties).toEqual({
      receiveMaximum: 10,
      maximumPacketSize: 4096,
      topicAliasMaximum: 8,
      maximumQoS: 1,
      retainAvailable: false,
      wildcardSubscriptionAvailable: false,
      subscriptionIdentifiersAvailable: false,
      sharedSubscriptionAvailable: false,
      serverKeepAlive: 30,
    });
  });

  it("v5: CONNACK carries the Session Expiry Interval when the server lowered it", () => {
    const client = new TestClient(5, { maximumSessionExpiryInterval: 100 });
    const actions = client.connect({ properties: { sessionExpiryInterval: 3600 } });
    expect(requestOf(actions).sessionExpiryInterval).toBe(100);
    client.conn.accept({ sessionPresent: false });
    expect(connackOf(client, client.drain()).properties.sessionExpiryInterval).toBe(100);
  });

  it("v5: CONNACK leaves the Session Expiry Interval out when the server kept the client's", () => {
    const client = new TestClient(5);
    const connack = connackOf(client, client.connectAccepted({ properties: { sessionExpiryInterval: 60 } }));
    expect(connack.properties.sessionExpiryInterval).toBeUndefined();
  });

  it("v4: a persistent session never expires and a clean one ends with the connection", () => {
    expect(requestOf(new TestClient(4).connect({ cleanStart: false })).sessionExpiryInterval).toBe(0xffffffff);
    expect(requestOf(new TestClient(4).connect({ cleanStart: true })).sessionExpiryInterval).toBe(0);
  });

  it("v5: the connect-request carries the client's limits and will", () => {
    const client = new TestClient(5);
    const will = { topic: "w/t", payload: new Uint8Array([9]), qos: 1, retain: false, properties: { willDelayInterval: 5 } } as const;
    const req = requestOf(
      client.connect({ will, properties: { receiveMaximum: 3, maximumPacketSize: 500, topicAliasMaximum: 2, requestProblemInformation: false } }),
    );
    expect(req).toMatchObject({ receiveMaximum: 3, maximumPacketSize: 500, topicAliasMaximum: 2, requestProblemInformation: false });
    expect(req.will?.topic).toBe("w/t");
  });

  it("holds packets sent after CONNECT until the connection is accepted [MQTT-3.1.4-6]", () => {
    const client = new TestClient(5);
    const actions = client.send(connectPacket(5), { type: "pingreq" });
    expect(kindsOf(actions)).toEqual(["effect:connect-request"]);
    client.conn.accept({ sessionPresent: false });
    expect(kindsOf(client.drain())).toEqual(["send:connack", "send:pingresp"]);
  });

  it("holds packets that arrive in the same chunk as the CONNECT", () => {
    const client = new TestClient(4);
    const connect = bytesOf(connectPacket(4), 4);
    const both = new Uint8Array(connect.length + 2);
    both.set(connect);
    both.set([0xc0, 0x00], connect.length);
    expect(kindsOf(client.sendBytes(both))).toEqual(["effect:connect-request"]);
    client.conn.accept({ sessionPresent: false });
    expect(kindsOf(client.drain())).toEqual(["send:connack", "send:pingresp"]);
  });

  it("never processes packets sent after a rejected CONNECT [MQTT-3.1.4-6]", () => {
    const client = new TestClient(5);
    client.send(connectPacket(5), { type: "subscribe", packetId: 1, subscriptions: [{ topicFilter: "a", qos: 0, noLocal: false, retainAsPublished: false, retainHandling: 0 }], properties: {} });
    client.conn.reject(0x87);
    expect(effectsOf(client.drain()).map((e) => e.kind)).toEqual(["closed"]);
  });

  it("closes a connection that sends too much before its CONNECT is accepted", () => {
    const client = new TestClient(5, { maxPendingBytes: 10 });
    client.connect();
    const pings = new Uint8Array(64).map((_, i) => (i % 2 === 0 ? 0xc0 : 0));
    const actions = client.sendBytes(pings);
    expect(sentPackets(actions, 5)).toMatchObject([{ type: "connack", reasonCode: 0x97 }]);
    expect(closeOf(actions)).toBe(0x97);
  });

  it("counts the packets that arrive in the same chunk as the CONNECT against the bytes held before CONNACK", () => {
    const client = new TestClient(5, { maxPendingBytes: 1000 });
    const connect = bytesOf(connectPacket(5), 5);
    const ping = bytesOf({ type: "pingreq" }, 5);
    const within = new TestClient(5, { maxPendingBytes: 1000 });
    expect(closeOf(within.sendBytes(concat([connect, ...Array.from({ length: 500 }, () => ping)])))).toBeUndefined();
    const actions = client.sendBytes(concat([connect, ...Array.from({ length: 501 }, () => ping)]));
    expect(sentPackets(actions, 5)).toMatchObject([{ type: "connack", reasonCode: 0x97 }]);
    expect(closeOf(actions)).toBe(0x97);
  });

  it("answers 100,000 PINGREQs held before CONNACK once it is accepted, in order", () => {
    const client = new TestClient(5, { maxPendingBytes: 1 << 20 });
    const ping = bytesOf({ type: "pingreq" }, 5);
    client.sendBytes(concat([bytesOf(connectPacket(5), 5), ...Array.from({ length: 100_000 }, () => ping)]));
    client.conn.accept({ sessionPresent: false });
    const kinds = kindsOf(client.drain());
    expect(kinds[0]).toBe("send:connack");
    expect(kinds.slice(1).every((k) => k === "send:pingresp")).toBe(true);
    expect(kinds).toHaveLength(100_001);
  });

  it("v4: too much sent before CONNACK gets return code 3 (Server unavailable), then the close", () => {
    const client = new TestClient(4, { maxPendingBytes: 10 });
    client.connect();
    const actions = client.sendBytes(new Uint8Array(64).map((_, i) => (i % 2 === 0 ? 0xc0 : 0)));
    expect(sentPackets(actions, 4)).toMatchObject([{ type: "connack", reasonCode: 3 }]);
    expect(effectsOf(actions)).toMatchObject([{ kind: "closed", cause: "protocol-error", reasonCode: 0x97 }]);
    expect(closeOf(actions)).toBe(0x97);
  });

  it("with an input budget, packets held before CONNACK are answered a budget per resume, in order, behind none of the later input", () => {
    const client = new TestClient(5, { inputBudgetBytes: 200 });
    const ping = bytesOf({ type: "pingreq" }, 5);
    client.sendBytes(concat([bytesOf(connectPacket(5), 5), ...Array.from({ length: 100_000 }, () => ping)]));
    expect(client.conn.backlogged).toBe(false); // held for the verdict, not for the budget
    client.conn.accept({ sessionPresent: false });
    const first = kindsOf(client.drain());
    expect(first).toEqual(["send:connack", ...Array.from({ length: 100 }, () => "send:pingresp")]);
    expect(client.conn.backlogged).toBe(true);
    // Input arriving meanwhile waits behind the held packets.
    const later = client.send({ type: "subscribe", packetId: 7, subscriptions: [{ topicFilter: "t", qos: 0, noLocal: false, retainAsPublished: false, retainHandling: 0 }], properties: {} });
    expect(kindsOf(later)).toEqual(Array.from({ length: 100 }, () => "send:pingresp"));
    const rest: string[] = [];
    let resumes = 0;
    while (client.conn.backlogged) {
      client.conn.resume();
      const kinds = kindsOf(client.drain());
      expect(kinds.length).toBeLessThanOrEqual(100);
      rest.push(...kinds);
      resumes += 1;
    }
    expect(resumes).toBe(999);
    expect(rest.slice(0, -1).every((k) => k === "send:pingresp")).toBe(true);
    expect(rest).toHaveLength(99_801);
    expect(rest.at(-1)).toBe("effect:subscribe");
  });

  it("with an input budget, a packet larger than the budget still goes through, one per call", () => {
    const client = new TestClient(5, { inputBudgetBytes: 10 });
    client.connectAccepted();
    const publish = (n: number): Uint8Array => bytesOf({ type: "publish", topic: "t", qos: 0, retain: false, dup: false, payload: new Uint8Array(n), properties: {} }, 5);
    const first = client.sendBytes(concat([publish(100), publish(1)]));
    expect(effectsOf(first).map((e) => e.kind)).toEqual(["publish"]);
    expect(client.conn.backlogged).toBe(true);
    client.conn.resume();
    expect(effectsOf(client.drain()).map((e) => e.kind)).toEqual(["publish"]);
    expect(client.conn.backlogged).toBe(false);
  });

  it("accept with limits CONNACK cannot carry leaves the CONNECT pending", () => {
    const client = new TestClient(5);
    client.connect();
    expect(client.conn.accept({ sessionPresent: false, limits: { receiveMaximum: 0 } })).toBe(false);
    expect(client.conn.phase).toBe("connecting");
    expect(client.drain()).toEqual([]);
  });

  it("accept and reject do nothing once the CONNECT was answered", () => {
    const client = new TestClient(5);
    client.connectAccepted();
    expect(client.conn.accept({ sessionPresent: false })).toBe(false);
    expect(client.conn.reject(0x87)).toBe(false);
    expect(client.drain()).toEqual([]);
  });
});
