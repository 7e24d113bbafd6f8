// A node of a cluster restores at start only the sessions it held, and takes any other session
// from Redis when its client connects (RedisStore.takeSession), against a private redis-server.
import { describe, expect, it } from "vitest";
import { ClusterKeys } from "../cluster/keys.js";
import { Ownership } from "../cluster/ownership.js";
import { hasRedis, useRedis } from "../cluster/redis.test-helpers.js";
import { RedisStore } from "./redis-store.js";
import { message, newRouter, online, sub } from "./store.test-helpers.js";

const redis = useRedis();
const keys = new ClusterKeys("k:");

const open = (nodeId: string): Promise<RedisStore> => RedisStore.open({ url: redis.server.url, prefix: keys.prefix, nodeId });

describe.skipIf(!hasRedis)("RedisStore.takeSession", () => {
  it("restores at start the sessions this node or nobody held, not another node's", async () => {
    const a = await open("node-a");
    const { router } = newRouter(a);
    online(router, "mine");
    online(router, "theirs");
    await a.flush();
    await new Ownership(await redis.connect(), keys, "node-b").claim("theirs");
    await a.close();
    const again = await open("node-a");
    expect(again.load().sessions.map((s) => s.record.clientId)).toEqual(["mine"]);
    await again.close();
  });

  it("keeps this router's copy while this node holds the newest token, and takes Redis's copy once another node served the session", async () => {
    const a = await open("node-a");
    const b = await open("node-b");
    const onA = newRouter(a).router;
    const c = online(onA, "c");
    onA.subscribe("c", c.generation, [sub("from-a")]);
    await a.flush();
    let forgotten = 0;
    const forget = (): void => {
      forgotten += 1;
    };
    expect(await a.takeSession("c", forget)).toEqual({ current: true });
    expect(forgotten).toBe(0);

    // Node B takes it: A's copy is stale from B's claim on.
    const taken = await b.takeSession("c", forget);
    expect(forgotten).toBe(1);
    expect(taken.current ? [] : taken.stored?.subscriptions.map((s) => s.filter)).toEqual(["from-a"]);
    const onB = newRouter(b).router;
    if (!taken.current) onB.adopt("c", taken.stored);
    const back = online(onB, "c");
    expect(back.sessionPresent).toBe(true);
    onB.subscribe("c", back.generation, [sub("from-b")]);
    onB.disconnect("c", back.generation, { publishWill: false });
    onB.publish(message("from-b", "queued on b"));
    await b.flush();
    // A's stale copy writes on, and is refused; then its client connects to A again.
    onA.subscribe("c", c.generation, [sub("stale")]);
    const retaken = await a.takeSession("c", () => {
      onA.forget("c");
    });
    expect(onA.session("c")).toBeUndefined();
    expect(retaken.current ? [] : retaken.stored?.subscriptions.map((s) => s.filter).sort()).toEqual(["from-a", "from-b"]);
    expect(retaken.current ? [] : retaken.stored?.deliveries.map((d) => new TextDecoder().decode(d.delivery.message.payload))).toEqual(["queued on b"]);
    if (!retaken.current) onA.adopt("c", retaken.stored);
    const home = online(onA, "c");
    await a.flush();
    expect(a.tokenOf("c")).toBe((await new Ownership(await redis.connect(), keys, "x").owner("c"))?.token);
    expect(home.sink.payloads()).toEqual(["queued on b"]);
    await a.close();
    await b.close();
  });

  it("checks, claims and reads a session in one script: one command to Redis, whatever the session holds", async () => {
    const a = await open("node-a");
    const b = await open("node-b");
    const onA = newRouter(a).router;
    const c = online(onA, "c");
    onA.subscribe("c", c.generation, [sub("t")]);
    onA.disconnect("c", c.generation, { publishWill: false });
    onA.publish(message("t", "queued"));
    await a.flush();
    await b.takeSession("warm", () => undefined); // the script is loaded (a first EVALSHA may meet NOSCRIPT)
    const admin = await redis.connect();
    await admin.config("RESETSTAT");
    const taken = await b.takeSession("c", () => undefined);
    // Commands the script runs count too; what a client sent are the top-level ones.
    const calls = (await admin.info("commandstats"))
      .split("\r\n")
      .map((line) => /^cmdstat_(\w+):calls=(\d+)/.exec(line))
      .flatMap((m) => (m?.[1] === undefined || m[2] === undefined || m[2] === "0" ? [] : [m[1]]))
      .filter((name) => name !== "info" && name !== "config");
    expect(calls.filter((name) => !["hget", "hgetall", "hmget", "hset", "incr", "publish", "smembers", "xrevrange"].includes(name))).toEqual(["evalsha"]);
    expect(taken.current ? [] : taken.stored?.deliveries.map((d) => new TextDecoder().decode(d.delivery.message.payload))).toEqual(["queued"]);
    await a.close();
    await b.close();
  });

  it("takes a session nobody stored as none", async () => {
    const a = await open("node-a");
    expect(await a.takeSession("new", () => undefined)).toEqual({ current: false, stored: undefined });
    await a.close();
  });

  it("sets apart at start a session this node claimed and had not settled: it is replayed before it is restored", async () => {
    const a = await open("node-a");
    const onA = newRouter(a).router;
    const c = online(onA, "c");
    onA.subscribe("c", c.generation, [sub("t")]);
    onA.disconnect("c", c.generation, { publishWill: false });
    online(onA, "kept"); // node-a's, untouched: restored by node-a as usual
    await a.flush();
    await a.close();
    const b = await open("node-b");
    const taken = await b.takeSession("c", () => undefined); // node-b claims c, then stops before its replay
    expect(taken.current ? undefined : taken.routeBase?.node).toBe("node-a");
    await b.close();
    const again = await open("node-b");
    expect(again.unsettled.map((u) => [u.stored.record.clientId, u.routeBase.node])).toEqual([["c", "node-a"]]);
    expect(again.load().sessions.map((s) => s.record.clientId)).not.toContain("c");
    await again.close();
    const home = await open("node-a");
    expect([home.unsettled.length, home.load().sessions.map((s) => s.record.clientId)]).toEqual([0, ["kept"]]);
    await home.close();
  });
});
