// A claim whose replay fails (Redis went away between the claim's script and the replay's read),
// chosen step by step against a real redis-server: node B claims a session node A held, then the
// replay's XRANGE fails and the client is refused. Redis says B owns the session; B's router has
// no copy. Found by the cluster fault suite (Redis restarts): B's next connect found its token
// current and skipped the install, so the client resumed with Session Present 0 and lost what the
// replay owed it. Now the claim's token leaves the store (the next connect claims again) and the
// liveness rounds install what no connect came for, as stopped sessions, while the token holds.
import { describe, expect, it, vi } from "vitest";
import { message, sub } from "../../storage/store.test-helpers.js";
import { ClusterKeys } from "../keys.js";
import { everyNodeAtTip, hasRedis, useRedis } from "../redis.test-helpers.js";
import { installUninstalled } from "../wills-adoption.js";
import { displaceableSink as sink, routingNodes, type RoutingNode as Node } from "./routing-nodes.test-helpers.js";

const redis = useRedis();
const keys = new ClusterKeys("uninstalled:");
const startNode = routingNodes(redis, keys);
const resume = { clientId: "s", cleanStart: false, sessionExpiryInterval: 3600, receiveMaximum: 10, protocolVersion: 5 as const };

/**
 * Session `s` lives on A, offline, with "queued" in its stored queue; A stops reading, and C
 * accepts "after" past A's cursor, so a claim's replay must read the stream to bring it. Then B's
 * loadSession claims `s` and its replay's read fails.
 */
async function claimWithFailedReplay(): Promise<{ a: Node; b: Node; c: Node; query: Awaited<ReturnType<typeof redis.connect>> }> {
  const a = await startNode("a");
  const b = await startNode("b");
  const c = await startNode("c");
  const query = await redis.connect();
  const s = a.router.connect({ ...resume, cleanStart: true, sink: sink() });
  a.router.bind("s", s.generation);
  a.router.subscribe("s", s.generation, [sub("feed")]);
  a.router.disconnect("s", s.generation, { publishWill: false });
  c.router.publish(message("feed", "queued"));
  await c.store.flush();
  await everyNodeAtTip(query, keys);
  await a.store.flush();
  await a.routing.close();
  c.router.publish(message("feed", "after"));
  await c.store.flush();

  vi.spyOn(b.query, "xrangeBuffer").mockRejectedValueOnce(new Error("Connection is closed."));
  await expect(b.routing.loadSession(b.router, "s")).rejects.toThrow("Connection is closed.");
  expect(await query.hget(keys.owner("s"), "node")).toBe("b");
  expect(b.routing.uninstalled.size).toBe(1);
  expect(b.store.tokenOf("s")).toBeUndefined();
  return { a, b, c, query };
}

const texts = (node: Node): Promise<string[]> =>
  node.store.takeSession("s", () => undefined).then((taken) => {
    if (taken.current) throw new Error("the reading node held the session");
    return (taken.stored?.deliveries ?? []).map((d) => new TextDecoder().decode(d.delivery.message.payload));
  });

describe.skipIf(!hasRedis)("a claim whose replay failed", () => {
  it("is claimed again and installed by the next connect to the same node: Session Present 1, the replay's message kept", async () => {
    const { b, c } = await claimWithFailedReplay();
    await b.routing.loadSession(b.router, "s");
    expect(b.routing.uninstalled.size).toBe(0);
    const again = b.router.connect({ ...resume, sink: sink() });
    expect(again.sessionPresent).toBe(true);
    b.router.disconnect("s", again.generation, { publishWill: false });
    await b.store.flush();
    expect(await texts(c)).toEqual(["queued", "after"]);
  });

  it("is installed as a stopped session by a liveness round when no client comes for it", async () => {
    const { b, c } = await claimWithFailedReplay();
    expect(await installUninstalled(b.routing.uninstalled, b.store, b.router, b.routing.settleMoved)).toEqual(["s"]);
    expect(b.routing.uninstalled.size).toBe(0);
    await b.store.flush();
    // Installed here: a connect to B resumes it without claiming again.
    expect((await b.store.takeSession("s", () => undefined)).current).toBe(true);
    expect(await texts(c)).toEqual(["queued", "after"]);
  });

  it("is left alone by the liveness round once another node claimed the session", async () => {
    const { b, c, query } = await claimWithFailedReplay();
    const taken = await c.store.takeSession("s", () => undefined);
    if (taken.current) throw new Error("c held the session");
    expect(await installUninstalled(b.routing.uninstalled, b.store, b.router, b.routing.settleMoved)).toEqual([]);
    expect(b.routing.uninstalled.size).toBe(0);
    expect(await query.hget(keys.owner("s"), "node")).toBe("c");
    expect((await c.store.takeSession("s", () => undefined)).current).toBe(true);
  });
});
