// Async authorization decisions: the test settles each hook's promise when and in the order it
// chooses, and checks that a connection's PUBLISHes are still planned in arrival order, that a
// refusal (or a hook that rejects) answers 0x87, that nothing is planned for a connection told
// to leave while a decision was pending, that pending messages count against Receive Maximum,
// and that a decision given at once costs no microtask.
import { describe, expect, it } from "vitest";
import type { Packet, QoS } from "../codec/packet.js";
import { ReasonCode } from "../codec/reason-codes.js";
import { connectPacket } from "../protocol/test-client.test-helpers.js";
import { World, settle } from "./test-host.test-helpers.js";

const text = (s: string): Uint8Array => new TextEncoder().encode(s);

function publish(topic: string, qos: QoS, packetId?: number, dup = false): Packet {
  const base = { type: "publish" as const, topic, payload: text(topic), retain: false, properties: {} };
  return qos === 0 || packetId === undefined ? { ...base, qos: 0, dup: false } : { ...base, qos, packetId, dup };
}

function subscribe(packetId: number, ...filters: string[]): Packet {
  return {
    type: "subscribe",
    packetId,
    subscriptions: filters.map((topicFilter) => ({ topicFilter, qos: 0 as const, noLocal: false, retainAsPublished: false, retainHandling: 0 as const })),
    properties: {},
  };
}

/** An async hook whose answers the test gives, per topic, when it chooses. */
class Gate {
  readonly asked: string[] = [];
  readonly #waiting = new Map<string, { resolve: (allowed: boolean) => void; reject: (err: unknown) => void }>();

  readonly decide = (topic: string): Promise<boolean> =>
    new Promise<boolean>((resolve, reject) => {
      this.asked.push(topic);
      this.#waiting.set(topic, { resolve, reject });
    });

  async answer(topic: string, allowed: boolean): Promise<void> {
    this.#take(topic).resolve(allowed);
    await settle();
  }

  async fail(topic: string): Promise<void> {
    this.#take(topic).reject(new Error("user database unreachable"));
    await settle();
  }

  #take(topic: string): { resolve: (allowed: boolean) => void; reject: (err: unknown) => void } {
    const waiting = this.#waiting.get(topic);
    if (waiting === undefined) throw new Error(`the hook was not asked about ${topic}`);
    this.#waiting.delete(topic);
    return waiting;
  }
}

/** Commits until nothing waits for a commit (each decision that came in may start a batch). */
async function commitAll(world: World): Promise<void> {
  while (world.commits.pending) await world.commits.commit();
}

const delivered = (world: World, name: string): string[] => world.log.filter((l) => l.startsWith(`${name}:publish`)).map((l) => l.slice(name.length + 9));
const acks = (packets: readonly Packet[]): [number | undefined, number | undefined][] =>
  packets.flatMap((p) => (p.type === "puback" || p.type === "pubrec" ? [[p.packetId, p.reasonCode]] : []));

/** A subscriber of `t/#` (QoS 0: its copies need no commit) and a publisher whose PUBLISHes `gate` decides. */
async function publisherAndSubscriber(world: World, gate: Gate, overrides: Parameters<World["connected"]>[1] = {}) {
  const sub = await world.connected("sub");
  sub.send(subscribe(1, "t/#"));
  await settle();
  if (world.durable) await world.commits.commit();
  const pub = await world.connected("pub", overrides);
  pub.host.mayPublish = gate.decide;
  return { sub, pub };
}

