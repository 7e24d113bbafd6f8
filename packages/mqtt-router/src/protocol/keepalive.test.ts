import { describe, expect, it } from "vitest";
import { Keepalive } from "./keepalive.js";
import { TestClient, closeOf, effectsOf, sentPackets } from "./test-client.test-helpers.js";

describe("Keepalive", () => {
  it("expires only after one and a half intervals of silence", () => {
    const k = new Keepalive(0);
    k.setInterval(10);
    expect(k.expired(15_000)).toBe(false);
    expect(k.expired(15_001)).toBe(true);
  });

  it("restarts the wait when a packet arrives", () => {
    const k = new Keepalive(0);
    k.setInterval(10);
    k.received(10_000);
    expect(k.expired(20_000)).toBe(false);
    expect(k.deadline()).toBe(25_000);
  });

  it("never expires with a keep alive of 0", () => {
    const k = new Keepalive(0);
    k.setInterval(0);
    expect(k.expired(Number.MAX_SAFE_INTEGER)).toBe(false);
    expect(k.deadline()).toBeUndefined();
  });
});

describe("keep alive on a connection", () => {
  it("v5: a client silent for 1.5 × keep alive gets DISCONNECT 0x8D and is closed [MQTT-3.1.2-22]", () => {
    const client = new TestClient(5);
    client.connectAccepted({ keepAlive: 10 });
    client.clock.advance(15_000);
    client.conn.tick();
    expect(client.drain()).toEqual([]);
    client.clock.advance(1);
    client.conn.tick();
    const actions = client.drain();
    expect(sentPackets(actions, 5)).toMatchObject([{ type: "disconnect", reasonCode: 0x8d }]);
    expect(effectsOf(actions)).toMatchObject([{ kind: "closed", cause: "keepalive-timeout", reasonCode: 0x8d }]);
    expect(closeOf(actions)).toBe(0x8d);
  });

  it("v4: a silent client is closed without a DISCONNECT", () => {
    const client = new TestClient(4);
    client.connectAccepted({ keepAlive: 10 });
    client.conn.tick(client.clock.now() + 15_001);
    const actions = client.drain();
    expect(sentPackets(actions, 4)).toEqual([]);
    expect(closeOf(actions)).toBe(0x8d);
  });

  it("any packet from the client restarts the keep alive wait", () => {
    const client = new TestClient(5);
    client.connectAccepted({ keepAlive: 10 });
    client.clock.advance(14_000);
    expect(client.send({ type: "pingreq" }).map((a) => a.kind)).toEqual(["send"]);
    client.clock.advance(14_000);
    client.conn.tick();
    expect(client.drain()).toEqual([]);
    expect(client.conn.nextTimeout()).toBe(client.clock.now() + 1_000);
  });

  it("PINGREQ is answered with PINGRESP", () => {
    const client = new TestClient(4);
    client.connectAccepted();
    expect(sentPackets(client.send({ type: "pingreq" }), 4)).toEqual([{ type: "pingresp" }]);
  });

  it("v5: the Server Keep Alive replaces the client's value [MQTT-3.2.2-21]", () => {
    const client = new TestClient(5, { serverKeepAlive: 2 });
    client.connectAccepted({ keepAlive: 600 });
    client.conn.tick(client.clock.now() + 3_001);
    expect(closeOf(client.drain())).toBe(0x8d);
  });

  it("a keep alive of 0 disables the check", () => {
    const client = new TestClient(5);
    client.connectAccepted({ keepAlive: 0 });
    client.conn.tick(client.clock.now() + 1e9);
    expect(client.drain()).toEqual([]);
  });

  it("closes a connection that sends no CONNECT within the connect timeout", () => {
    const client = new TestClient(5, { connectTimeoutMs: 5_000 });
    expect(client.conn.nextTimeout()).toBe(client.clock.now() + 5_000);
    client.conn.tick(client.clock.now() + 5_000);
    expect(client.drain()).toEqual([]);
    client.conn.tick(client.clock.now() + 5_001);
    const actions = client.drain();
    expect(effectsOf(actions)).toMatchObject([{ kind: "closed", cause: "connect-timeout", publishWill: false }]);
    expect(closeOf(actions)).toBeDefined();
  });

  it("keeps the connect timeout running through an enhanced authentication exchange until CONNACK", () => {
    const client = new TestClient(5, { connectTimeoutMs: 5_000 });
    client.connect({ properties: { authenticationMethod: "SCRAM", authenticationData: new Uint8Array([1]) } });
    client.conn.authContinue(new Uint8Array([2]));
    client.drain();
    expect(client.conn.nextTimeout()).toBe(client.clock.now() + 5_000);
    client.conn.tick(client.clock.now() + 5_001);
    const actions = client.drain();
    expect(effectsOf(actions)).toMatchObject([{ kind: "closed", cause: "connect-timeout", publishWill: false }]);
    expect(closeOf(actions)).toBeDefined();
  });

  it("stops the connect timeout once the CONNECT is accepted", () => {
    const client = new TestClient(5, { connectTimeoutMs: 5_000 });
    client.connectAccepted({ keepAlive: 0 });
    client.conn.tick(client.clock.now() + 60_000);
    expect(client.drain()).toEqual([]);
  });
});
