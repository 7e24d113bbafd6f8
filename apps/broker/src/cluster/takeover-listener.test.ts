// The takeover notice against a real redis-server: another node's claim reaches this node's
// listener, which acts only on a token newer than the one it holds.
import { WAIT_LIMIT_MS } from "@handoff/test-kit";
import { describe, expect, it } from "vitest";
import { ClusterKeys } from "./keys.js";
import { Ownership, type TakeoverNotice } from "./ownership.js";
import { hasRedis, useRedis } from "./redis.test-helpers.js";
import { displaces, listenForTakeovers } from "./takeover-listener.js";

const redis = useRedis();
const keys = new ClusterKeys("l:");

describe("displaces", () => {
  it("only a newer token than the one held displaces; nothing held, nothing to displace", () => {
    expect(displaces({ clientId: "c", token: "8" }, "7")).toBe(true);
    expect(displaces({ clientId: "c", token: "7" }, "7")).toBe(false);
    // Tokens compare as numbers, not strings.
    expect(displaces({ clientId: "c", token: "9" }, "10")).toBe(false);
    expect(displaces({ clientId: "c", token: "8" }, undefined)).toBe(false);
  });
});

describe.skipIf(!hasRedis)("the takeover listener", () => {
  it("reports another node's claim of a client id this node holds, and ignores a stale notice", async () => {
    const conn = await redis.connect();
    const held = new Map<string, string>();
    const heard: TakeoverNotice[] = [];
    const listener = await listenForTakeovers({ url: redis.server.url, keys, nodeId: "node-a", held: (id) => held.get(id), onTakenOver: (n) => heard.push(n) });
    try {
      held.set("c", (await new Ownership(conn, keys, "node-a").claim("c")).token);
      const taken = await new Ownership(conn, keys, "node-b").claim("c");
      // This node claimed the id back before the first notice was read: a later stale one is ignored.
      await conn.publish(keys.nodeChannel("node-a"), `takeover ${held.get("c") ?? ""} c`);
      const deadline = Date.now() + WAIT_LIMIT_MS;
      while (heard.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      await conn.publish(keys.nodeChannel("node-a"), "not a notice");
      await conn.publish(keys.nodeChannel("node-a"), `takeover ${taken.token} c`); // heard after the first
      const end = Date.now() + WAIT_LIMIT_MS;
      while (heard.length < 2 && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(heard).toEqual([{ clientId: "c", token: taken.token }, { clientId: "c", token: taken.token }]);
    } finally {
      await listener.close();
    }
  });
});
