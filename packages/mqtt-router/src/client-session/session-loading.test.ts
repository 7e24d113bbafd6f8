// A cluster's session handoff in the client session: the app's loadSession runs after
// authentication and before the CONNECT claims the session, so the claim acts on the loaded copy.
import { describe, expect, it } from "vitest";
import { ReasonCode } from "../codec/reason-codes.js";
import { connectPacket } from "../protocol/test-client.test-helpers.js";
import type { SessionSnapshot } from "../router/store.js";
import { World, settle } from "./test-host.test-helpers.js";

// A stored session of `clientId` with one subscription, as another node left it.
const stored = (clientId: string): SessionSnapshot => ({
  record: { clientId, expiryInterval: 300, generation: 7, disconnectedAt: 1 },
  subscriptions: [{ filter: "t", qos: 1, noLocal: false, retainAsPublished: false, retainHandling: 0 }],
  deliveries: [],
  inboundQos2: [3],
});

// A loadSession the test completes: it records the client ids it was asked for.
function manualLoader(): { load: (clientId: string) => Promise<void>; asked: string[]; finish: (err?: Error) => void } {
  const asked: string[] = [];
  let settleLoad: ((err?: Error) => void) | undefined;
  return {
    asked,
    load: (clientId) => {
      asked.push(clientId);
      return new Promise<void>((resolve, reject) => {
        settleLoad = (err) => {
          if (err === undefined) resolve();
          else reject(err);
        };
      });
    },
    finish: (err) => {
      settleLoad?.(err);
    },
  };
}

describe("client session: loading the session before the claim", () => {
  it("claims nothing until the load settles, then claims the loaded session (Session Present, its inbound QoS 2 ids)", async () => {
    const world = new World();
    const loader = manualLoader();
    world.loadSession = async (clientId) => {
      await loader.load(clientId);
      world.router.adopt(clientId, stored(clientId));
    };
    const { host, send } = world.client("c");
    send(connectPacket(5, { clientId: "c", cleanStart: false, properties: { sessionExpiryInterval: 300 } }));
    await settle();
    expect(loader.asked).toEqual(["c"]);
    expect(world.router.session("c")).toBeUndefined();
    expect(world.commits.pending).toBe(false);
    loader.finish();
    await settle();
    await world.commits.commit();
    expect(host.packets).toMatchObject([{ type: "connack", sessionPresent: true }]);
    expect(world.router.subscriptionViews("c")?.map((s) => s.filter)).toEqual(["t"]);
    expect(world.router.session("c")?.inboundQos2.has(3)).toBe(true);
  });

  it("refuses the client with 0x88 when the load fails, claiming nothing", async () => {
    const world = new World();
    const loader = manualLoader();
    world.loadSession = loader.load;
    const { host, send, session } = world.client("c");
    send(connectPacket(5, { clientId: "c" }));
    await settle();
    loader.finish(new Error("redis down"));
    await settle();
    expect(host.packets).toMatchObject([{ type: "connack", reasonCode: ReasonCode.ServerUnavailable }]);
    expect(session.accepted).toBe(false);
    expect(world.router.session("c")).toBeUndefined();
  });

  it("claims nothing for a client that left while its session loaded", async () => {
    const world = new World();
    const loader = manualLoader();
    world.loadSession = loader.load;
    const { send, session } = world.client("c");
    send(connectPacket(5, { clientId: "c" }));
    await settle();
    session.connectionLost();
    loader.finish();
    await settle();
    expect(world.router.session("c")).toBeUndefined();
  });

  it("displaces the connection that took the session while the load was under way", async () => {
    const world = new World();
    const loader = manualLoader();
    world.loadSession = loader.load;
    const second = world.client("second");
    second.send(connectPacket(5, { clientId: "c" }));
    await settle();
    world.loadSession = undefined;
    const first = await world.connected("c");
    loader.finish();
    await settle();
    await world.commits.commit();
    expect(first.host.packets.at(-1)).toMatchObject({ type: "disconnect", reasonCode: ReasonCode.SessionTakenOver });
    expect(world.router.owner("c")).toBe(second.session);
  });
});
