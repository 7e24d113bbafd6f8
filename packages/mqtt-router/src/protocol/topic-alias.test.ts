import { describe, expect, it } from "vitest";
import type { PublishPacket } from "../codec/packet.js";
import { InboundTopicAliases, OutboundTopicAliases } from "./topic-alias.js";
import { TestClient, bytesOf, closeOf, effectsOf, sentPackets } from "./test-client.test-helpers.js";

function publish(topic: string, alias?: number): PublishPacket {
  return { type: "publish", qos: 0, retain: false, dup: false, topic, payload: new Uint8Array([1]), properties: alias === undefined ? {} : { topicAlias: alias } };
}

describe("InboundTopicAliases", () => {
  it("binds an alias sent with a topic and resolves it later", () => {
    const a = new InboundTopicAliases(4);
    expect(a.resolve("x/y", 2)).toEqual({ ok: true, topic: "x/y" });
    expect(a.resolve("", 2)).toEqual({ ok: true, topic: "x/y" });
  });

  it("rebinds an alias to a new topic", () => {
    const a = new InboundTopicAliases(4);
    a.resolve("x", 1);
    a.resolve("y", 1);
    expect(a.resolve("", 1)).toEqual({ ok: true, topic: "y" });
  });

  it("refuses an alias above the maximum with 0x94 [MQTT-3.3.2-9]", () => {
    expect(new InboundTopicAliases(4).resolve("x", 5)).toMatchObject({ ok: false, reasonCode: 0x94 });
  });

  it("refuses an alias that was never bound with a protocol error", () => {
    expect(new InboundTopicAliases(4).resolve("", 3)).toMatchObject({ ok: false, reasonCode: 0x82 });
  });
});

describe("OutboundTopicAliases", () => {
  it("assigns a new alias with the topic, then sends the alias alone", () => {
    const a = new OutboundTopicAliases(2);
    const first = a.plan("t/1");
    expect(first).toMatchObject({ topic: "t/1", alias: 1 });
    first.commit();
    expect(a.plan("t/1")).toMatchObject({ topic: "", alias: 1 });
  });

  it("does not bind an alias whose PUBLISH was not sent", () => {
    const a = new OutboundTopicAliases(2);
    a.plan("t/1");
    expect(a.plan("t/1")).toMatchObject({ topic: "t/1", alias: 1 });
  });

  it("never uses an alias above the client's maximum: a new topic rebinds one, sent with its name [MQTT-3.3.2-11]", () => {
    const a = new OutboundTopicAliases(1);
    a.plan("t/1").commit();
    const p = a.plan("t/2");
    expect(p).toMatchObject({ topic: "t/2", alias: 1 });
    p.commit();
    expect(a.plan("t/2")).toMatchObject({ topic: "", alias: 1 });
    expect(a.plan("t/1")).toMatchObject({ topic: "t/1", alias: 1 });
  });

  it("rebinds the alias of the least recently sent topic", () => {
    const a = new OutboundTopicAliases(2);
    a.plan("t/1").commit();
    a.plan("t/2").commit();
    a.plan("t/1").commit(); // t/1 sent again: t/2 is now the oldest
    const p = a.plan("t/3");
    expect(p).toMatchObject({ topic: "t/3", alias: 2 });
    p.commit();
    expect(a.plan("t/1")).toMatchObject({ topic: "", alias: 1 });
    expect(a.plan("t/2").topic).toBe("t/2");
  });

  it("uses no alias at all when the client accepts none", () => {
    const p = new OutboundTopicAliases(0).plan("t/1");
    expect(p.topic).toBe("t/1");
    expect(p.alias).toBeUndefined();
  });
});

describe("topic aliases on a connection", () => {
  it("v5: an inbound alias resolves to its topic in the publish effect, without the alias property", () => {
    const client = new TestClient(5, { topicAliasMaximum: 5 });
    client.connectAccepted();
    client.send(publish("a/b", 3));
    const effects = effectsOf(client.send(publish("", 3)));
    expect(effects).toMatchObject([{ kind: "publish", topic: "a/b" }]);
    expect(effects[0]?.kind === "publish" && effects[0].properties.topicAlias).toBeUndefined();
  });

  it("v5: an inbound alias of 0 ends the connection with DISCONNECT 0x94 [MQTT-3.3.2-8]", () => {
    const client = new TestClient(5, { topicAliasMaximum: 5 });
    client.connectAccepted();
    const bytes = bytesOf(publish("a", 1), 5);
    bytes[bytes.length - 2] = 0; // the alias's two bytes sit just before the one-byte payload
    const actions = client.sendBytes(bytes);
    expect(sentPackets(actions, 5)).toMatchObject([{ type: "disconnect", reasonCode: 0x94 }]);
    expect(closeOf(actions)).toBe(0x94);
  });

  it("v5: an inbound alias above the server's maximum ends the connection with DISCONNECT 0x94", () => {
    const client = new TestClient(5, { topicAliasMaximum: 2 });
    client.connectAccepted();
    const actions = client.send(publish("a", 3));
    expect(sentPackets(actions, 5)).toMatchObject([{ type: "disconnect", reasonCode: 0x94 }]);
  });

  it("v5: any inbound alias is invalid when the server allows none", () => {
    const client = new TestClient(5);
    client.connectAccepted();
    expect(closeOf(client.send(publish("a", 1)))).toBe(0x94);
  });

  it("v5: outbound PUBLISHes get an alias and reuse it when the client allows aliases", () => {
    const client = new TestClient(5);
    client.connectAccepted({ properties: { topicAliasMaximum: 4 } });
    const msg = { topic: "s/1", payload: new Uint8Array([7]), qos: 0, retain: false, dup: false } as const;
    client.conn.deliver(msg);
    client.conn.deliver(msg);
    expect(sentPackets(client.drain(), 5)).toMatchObject([
      { topic: "s/1", properties: { topicAlias: 1 } },
      { topic: "", properties: { topicAlias: 1 } },
    ]);
  });

  it("v5: outbound PUBLISHes carry no alias when the client set no Topic Alias Maximum", () => {
    const client = new TestClient(5);
    client.connectAccepted();
    client.conn.deliver({ topic: "s/1", payload: new Uint8Array(), qos: 0, retain: false, dup: false, properties: { topicAlias: 9 } });
    expect(sentPackets(client.drain(), 5)).toMatchObject([{ topic: "s/1", properties: {} }]);
  });

  it("offers no shared encoding version while outbound aliases are in use, and the version otherwise", () => {
    const aliased = new TestClient(5);
    expect(aliased.conn.sharedPublishVersion).toBeUndefined();
    aliased.connectAccepted({ properties: { topicAliasMaximum: 4 } });
    expect(aliased.conn.sharedPublishVersion).toBeUndefined();
    const plain = new TestClient(5);
    plain.connectAccepted();
    expect(plain.conn.sharedPublishVersion).toBe(5);
    const old = new TestClient(4);
    old.connectAccepted();
    expect(old.conn.sharedPublishVersion).toBe(4);
  });

  it("v5: outbound aliases can be turned off", () => {
    const client = new TestClient(5, { outboundTopicAliases: false });
    client.connectAccepted({ properties: { topicAliasMaximum: 4 } });
    client.conn.deliver({ topic: "s/1", payload: new Uint8Array(), qos: 0, retain: false, dup: false });
    expect(sentPackets(client.drain(), 5)).toMatchObject([{ topic: "s/1", properties: {} }]);
  });
});
