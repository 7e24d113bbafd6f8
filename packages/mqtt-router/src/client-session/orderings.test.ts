// The protocol orderings the client session keeps, with the store's commits completed by the
// test: acknowledge only after the commit, CONNACK only after the claim's commit and before the
// session is bound, SUBACK before the retained messages it brings, takeover.
import { describe, expect, it } from "vitest";
import type { Packet } from "../codec/packet.js";
import { ReasonCode } from "../codec/reason-codes.js";
import { connectPacket } from "../protocol/test-client.test-helpers.js";
import { World, settle } from "./test-host.test-helpers.js";

const text = (s: string): Uint8Array => new TextEncoder().encode(s);

function publish(topic: string, packetId: number, retain = false): Packet {
  return { type: "publish", topic, payload: text("m"), qos: 1, dup: false, packetId, retain, properties: {} };
}

function subscribe(filter: string, packetId: number): Packet {
  return {
    type: "subscribe",
    packetId,
    subscriptions: [{ topicFilter: filter, qos: 1, noLocal: false, retainAsPublished: false, retainHandling: 0 }],
    properties: {},
  };
}

const types = (packets: readonly Packet[]): string[] => packets.map((p) => p.type);

const RESUME = { clientId: "c", cleanStart: false, properties: { sessionExpiryInterval: 300 } };

/** Client c's session, offline, subscribed to `t`, with one QoS 1 message queued for it. */
async function offlineWithQueued(): Promise<{ world: World; resume: typeof RESUME }> {
  const world = new World();
  const first = await world.connected("c", RESUME);
  first.send(subscribe("t", 1));
  await settle();
  await world.commits.commit();
  first.send({ type: "disconnect", reasonCode: 0, properties: {} });
  await settle();
  const pub = await world.connected("pub");
  pub.send(publish("t", 5));
  await settle();
  await world.commits.commit();
  return { world, resume: RESUME };
}

/** `sub` subscribed to t (committed), and `pub` connected. */
async function subscriberAndPublisher(world: World): Promise<{ sub: Awaited<ReturnType<World["connected"]>>; pub: Awaited<ReturnType<World["connected"]>> }> {
  const sub = await world.connected("sub");
  sub.send(subscribe("t", 1));
  await settle();
  await world.commits.commit();
  return { sub, pub: await world.connected("pub") };
}

describe("client session: acknowledgements wait for the commit", () => {
  it("sends no PUBACK before the commit is reported, and sends it once it is", async () => {
    const world = new World();
    const { host, send } = await world.connected("pub");
    send(publish("t", 7));
    await settle();
    expect(types(host.packets)).toEqual(["connack"]);
    expect(world.commits.pending).toBe(true);
    await world.commits.commit();
    expect(host.packets[1]).toMatchObject({ type: "puback", packetId: 7 });
  });

  it("keeps PUBACKs in the order of their PUBLISHes when one commit covers both", async () => {
    const world = new World();
    const { host, send } = await world.connected("pub");
    send(publish("t", 1), publish("t", 2));
    await settle();
    expect(types(host.packets)).toEqual(["connack"]);
    await world.commits.commit();
    expect(host.packets.slice(1)).toMatchObject([
      { type: "puback", packetId: 1 },
      { type: "puback", packetId: 2 },
    ]);
  });

  it("sends no PUBACK when the commit fails: DISCONNECT 0x80 instead", async () => {
    const world = new World();
    const { host, send } = await world.connected("pub");
    send(publish("t", 7));
    await settle();
    await world.commits.fail();
    expect(types(host.packets)).toEqual(["connack", "disconnect"]);
    expect(host.packets[1]).toMatchObject({ reasonCode: ReasonCode.UnspecifiedError });
    expect(host.closes).toBe(1);
  });

  it("holds a refusal for storage behind an acknowledgement still waiting for its commit", async () => {
    const world = new World();
    const { host, send } = await world.connected("pub");
    send(publish("t", 1));
    await settle();
    world.commits.admitting = false;
    send(publish("t", 2));
    await settle();
    expect(types(host.packets)).toEqual(["connack"]);
    await world.commits.commit();
    expect(host.packets.slice(1)).toMatchObject([
      { type: "puback", packetId: 1, reasonCode: ReasonCode.NoMatchingSubscribers },
      { type: "puback", packetId: 2, reasonCode: ReasonCode.QuotaExceeded },
    ]);
  });

  it("sends a QoS 1 delivery only once its routing is committed", async () => {
    const world = new World();
    const { sub, pub } = await subscriberAndPublisher(world);
    pub.send(publish("t", 9));
    await settle();
    expect(types(sub.host.packets)).toEqual(["connack", "suback"]);
    await world.commits.commit();
    expect(types(sub.host.packets)).toEqual(["connack", "suback", "publish"]);
    expect(types(pub.host.packets)).toEqual(["connack", "puback"]);
  });
});