describe("async authorization of PUBLISH", () => {
  it("asks about every queued PUBLISH at once, and plans them in arrival order whatever order the answers come in", async () => {
    const world = new World();
    const gate = new Gate();
    const { pub } = await publisherAndSubscriber(world, gate);
    pub.send(publish("t/1", 1, 1), publish("t/2", 1, 2), publish("t/3", 0));
    await settle();
    expect(gate.asked).toEqual(["t/1", "t/2", "t/3"]);
    await gate.answer("t/3", true);
    await gate.answer("t/2", true);
    expect(delivered(world, "sub")).toEqual([]);
    await gate.answer("t/1", true);
    expect(delivered(world, "sub")).toEqual(["t/1", "t/2", "t/3"]);
    // Acknowledged only after the commit, in order.
    expect(acks(pub.host.packets)).toEqual([]);
    await commitAll(world);
    expect(acks(pub.host.packets)).toEqual([
      [1, ReasonCode.Success],
      [2, ReasonCode.Success],
    ]);
  });

  it("answers a refusal with PUBACK/PUBREC 0x87 and drops a refused QoS 0 message; a rejected hook is a refusal", async () => {
    const world = new World();
    const gate = new Gate();
    const { pub } = await publisherAndSubscriber(world, gate);
    pub.send(publish("t/1", 1, 1), publish("t/2", 2, 2), publish("t/3", 0), publish("t/4", 1, 4), publish("t/5", 0));
    await settle();
    await gate.answer("t/5", true);
    await gate.fail("t/4");
    await gate.answer("t/3", false);
    await gate.answer("t/2", false);
    await gate.answer("t/1", false);
    await commitAll(world);
    expect(delivered(world, "sub")).toEqual(["t/5"]);
    expect(acks(pub.host.packets)).toEqual([
      [1, ReasonCode.NotAuthorized],
      [2, ReasonCode.NotAuthorized],
      [4, ReasonCode.NotAuthorized],
    ]);
    expect(pub.session.phase).toBe("connected");
  });

  it("lets deliveries to the publisher pass while its own PUBLISH waits for a decision", async () => {
    const world = new World();
    const gate = new Gate();
    const { pub } = await publisherAndSubscriber(world, gate);
    pub.send(subscribe(2, "news"));
    await settle();
    await world.commits.commit();
    const other = await world.connected("other");
    pub.send(publish("t/1", 0));
    await settle();
    other.send(publish("news", 0));
    await settle();
    expect(delivered(world, "pub")).toEqual(["news"]);
    await gate.answer("t/1", true);
    expect(delivered(world, "sub")).toEqual(["t/1"]);
  });

  it("plans nothing for a session taken over while a decision is pending; the old connection leaves at once", async () => {
    const world = new World();
    const gate = new Gate();
    const persistent = { cleanStart: false, properties: { sessionExpiryInterval: 300 } };
    const { pub } = await publisherAndSubscriber(world, gate, persistent);
    pub.send(publish("t/1", 1, 1), publish("t/2", 2, 2));
    await settle();
    const again = world.client("pub2");
    again.send(connectPacket(5, { clientId: "pub", ...persistent }));
    await settle();
    await world.commits.commit();
    expect(world.log).toContain(`pub:disconnect ${String(ReasonCode.SessionTakenOver)}`);
    expect(world.log).toContain("pub:close");
    await gate.answer("t/2", true);
    await gate.answer("t/1", true);
    await world.commits.commit();
    expect(delivered(world, "sub")).toEqual([]);
    expect(acks(pub.host.packets)).toEqual([]);
    // The QoS 2 id was not recorded as received: the resend on the new connection is delivered once.
    again.send(publish("t/2", 2, 2, true));
    await settle();
    await world.commits.commit();
    expect(delivered(world, "sub")).toEqual(["t/2"]);
    expect(acks(again.host.packets)).toEqual([[2, ReasonCode.Success]]);
  });

  it("plans nothing for a connection lost while a decision is pending, and its will goes out at once", async () => {
    const world = new World();
    const gate = new Gate();
    const will = { topic: "t/will", payload: text("gone"), qos: 0 as const, retain: false, properties: {} };
    const persistent = { cleanStart: false, properties: { sessionExpiryInterval: 300 } };
    const { pub } = await publisherAndSubscriber(world, gate, { will, ...persistent });
    pub.send(publish("t/1", 0), publish("t/2", 2, 2));
    await settle();
    pub.session.connectionLost();
    await settle();
    expect(delivered(world, "sub")).toEqual(["t/will"]);
    expect(world.router.owner("pub")).toBeUndefined();
    await gate.answer("t/1", true);
    await gate.answer("t/2", true);
    await commitAll(world);
    expect(delivered(world, "sub")).toEqual(["t/will"]);
    // The QoS 2 id was not recorded as received: the resend on the next connection is delivered once.
    const again = await world.connected("pub", persistent);
    again.send(publish("t/2", 2, 2, true));
    await settle();
    await commitAll(world);
    expect(delivered(world, "sub")).toEqual(["t/will", "t/2"]);
    expect(acks(again.host.packets)).toEqual([[2, ReasonCode.Success]]);
  });

  it("plans nothing when the router's owner of the session changed while the decision was pending (the fence, read after the wait)", async () => {
    const world = new World();
    const gate = new Gate();
    const { pub } = await publisherAndSubscriber(world, gate);
    pub.send(publish("t/1", 1, 1));
    await settle();
    // Another node claimed the session: the router forgot its copy before the connection hears of it.
    world.router.forget("pub");
    await gate.answer("t/1", true);
    await commitAll(world);
    expect(delivered(world, "sub")).toEqual([]);
    expect(acks(pub.host.packets)).toEqual([]);
  });

  it("sends the server's DISCONNECT at once when it ends a connection whose decision is pending, and plans nothing for it", async () => {
    const world = new World();
    const gate = new Gate();
    const { pub } = await publisherAndSubscriber(world, gate);
    pub.send(publish("t/1", 0));
    await settle();
    pub.session.disconnect(ReasonCode.ServerShuttingDown);
    await settle();
    expect(world.log.slice(-3)).toEqual([`pub:disconnect ${String(ReasonCode.ServerShuttingDown)}`, "pub:closed server-disconnect", "pub:close"]);
    await gate.answer("t/1", true);
    expect(delivered(world, "sub")).toEqual([]);
  });

  it("still plans what the client sent before its own DISCONNECT, once decided", async () => {
    const world = new World();
    const gate = new Gate();
    const { pub } = await publisherAndSubscriber(world, gate);
    pub.send(publish("t/1", 0), { type: "disconnect", reasonCode: 0, properties: {} });
    await settle();
    expect(pub.host.releasedIds).toEqual([]);
    await gate.answer("t/1", true);
    expect(delivered(world, "sub")).toEqual(["t/1"]);
    expect(pub.host.releasedIds).toEqual(["pub"]);
  });

  it("counts PUBLISHes waiting for a decision against the server's Receive Maximum (0x93 past it)", async () => {
    const world = new World();
    world.receiveMaximum = 2;
    const gate = new Gate();
    const { pub } = await publisherAndSubscriber(world, gate);
    pub.send(publish("t/1", 1, 1), publish("t/2", 1, 2));
    await settle();
    expect(pub.session.phase).toBe("connected");
    pub.send(publish("t/3", 1, 3));
    await settle();
    expect(pub.session.phase).toBe("closed");
    expect(pub.host.packets.at(-1)).toMatchObject({ type: "disconnect", reasonCode: ReasonCode.ReceiveMaximumExceeded });
  });

  it("routes at once, in the same call, when the decision is a plain boolean (no microtask)", async () => {
    const world = new World();
    world.durable = false;
    const sub = await world.connected("sub");
    sub.send(subscribe(1, "t/#"));
    const pub = await world.connected("pub");
    pub.host.mayPublish = (topic) => topic !== "t/no";
    pub.send(publish("t/1", 1, 1), publish("t/no", 1, 2));
    expect(delivered(world, "sub")).toEqual(["t/1"]);
    expect(acks(pub.host.packets)).toEqual([
      [1, ReasonCode.Success],
      [2, ReasonCode.NotAuthorized],
    ]);
  });
});

