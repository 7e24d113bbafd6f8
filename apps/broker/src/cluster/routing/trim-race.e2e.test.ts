// The interleaving that lost acknowledged messages when a session hopped nodes (issue #40),
// chosen step by step against a real redis-server: node B claims a session node A holds (its
// route base: A's cursor at the claim), then before B's replay reads the stream every node's
// reader routes on and commits its cursor past a new entry, and the stream is trimmed at the
// slowest cursor. The entry was after A's cursor (A never routed it into the session: the claim
// fenced A out) and before B's replay, so only the replay could bring it; trimmed, it was gone.
// The route base's cursor now holds the trim until the replay is committed.
import type { Delivery } from "@handoff/mqtt-router";
import { describe, expect, it } from "vitest";
import { message, sub } from "../../storage/store.test-helpers.js";
import { ClusterKeys } from "../keys.js";
import { everyNodeAtTip, hasRedis, useRedis } from "../redis.test-helpers.js";
import { giveUpSession } from "../session-handoff.js";
import { displaceableSink as sink, routingNodes } from "./routing-nodes.test-helpers.js";

const redis = useRedis();
const keys = new ClusterKeys("trim:");
const startNode = routingNodes(redis, keys);

const texts = (deliveries: readonly { readonly delivery: Delivery }[]): string[] => deliveries.map((d) => new TextDecoder().decode(d.delivery.message.payload));

describe.skipIf(!hasRedis)("a session moving between nodes while the stream is trimmed", () => {
  it("gets the entries its old node never routed, though every node's cursor passed them before the replay read", async () => {
    const a = await startNode("a");
    const b = await startNode("b");
    const c = await startNode("c");
    const query = await redis.connect();
    const tip = async (): Promise<string> => (await query.xrevrange(keys.routes, "+", "-", "COUNT", 1))[0]?.[0] ?? "0-0";
    // The session lives on A, offline: A's reader routes C's publishes into its stored queue.
    const s = a.router.connect({ clientId: "s", cleanStart: true, sessionExpiryInterval: 3600, receiveMaximum: 10, protocolVersion: 5, sink: sink() });
    a.router.bind("s", s.generation);
    a.router.subscribe("s", s.generation, [sub("feed")]);
    a.router.disconnect("s", s.generation, { publishWill: false });
    await a.store.flush();
    c.router.publish(message("feed", "before"));
    await c.store.flush();
    const first = await tip();
    await everyNodeAtTip(query, keys);

    // B claims the session, as loadSession's first step does for a client connecting to B: the
    // route base is A's cursor now.
    const taken = await b.store.takeSession("s", () => {
      giveUpSession(b.router, "s");
    });
    if (taken.current || taken.stored === undefined || taken.routeBase === undefined) throw new Error("b took no stored session with a route base");
    expect(taken.routeBase).toMatchObject({ node: "a", cursor: first });

    // Before B's replay: C accepts two more, every node routes and commits past both (A into its
    // copy, refused now), and the stream is trimmed at what holds it.
    c.router.publish(message("feed", "routed by nobody"));
    c.router.publish(message("feed", "after"));
    await c.store.flush();
    await everyNodeAtTip(query, keys);
    await b.routing.housekeep();

    // Then B's replay and install, loadSession's second step.
    await b.routing.settleMoved("s", taken.stored, taken.routeBase, (snapshot) => {
      b.router.adopt("s", snapshot);
    });
    await b.store.flush();
    expect(await query.hget(keys.routeBases, "s")).toBeNull(); // the trim is free again
    // What Redis holds for the session now, as the next node to take it reads it.
    const next = await c.store.takeSession("s", () => undefined);
    if (next.current) throw new Error("c held the session");
    expect(texts(next.stored?.deliveries ?? [])).toEqual(["before", "routed by nobody", "after"]);
  });
});
