// Client-id ownership against a real redis-server: tokens, takeover notices, and the races of a
// write planned under one owner and run after another node's claim, in both orders.
import { describe, expect, it } from "vitest";
import { ClusterKeys } from "./keys.js";
import { Ownership, fencedBatch, parseTakeover, type WriteGroup } from "./ownership.js";
import { hasRedis, useRedis } from "./redis.test-helpers.js";

const redis = useRedis();
const keys = new ClusterKeys("t:");

const setValue = (ownerKey: string, token: string, key: string, value: string | Buffer): WriteGroup => ({
  fence: { kind: "token", ownerKey, token },
  commands: [["SET", key, value]],
});

const batch = async (conn: Parameters<typeof fencedBatch>[0], groups: readonly WriteGroup[]): Promise<readonly number[]> => (await fencedBatch(conn, keys, groups)).refused;

// A subscribed connection and the messages it has heard on `channel`.
async function listen(channel: string): Promise<{ readonly listener: Awaited<ReturnType<typeof redis.connect>>; readonly heard: string[] }> {
  const listener = await redis.connect();
  const heard: string[] = [];
  listener.on("message", (_channel: string, message: string) => {
    heard.push(message);
  });
  await listener.subscribe(channel);
  return { listener, heard };
}

describe.skipIf(!hasRedis)("client-id ownership in Redis", () => {
  it("allocates increasing tokens and names the previous owner", async () => {
    const conn = await redis.connect();
    const a = new Ownership(conn, keys, "node-a");
    const b = new Ownership(conn, keys, "node-b");
    const first = await a.claim("c1");
    expect(first.previousNode).toBeUndefined();
    const second = await b.claim("c1");
    expect(second.previousNode).toBe("node-a");
    expect(first.previousToken).toBeUndefined();
    expect(second.previousToken).toBe(first.token);
    expect(Number(second.token)).toBeGreaterThan(Number(first.token));
    expect(await a.owner("c1")).toEqual({ token: second.token, node: "node-b" });
    // Tokens come from one counter: another client id never reuses one.
    expect(Number((await a.claim("c2")).token)).toBeGreaterThan(Number(second.token));
  });

  it("tells the previous owner's node channel about a takeover, and nobody when the same node reclaims", async () => {
    const conn = await redis.connect();
    const { listener, heard } = await listen(keys.nodeChannel("node-a"));
    const a = new Ownership(conn, keys, "node-a");
    await a.claim("client one");
    await a.claim("client one");
    const taken = await new Ownership(conn, keys, "node-b").claim("client one");
    await conn.ping(); // the notice was published before this reply
    await listener.ping();
    expect(heard.map(parseTakeover)).toEqual([{ clientId: "client one", token: taken.token }]);
  });

  it("a write planned under the old owner and run after another node's claim is refused (seed 000 across nodes)", async () => {
    const conn = await redis.connect();
    const a = new Ownership(conn, keys, "node-a");
    const b = new Ownership(conn, keys, "node-b");
    const held = await a.claim("c");
    const planned = setValue(keys.owner("c"), held.token, "t:delivery", "stale"); // planned on node a
    const taken = await b.claim("c"); // the takeover lands first
    expect(await batch(conn, [planned])).toEqual([0]);
    expect(await conn.get("t:delivery")).toBeNull();
    expect(await batch(conn, [setValue(keys.owner("c"), taken.token, "t:delivery", "fresh")])).toEqual([]);
    expect(await conn.get("t:delivery")).toBe("fresh");
  });

  it("a write that ran before the claim stays for the new owner to resume from", async () => {
    const conn = await redis.connect();
    const held = await new Ownership(conn, keys, "node-a").claim("c");
    expect(await batch(conn, [setValue(keys.owner("c"), held.token, "t:delivery", "committed")])).toEqual([]);
    await new Ownership(conn, keys, "node-b").claim("c");
    expect(await conn.get("t:delivery")).toBe("committed");
  });

  it("two nodes claiming over separate connections at once: one owner, and only its writes land", async () => {
    const [ca, cb] = [await redis.connect(), await redis.connect()];
    const [ta, tb] = await Promise.all([new Ownership(ca, keys, "node-a").claim("c"), new Ownership(cb, keys, "node-b").claim("c")]);
    const winner = Number(ta.token) > Number(tb.token) ? { node: "node-a", token: ta.token } : { node: "node-b", token: tb.token };
    const loser = winner.token === ta.token ? tb : ta;
    expect(await new Ownership(ca, keys, "x").owner("c")).toEqual(winner);
    expect(await batch(ca, [setValue(keys.owner("c"), loser.token, "t:k", "loser")])).toEqual([0]);
    expect(await batch(cb, [setValue(keys.owner("c"), winner.token, "t:k", "winner")])).toEqual([]);
    expect(await ca.get("t:k")).toBe("winner");
  });

  it("refuses only the fenced groups of a batch, applies the rest in order, and unfenced groups always", async () => {
    const conn = await redis.connect();
    const a = new Ownership(conn, keys, "node-a");
    const stale = await a.claim("old");
    await new Ownership(conn, keys, "node-b").claim("old");
    const mine = await a.claim("mine");
    const refused = await batch(conn, [
      { fence: undefined, commands: [["SET", "t:retained", "r"]] },
      setValue(keys.owner("old"), stale.token, "t:old", "x"),
      { fence: { kind: "token", ownerKey: keys.owner("mine"), token: mine.token }, commands: [["RPUSH", "t:list", "1"], ["RPUSH", "t:list", "2"]] },
    ]);
    expect(refused).toEqual([1]);
    expect(await conn.get("t:retained")).toBe("r");
    expect(await conn.get("t:old")).toBeNull();
    expect(await conn.lrange("t:list", 0, -1)).toEqual(["1", "2"]);
  });

  it("a client id nobody claimed fences every write for it", async () => {
    const conn = await redis.connect();
    expect(await batch(conn, [setValue(keys.owner("nobody"), "1", "t:k", "v")])).toEqual([0]);
  });

  it("claims inside a batch: later groups of the batch ride on the claim, earlier tokens are refused", async () => {
    const conn = await redis.connect();
    const { listener, heard } = await listen(keys.nodeChannel("node-a"));
    const old = await new Ownership(conn, keys, "node-a").claim("c");
    const owner = keys.owner("c");
    const result = await fencedBatch(conn, keys, [
      { fence: { kind: "claim", ownerKey: owner, node: "node-b" }, commands: [["SET", "t:a", "1"]] },
      { fence: { kind: "token", ownerKey: owner, token: old.token }, commands: [["SET", "t:stale", "1"]] },
      { fence: { kind: "claimed", ownerKey: owner }, commands: [["SET", "t:b", "1"]] },
      { fence: { kind: "claimed", ownerKey: keys.owner("other") }, commands: [["SET", "t:other", "1"]] },
    ]);
    expect(result.refused).toEqual([1, 3]);
    const claim = result.claims.get(0);
    expect(claim?.previousNode).toBe("node-a");
    expect(await new Ownership(conn, keys, "x").owner("c")).toEqual({ token: claim?.token, node: "node-b" });
    expect(await conn.mget("t:a", "t:stale", "t:b", "t:other")).toEqual(["1", null, "1", null]);
    await listener.ping();
    expect(heard.map(parseTakeover)).toEqual([{ clientId: "c", token: claim?.token }]);
  });

  it("carries binary values unchanged, and reloads its script after Redis restarts", async () => {
    const conn = await redis.connect();
    const held = await new Ownership(conn, keys, "node-a").claim("c");
    const bytes = Buffer.from([0, 255, 10, 13, 0x80, 0]);
    await batch(conn, [setValue(keys.owner("c"), held.token, "t:bin", bytes)]);
    expect(await conn.getBuffer("t:bin")).toEqual(bytes);
    await conn.script("FLUSH");
    await batch(conn, [setValue(keys.owner("c"), held.token, "t:bin", "again")]);
    expect(await conn.get("t:bin")).toBe("again");
  });
});