describe("async authorization of SUBSCRIBE", () => {
  it("answers each filter as decided (0x87 for a refusal or a rejection), and holds later PUBLISHes of the client behind it", async () => {
    const world = new World();
    const gate = new Gate();
    const c = await world.connected("c");
    c.host.maySubscribe = gate.decide;
    c.send(subscribe(1, "a", "b", "c"), publish("a", 0));
    await settle();
    expect(gate.asked).toEqual(["a", "b", "c"]);
    await gate.answer("c", true);
    await gate.fail("b");
    expect(c.host.packets.map((p) => p.type)).toEqual(["connack"]);
    await gate.answer("a", true);
    await world.commits.commit();
    expect(c.host.packets.find((p) => p.type === "suback")).toMatchObject({ reasonCodes: [0, ReasonCode.NotAuthorized, 0] });
    // The PUBLISH after the SUBSCRIBE was routed after it: the client's new subscription got it.
    expect(delivered(world, "c")).toEqual(["a"]);
  });

  it("answers nothing for a session taken over while the decision is pending", async () => {
    const world = new World();
    const gate = new Gate();
    const c = await world.connected("c", { cleanStart: false, properties: { sessionExpiryInterval: 300 } });
    c.host.maySubscribe = gate.decide;
    c.send(subscribe(1, "a"));
    await settle();
    const again = world.client("c2");
    again.send(connectPacket(5, { clientId: "c", cleanStart: false, properties: { sessionExpiryInterval: 300 } }));
    await settle();
    await world.commits.commit();
    await gate.answer("a", true);
    await world.commits.commit();
    expect(c.host.packets.map((p) => p.type)).toEqual(["connack", "disconnect"]);
    expect(world.router.sessionView("c")?.subscriptions).toBe(0);
  });
});
