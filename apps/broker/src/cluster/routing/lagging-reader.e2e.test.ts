// A session never gets a message the cluster accepted before the CONNECT that made it, even from a
// node whose routes reader lags (found by the cluster fault suite, twice: a reader held up by a
// node kill routed, 200 ms late, a message acknowledged 25 ms before a clean session's CONNECT
// into that session once it had subscribed; and a node paused past its timeout, whose cursor the
// survivors forgot so the stream was trimmed past its own last append before its reader came,
// replayed that append, never passed, into a session that moved to it). Each test chooses the
// interleaving against a real redis-server, with node A's reader waiting on a gate.
import type { SessionSnapshot } from "@handoff/mqtt-router";
import { describe, expect, it } from "vitest";
import { message, sub } from "../../storage/store.test-helpers.js";
import { ClusterKeys } from "../keys.js";
import { everyNodeAtTip, hasRedis, useRedis } from "../redis.test-helpers.js";
import type { Redis } from "ioredis";
import { displaceableSink, routingNodes, type NodeConnection, type RoutingNode } from "./routing-nodes.test-helpers.js";

const redis = useRedis();
const keys = new ClusterKeys("lag:");
const startNode = routingNodes(redis, keys);

/** A reader connection whose blocking reads wait while the gate is shut (it starts shut unless told). */
function gatedReader(shut = true): { readonly wrap: (connection: NodeConnection) => NodeConnection; readonly open: () => void; readonly shut: () => void } {
  let open = (): void => undefined;
  let gate = Promise.resolve();
  const close = (): void => {
    gate = new Promise<void>((resolve) => {
      open = resolve;
    });
  };
  if (shut) close();
  return {
    open: () => {
      open();
    },
    shut: close,
    wrap: (connection) => {
      const read = connection.xreadBuffer.bind(connection);
      connection.xreadBuffer = ((...args: Parameters<typeof read>) => gate.then(() => read(...args))) as typeof connection.xreadBuffer;
      return connection;
    },
  };
}

const texts = (sink: ReturnType<typeof displaceableSink>): string[] => sink.sent.map((p) => new TextDecoder().decode(p.payload));
const decoded = (stored: SessionSnapshot | undefined): string[] => (stored?.deliveries ?? []).map((d) => new TextDecoder().decode(d.delivery.message.payload));

/**
 * Node A's loadSession and clean CONNECT for `clientId` while A's reader waits behind `gate` (C
 * has accepted a message before); the gate opens once the load is done or waits for the reader.
 * C then accepts "accepted after". Resolves with what the new session got.
 */
async function connectWhileLagging(gate: ReturnType<typeof gatedReader>, a: RoutingNode, c: RoutingNode, query: Redis, clientId: string): Promise<string[]> {
  // The claim and the tip's read take a round trip each; twenty more on another connection
  // leave a load that does not wait for the reader finished. One that waits is still waiting.
  const load = { done: false };
  const loading = a.routing.loadSession(a.router, clientId).then(() => {
    load.done = true;
  });
  for (let i = 0; i < 20 && !load.done; i++) await query.ping();
  const sink = displaceableSink();
  const subscribe = async (): Promise<void> => {
    const s = a.router.connect({ clientId, cleanStart: true, sessionExpiryInterval: 0, receiveMaximum: 10, protocolVersion: 5, sink });
    a.router.bind(clientId, s.generation);
    a.router.subscribe(clientId, s.generation, [sub("feed")]);
    await a.store.flush();
  };
  // A load that did not wait: the session subscribes before the reader goes on (the stray's
  // interleaving). One that waits: the reader goes on first, then the session is made.
  const early = load.done;
  if (early) await subscribe();
  gate.open();
  await loading;
  if (!early) await subscribe();
  c.router.publish(message("feed", "accepted after"));
  await c.store.flush();
  await everyNodeAtTip(query, keys);
  await a.store.flush();
  return texts(sink);
}

describe.skipIf(!hasRedis)("a node whose routes reader lags", () => {
  it("makes the CONNECT's session only once its reader has routed what the cluster accepted before it", async () => {
    const gate = gatedReader();
    const a = await startNode("a", { reader: gate.wrap });
    const c = await startNode("c");
    const query = await redis.connect();
    c.router.publish(message("feed", "accepted before the CONNECT"));
    await c.store.flush();

    expect(await connectWhileLagging(gate, a, c, query, "fresh")).toEqual(["accepted after"]);
  });

  it("does not replay into a session moving to it its own append that the stream was trimmed past before its reader came", async () => {
    const gate = gatedReader();
    const a = await startNode("a", { reader: gate.wrap });
    const c = await startNode("c");
    const query = await redis.connect();
    // A accepts "own" while its reader waits; C then accepts "later" and the stream is trimmed
    // past "own", as the survivors' housekeeping does once they forgot a paused node's cursor.
    a.router.publish(message("feed", "own"));
    await a.store.flush();
    c.router.publish(message("other", "later"));
    await c.store.flush();
    const [later] = await query.xrevrange(keys.routes, "+", "-", "COUNT", 1);
    if (later === undefined) throw new Error("no entry");
    await query.xtrim(keys.routes, "MINID", later[0]);
    // The session is made on C after both, subscribed to what "own" was published on.
    const s = c.router.connect({ clientId: "s", cleanStart: true, sessionExpiryInterval: 3600, receiveMaximum: 10, protocolVersion: 5, sink: displaceableSink() });
    c.router.bind("s", s.generation);
    c.router.subscribe("s", s.generation, [sub("feed")]);
    c.router.disconnect("s", s.generation, { publishWill: false });
    c.router.publish(message("feed", "for s"));
    await c.store.flush();
    gate.open();
    await everyNodeAtTip(query, keys);

    await a.routing.loadSession(a.router, "s");
    await a.store.flush();
    const taken = await c.store.takeSession("s", () => undefined);
    if (taken.current) throw new Error("c held the session");
    expect(decoded(taken.stored)).toEqual(["for s"]);
  });

  it("resumes or restarts a session it holds only once its reader has routed what the cluster accepted before the CONNECT", async () => {
    const gate = gatedReader(false);
    const a = await startNode("a", { reader: gate.wrap });
    const c = await startNode("c");
    const query = await redis.connect();
    // A claims "held" first: its next CONNECT finds the token current.
    await a.routing.loadSession(a.router, "held");
    // Shut the gate; the read already out returns with "tick", and the next one waits.
    gate.shut();
    c.router.publish(message("other", "tick"));
    await c.store.flush();
    await everyNodeAtTip(query, keys);
    c.router.publish(message("feed", "accepted before the CONNECT"));
    await c.store.flush();
    expect(await connectWhileLagging(gate, a, c, query, "held")).toEqual(["accepted after"]);
  });
});
