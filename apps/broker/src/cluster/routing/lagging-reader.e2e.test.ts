// A session made by a CONNECT never gets a message the cluster accepted before that CONNECT, even
// from a node whose routes reader lags (found by the cluster fault suite: a reader held up by a
// node kill routed, 200 ms late, a message acknowledged 25 ms before a clean session's CONNECT
// into that session once it had subscribed: a stray). The test chooses the interleaving against a
// real redis-server: node A's reader waits on a gate while C accepts a message; A's loadSession
// for a new client then runs, and only after it the gate opens.
import { describe, expect, it } from "vitest";
import { message, sub } from "../../storage/store.test-helpers.js";
import { ClusterKeys } from "../keys.js";
import { everyNodeAtTip, hasRedis, useRedis } from "../redis.test-helpers.js";
import { displaceableSink, routingNodes, type NodeConnection } from "./routing-nodes.test-helpers.js";

const redis = useRedis();
const keys = new ClusterKeys("lag:");
const startNode = routingNodes(redis, keys);

/** A reader connection whose blocking reads wait until `open` is called. */
function gatedReader(): { readonly wrap: (connection: NodeConnection) => NodeConnection; readonly open: () => void } {
  let open = (): void => undefined;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  return {
    open: () => {
      open();
    },
    wrap: (connection) => {
      const read = connection.xreadBuffer.bind(connection);
      connection.xreadBuffer = ((...args: Parameters<typeof read>) => gate.then(() => read(...args))) as typeof connection.xreadBuffer;
      return connection;
    },
  };
}

const texts = (sink: ReturnType<typeof displaceableSink>): string[] => sink.sent.map((p) => new TextDecoder().decode(p.payload));

describe.skipIf(!hasRedis)("a node whose routes reader lags", () => {
  it("makes the CONNECT's session only once its reader has routed what the cluster accepted before it", async () => {
    const gate = gatedReader();
    const a = await startNode("a", { reader: gate.wrap });
    const c = await startNode("c");
    const query = await redis.connect();
    c.router.publish(message("feed", "accepted before the CONNECT"));
    await c.store.flush();

    // The claim and the tip's read take a round trip each; twenty more on another connection
    // leave a load that does not wait for the reader finished. One that waits is still waiting.
    const load = { done: false };
    const loading = a.routing.loadSession(a.router, "fresh").then(() => {
      load.done = true;
    });
    for (let i = 0; i < 20 && !load.done; i++) await query.ping();
    const sink = displaceableSink();
    const subscribe = async (): Promise<void> => {
      const s = a.router.connect({ clientId: "fresh", cleanStart: true, sessionExpiryInterval: 0, receiveMaximum: 10, protocolVersion: 5, sink });
      a.router.bind("fresh", s.generation);
      a.router.subscribe("fresh", s.generation, [sub("feed")]);
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
    expect(texts(sink)).toEqual(["accepted after"]);
  });
});
