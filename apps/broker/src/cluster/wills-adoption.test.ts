// The sessions of a dead node, against a private redis-server: found through the heartbeats,
// adopted by exactly one survivor (the conditional claim), their wills fired there once after the
// Will Delay on the survivor's clock, and a client that reconnected first keeping its session.
// The test drives every step (beats, surveys, claims, clocks); no timer runs.
import { describe, expect, it } from "vitest";
import { message, newRouter, online, sub } from "../storage/store.test-helpers.js";
import { RedisStore } from "../storage/redis-store.js";
import { ClusterKeys } from "./keys.js";
import { Liveness } from "./liveness.js";
import { Ownership } from "./ownership.js";
import { hasRedis, useRedis } from "./redis.test-helpers.js";
import type { SettleMoved } from "./routing/handoff.js";
import { adoptSessionsOf, electHeir } from "./wills-adoption.js";

const redis = useRedis();
const keys = new ClusterKeys("w:");
const open = (nodeId: string): Promise<RedisStore> => RedisStore.open({ url: redis.server.url, prefix: keys.prefix, nodeId });
const liveness = async (nodeId: string): Promise<Liveness> => new Liveness({ redis: await redis.connect(), keys, nodeId, timeoutMs: 60_000, startedAt: 1 });
const will = (payload: string, delaySeconds: number) => ({ message: message("will/x", payload), delaySeconds });

// A node "dead" holding session `c` (connected, with a will), its heartbeat gone as a killed node's expires.
async function deadNodeHolding(clientId: string, delaySeconds: number, expiry = 3600): Promise<void> {
  const dead = await open("dead");
  online(newRouter(dead).router, clientId, { sessionExpiryInterval: expiry, will: will(`will of ${clientId}`, delaySeconds) });
  await dead.flush();
  const beats = await liveness("dead");
  await beats.beat(1000);
  await (await redis.connect()).del(keys.heartbeat("dead"));
  await dead.close();
}

// A survivor: its store, a router on a manual clock, and a watcher of will/# on it.
async function survivor(nodeId: string) {
  const store = await open(nodeId);
  const { router, clock } = newRouter(store);
  const watcher = online(router, `watcher-${nodeId}`);
  router.subscribe(`watcher-${nodeId}`, watcher.generation, [sub("will/#")]);
  const beats = await liveness(nodeId);
  await beats.beat(1000);
  return { store, router, clock, watcher, beats };
}