describe("client session: taken over by another node", () => {
  it("drops a delivery and an acknowledgement waiting for a commit, then sends DISCONNECT 0x8E", async () => {
    const world = new World();
    const { sub, pub } = await subscriberAndPublisher(world);
    // Routed to sub and acknowledged to pub once committed; the other node's claim comes first,
    // so this node's writes for both are refused: neither client may see what they promise.
    pub.send(publish("t", 9));
    await settle();
    sub.session.takenOverElsewhere("moved");
    pub.session.takenOverElsewhere("moved");
    await world.commits.commit();
    expect(types(sub.host.packets)).toEqual(["connack", "suback", "disconnect"]);
    expect(sub.host.packets[2]).toMatchObject({ reasonCode: ReasonCode.SessionTakenOver });
    expect(types(pub.host.packets)).toEqual(["connack", "disconnect"]);
    expect(sub.host.closes).toBe(1);
  });
});

describe("client session: CONNACK", () => {
  it("waits for the commit of the session claim", async () => {
    const world = new World();
    const { host, send } = world.client("c");
    send(connectPacket(5, { clientId: "c" }));
    await settle();
    expect(host.packets).toEqual([]);
    await world.commits.commit();
    expect(types(host.packets)).toEqual(["connack"]);
  });

  it("goes out before the resumed session's queue: the session is bound only after it", async () => {
    const { world, resume } = await offlineWithQueued();
    world.log.length = 0;
    const again = world.client("c");
    again.send(connectPacket(5, resume));
    await settle();
    expect(again.host.packets).toEqual([]);
    await world.commits.commit();
    expect(world.log.filter((l) => l.startsWith("c:"))).toEqual(["c:connack"]);
    // Bound after the CONNACK: the queued copy goes out, once its packet id is committed.
    await world.commits.commit();
    expect(world.log.filter((l) => l.startsWith("c:"))).toEqual(["c:connack", "c:publish t"]);
    expect(again.host.packets[0]).toMatchObject({ type: "connack", sessionPresent: true });
  });

  it("does not refuse a CONNECT whose claim commit failed: the CONNACK waits for the store's retry", async () => {
    const world = new World();
    const { host, send, session } = world.client("c");
    send(connectPacket(5, { clientId: "c" }));
    await settle();
    await world.commits.fail();
    // The claim is applied and the store goes again: a 0x88 now would say nothing happened.
    expect(host.packets).toEqual([]);
    expect(session.phase).toBe("connecting");
    expect(world.commits.pending).toBe(true);
    await world.commits.commit();
    expect(host.packets).toMatchObject([{ type: "connack", reasonCode: ReasonCode.Success }]);
    expect(session.accepted).toBe(true);
  });

  it("sends no CONNACK at all when the client goes while its clean start's commit is retried", async () => {
    const world = new World();
    const resume = { clientId: "c", cleanStart: false, properties: { sessionExpiryInterval: 300 } };
    const first = await world.connected("c", resume);
    first.send({ type: "disconnect", reasonCode: 0, properties: {} });
    await settle();
    const again = world.client("c");
    again.send(connectPacket(5, { ...resume, cleanStart: true }));
    await settle();
    await world.commits.fail();
    again.session.connectionLost();
    await settle();
    expect(again.host.packets).toEqual([]);
    await world.commits.commit();
    // What the retry committed is what the next CONNECT sees: the clean start landed.
    const third = world.client("c");
    third.send(connectPacket(5, resume));
    await settle();
    await world.commits.commit();
    expect(third.host.packets[0]).toMatchObject({ type: "connack", sessionPresent: false });
  });

  it("refuses with 0x88 before applying anything while the store is not admitting: the old session and its queue stay", async () => {
    const { world, resume } = await offlineWithQueued();
    world.commits.admitting = false;
    const refused = world.client("c");
    refused.send(connectPacket(5, { ...resume, cleanStart: true }));
    await settle();
    expect(refused.host.packets).toMatchObject([{ type: "connack", reasonCode: ReasonCode.ServerUnavailable }]);
    expect(world.commits.pending).toBe(false);
    world.commits.admitting = true;
    const again = world.client("c");
    again.send(connectPacket(5, resume));
    await settle();
    await world.commits.commit();
    await world.commits.commit();
    expect(again.host.packets[0]).toMatchObject({ type: "connack", sessionPresent: true });
    expect(types(again.host.packets)).toEqual(["connack", "publish"]);
  });

  it("ends the CONNECT without a CONNACK, and without its will, when every commit fails at once", async () => {
    const world = new World();
    const watcher = await world.connected("watcher");
    watcher.send(subscribe("w", 1));
    await settle();
    await world.commits.commit();
    const { host, send, session } = world.client("c");
    world.commits.failingAtOnce = true;
    send(connectPacket(5, { clientId: "c", will: { topic: "w", payload: text("gone"), qos: 0, retain: false, properties: {} } }));
    await settle();
    expect(host.packets).toEqual([]);
    expect(host.closes).toBe(1);
    expect(session.phase).toBe("closed");
    expect(world.router.owner("c")).toBeUndefined();
    expect(types(watcher.host.packets)).toEqual(["connack", "suback"]);
  });
});

