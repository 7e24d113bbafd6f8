import { describe, expect, it } from "vitest";
import type { AuthPacket } from "../codec/packet.js";
import { TestClient, closeOf, effectsOf, kindsOf, sentPackets } from "./test-client.test-helpers.js";

const data = (...b: number[]) => new Uint8Array(b);

function auth(reasonCode: 0x00 | 0x18 | 0x19, method = "SCRAM", d?: Uint8Array): AuthPacket {
  return { type: "auth", reasonCode, properties: d === undefined ? { authenticationMethod: method } : { authenticationMethod: method, authenticationData: d } };
}

function startEnhanced(): TestClient {
  const client = new TestClient(5);
  client.connect({ properties: { authenticationMethod: "SCRAM", authenticationData: data(1) } });
  return client;
}

describe("enhanced authentication at CONNECT", () => {
  it("the connect-request carries the Authentication Method and Data", () => {
    const client = new TestClient(5);
    const effects = effectsOf(client.connect({ properties: { authenticationMethod: "SCRAM", authenticationData: data(1) } }));
    expect(effects).toMatchObject([{ kind: "connect-request", authentication: { method: "SCRAM", data: data(1) } }]);
  });

  it("authContinue sends AUTH 0x18; the client's AUTH 0x18 reaches the app; accept ends with CONNACK carrying the method [MQTT-4.12.0-1]", () => {
    const client = startEnhanced();
    expect(client.conn.authContinue(data(2))).toBe(true);
    expect(sentPackets(client.drain(), 5)).toEqual([
      { type: "auth", reasonCode: 0x18, properties: { authenticationMethod: "SCRAM", authenticationData: data(2) } },
    ]);
    expect(effectsOf(client.send(auth(0x18, "SCRAM", data(3))))).toEqual([
      { kind: "auth", phase: "connect", reasonCode: 0x18, method: "SCRAM", data: data(3), userProperties: [] },
    ]);
    client.conn.accept({ sessionPresent: false, authenticationData: data(4) });
    expect(sentPackets(client.drain(), 5)).toMatchObject([
      { type: "connack", reasonCode: 0, properties: { authenticationMethod: "SCRAM", authenticationData: data(4) } },
    ]);
  });

  it("an AUTH with a different method before CONNACK gets CONNACK 0x8C", () => {
    const client = startEnhanced();
    client.conn.authContinue(data(2));
    client.drain();
    const actions = client.send(auth(0x18, "OTHER"));
    expect(sentPackets(actions, 5)).toMatchObject([{ type: "connack", reasonCode: 0x8c }]);
    expect(closeOf(actions)).toBe(0x8c);
  });

  it("an AUTH 0x18 the server did not ask for is a protocol error", () => {
    const client = startEnhanced();
    expect(sentPackets(client.send(auth(0x18)), 5)).toMatchObject([{ type: "connack", reasonCode: 0x82 }]);
  });

  it("reject during the exchange refuses the connection", () => {
    const client = startEnhanced();
    client.conn.authContinue();
    client.conn.reject(0x87);
    expect(kindsOf(client.drain())).toEqual(["send:auth", "send:connack", "effect:closed", "close"]);
  });

  it("AUTH from a client whose CONNECT had no Authentication Method is a protocol error", () => {
    const client = new TestClient(5);
    client.connectAccepted();
    expect(sentPackets(client.send(auth(0x19)), 5)).toMatchObject([{ type: "disconnect", reasonCode: 0x82 }]);
  });

  it("authContinue without an enhanced authentication does nothing", () => {
    const client = new TestClient(5);
    client.connect();
    expect(client.conn.authContinue(data(1))).toBe(false);
    expect(client.drain()).toEqual([]);
  });
});

describe("re-authentication", () => {
  function connected(): TestClient {
    const client = startEnhanced();
    client.conn.accept({ sessionPresent: false });
    client.drain();
    return client;
  }

  it("AUTH 0x19 reaches the app; authContinue and authSucceeded send AUTH 0x18 and AUTH 0x00 [MQTT-4.12.1-1]", () => {
    const client = connected();
    expect(effectsOf(client.send(auth(0x19, "SCRAM", data(5))))).toMatchObject([{ kind: "auth", phase: "reauthenticate", reasonCode: 0x19 }]);
    client.conn.authContinue(data(6));
    expect(sentPackets(client.drain(), 5)).toMatchObject([{ type: "auth", reasonCode: 0x18, properties: { authenticationData: data(6) } }]);
    expect(effectsOf(client.send(auth(0x18, "SCRAM", data(7))))).toMatchObject([{ kind: "auth", phase: "reauthenticate", reasonCode: 0x18 }]);
    expect(client.conn.authSucceeded()).toBe(true);
    expect(sentPackets(client.drain(), 5)).toMatchObject([{ type: "auth", reasonCode: 0x00, properties: { authenticationMethod: "SCRAM" } }]);
  });

  it("other packets keep flowing during a re-authentication", () => {
    const client = connected();
    client.send(auth(0x19));
    expect(kindsOf(client.send({ type: "pingreq" }))).toEqual(["send:pingresp"]);
  });

  it("a re-authentication with a different method gets DISCONNECT 0x82", () => {
    const client = connected();
    expect(sentPackets(client.send(auth(0x19, "OTHER")), 5)).toMatchObject([{ type: "disconnect", reasonCode: 0x82 }]);
  });

  it("reject during a re-authentication sends DISCONNECT with the reason code", () => {
    const client = connected();
    client.send(auth(0x19));
    expect(client.conn.reject(0x87)).toBe(true);
    const actions = client.drain();
    expect(sentPackets(actions, 5)).toMatchObject([{ type: "disconnect", reasonCode: 0x87 }]);
    expect(closeOf(actions)).toBe(0x87);
  });

  it("authSucceeded without a re-authentication under way does nothing", () => {
    const client = connected();
    expect(client.conn.authSucceeded()).toBe(false);
    expect(client.drain()).toEqual([]);
  });
});