describe.skipIf(!hasRedis)("the sessions of a dead node", () => {
  it("heartbeats tell live nodes from dead ones, and the cluster's session count", async () => {
    const a = await liveness("a");
    const b = await liveness("b");
    await a.beat(5);
    await b.beat(6);
    const conn = await redis.connect();
    await conn.hset(keys.sessions, "s1", "{}", "s2", "{}");
    expect(await a.survey()).toEqual({ nodesAlive: 2, sessions: 2, dead: [] });
    expect((await a.heartbeats()).map((h) => [h.nodeId, h.lastBeat])).toEqual([["a", 5], ["b", 6]]);
    expect(await conn.pttl(keys.heartbeat("a"))).toBeGreaterThan(0);
    await conn.del(keys.heartbeat("b"));
    expect(await a.survey()).toEqual({ nodesAlive: 1, sessions: 2, dead: ["b"] });
    // Its own missing heartbeat never makes a node call itself dead.
    expect((await b.survey()).dead).toEqual([]);
    await conn.hset(keys.cursors, "a", "9-0", "b", "3-0");
    expect(await a.forget("b")).toBe(true);
    expect((await a.survey()).dead).toEqual([]);
    // Its routes cursor no longer holds the stream's trim; the live node's stays.
    expect(await conn.hgetall(keys.cursors)).toEqual({ a: "9-0" });
    // A node that beat again meanwhile stays in the set.
    await b.beat(7);
    expect(await a.forget("b")).toBe(false);
    expect((await a.survey()).nodesAlive).toBe(2);
  });

  it("a will with a delay fires once, from the one survivor that claimed the session, after its delay", async () => {
    await deadNodeHolding("c", 30);
    const two = await survivor("two");
    const three = await survivor("three");
    expect((await two.beats.survey()).dead).toEqual(["dead"]);
    const conn = await redis.connect();
    expect(await adoptSessionsOf("dead", conn, keys, two.store, two.router)).toEqual(["c"]);
    expect(await adoptSessionsOf("dead", conn, keys, three.store, three.router)).toEqual([]);
    expect((await new Ownership(conn, keys, "x").owner("c"))?.node).toBe("two");
    // Disconnected from the adoption on: the delay has not elapsed yet.
    two.clock.advance(29_999);
    two.router.tick();
    expect(two.watcher.sink.payloads()).toEqual([]);
    two.clock.advance(1);
    two.router.tick();
    three.clock.advance(60_000);
    three.router.tick();
    expect(two.watcher.sink.payloads()).toEqual(["will of c"]);
    expect(three.watcher.sink.payloads()).toEqual([]);
    await two.store.flush();
    // The fired will is gone from Redis: nobody fires it again.
    expect(await conn.hexists(keys.wills, "c")).toBe(0);
    await two.store.close();
    await three.store.close();
  });

  it("a client that reconnected to another node before the survivor's claim keeps its session, and no will fires", async () => {
    await deadNodeHolding("c", 0);
    const two = await survivor("two");
    const three = await survivor("three");
    const conn = await redis.connect();
    // The client is back on node three first (the connect path's claim), with its session.
    const taken = await three.store.takeSession("c", () => undefined);
    if (!taken.current) three.router.adopt("c", taken.stored);
    const back = online(three.router, "c", { sessionExpiryInterval: 3600 });
    expect(back.sessionPresent).toBe(true);
    await three.store.flush();
    expect(await adoptSessionsOf("dead", conn, keys, two.store, two.router)).toEqual([]);
    two.clock.advance(60_000);
    two.router.tick();
    expect(two.router.session("c")).toBeUndefined();
    // The will without delay went out once, on node three, as the takeover of a connected session.
    expect([...two.watcher.sink.payloads(), ...three.watcher.sink.payloads()]).toEqual(["will of c"]);
    await two.store.flush();
    expect((await new Ownership(conn, keys, "x").owner("c"))?.node).toBe("three");
    await two.store.close();
    await three.store.close();
  });

  it("a claim between the survivor's read of the owner and its claim wins: the survivor's conditional claim is refused", async () => {
    await deadNodeHolding("c", 0);
    const two = await survivor("two");
    const conn = await redis.connect();
    const before = await new Ownership(conn, keys, "x").owner("c");
    await new Ownership(conn, keys, "three").claim("c");
    expect(await two.store.takeOrphan("c", before?.token ?? "")).toEqual({ lost: true });
    expect((await new Ownership(conn, keys, "x").owner("c"))?.node).toBe("three");
    await two.store.close();
  });

  it("an adopted session expires on the survivor after its expiry interval, its will with it", async () => {
    await deadNodeHolding("c", 600, 10);
    const two = await survivor("two");
    const conn = await redis.connect();
    await adoptSessionsOf("dead", conn, keys, two.store, two.router);
    two.clock.advance(9_999);
    two.router.tick();
    expect(two.router.session("c")).toBeDefined();
    two.clock.advance(1);
    two.router.tick();
    expect(two.router.session("c")).toBeUndefined();
    // A will's delay never outlasts its session [MQTT-3.1.3-9].
    expect(two.watcher.sink.payloads()).toEqual(["will of c"]);
    await two.store.flush();
    expect(await conn.hexists(keys.sessions, "c")).toBe(0);
    await two.store.close();
  });

  it("one survivor is the heir of a dead node's $share copies, once cluster-wide, until that node beats again", async () => {
    const conn = await redis.connect();
    expect(await electHeir(conn, keys, "dead", "two")).toBe(true);
    expect(await electHeir(conn, keys, "dead", "three")).toBe(false);
    expect(await electHeir(conn, keys, "dead", "two")).toBe(true); // asked again in a later round
    await (await liveness("dead")).beat(5);
    expect(await electHeir(conn, keys, "dead", "three")).toBe(true);
  });

  it("two survivors adopting at once split the sessions, and only one of them adopts as the heir of the shared copies", async () => {
    for (const id of ["c1", "c2", "c3", "c4", "c5", "c6"]) await deadNodeHolding(id, 0);
    const two = await survivor("two");
    const three = await survivor("three");
    const heirs = { two: new Set<boolean>(), three: new Set<boolean>() };
    const spy =
      (node: "two" | "three"): SettleMoved =>
      (_clientId, stored, _base, install, orphan) => {
        heirs[node].add(orphan?.heir === true);
        install(stored);
        return Promise.resolve();
      };
    const adopted = await Promise.all([adoptSessionsOf("dead", await redis.connect(), keys, two.store, two.router, spy("two")), adoptSessionsOf("dead", await redis.connect(), keys, three.store, three.router, spy("three"))]);
    expect(adopted.flat().sort()).toEqual(["c1", "c2", "c3", "c4", "c5", "c6"]);
    // Each survivor that adopted anything adopted all as heir or all not, and exactly one as heir.
    const verdicts = [...heirs.two, ...heirs.three];
    expect(heirs.two.size <= 1 && heirs.three.size <= 1).toBe(true);
    expect(verdicts.filter(Boolean)).toEqual([true]);
  });
});