describe("client session: SUBACK before the retained messages", () => {
  it("holds the retained message, and what arrives meanwhile, behind the SUBACK's commit", async () => {
    const world = new World();
    const pub = await world.connected("pub");
    pub.send(publish("r/1", 1, true));
    await settle();
    await world.commits.commit();
    const sub = await world.connected("sub");
    sub.send(subscribe("r/#", 3));
    await settle();
    pub.send(publish("r/2", 2));
    await settle();
    expect(types(sub.host.packets)).toEqual(["connack"]);
    await world.commits.commit();
    expect(types(sub.host.packets)).toEqual(["connack", "suback"]);
    // Bound after the SUBACK: the retained copy, then the newer one, once their packet ids are committed.
    await world.commits.commit();
    expect(world.log.filter((l) => l.startsWith("sub:")).slice(1)).toEqual(["sub:suback", "sub:publish r/1", "sub:publish r/2"]);
  });
});

describe("client session: takeover", () => {
  it("tells the previous owner to leave (0x8E) before the new one's CONNACK, and the router's owner is the new session", async () => {
    const world = new World();
    const first = await world.connected("c");
    world.log.length = 0;
    const second = world.client("c2");
    second.send(connectPacket(5, { clientId: "c" }));
    await settle();
    expect(world.router.owner("c")).toBe(second.session);
    expect(first.session.owning).toBe(false);
    await world.commits.commit();
    expect(world.log).toEqual([
      "c2:took over c",
      `c:disconnect ${String(ReasonCode.SessionTakenOver)}`,
      "c:closed server-disconnect",
      "c:close",
      "c2:connack",
    ]);
    expect(second.session.owning).toBe(true);
  });

  it("leaves the session to the new owner when the displaced connection closes", async () => {
    const world = new World();
    const first = await world.connected("c", { cleanStart: false, properties: { sessionExpiryInterval: 300 } });
    const second = world.client("c2");
    second.send(connectPacket(5, { clientId: "c", cleanStart: false, properties: { sessionExpiryInterval: 300 } }));
    await settle();
    await world.commits.commit();
    first.session.connectionLost();
    await settle();
    expect(first.host.releasedIds).toEqual([]);
    expect(world.router.owner("c")).toBe(second.session);
    second.send({ type: "disconnect", reasonCode: 0, properties: {} });
    await settle();
    expect(second.host.releasedIds).toEqual(["c"]);
    expect(world.router.owner("c")).toBeUndefined();
  });
});
