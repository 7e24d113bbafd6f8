// The seed race under real sockets: clean-start and resumed takeovers while messages flow.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { collect, startBroker, until, type Harness } from "./harness.test-helpers.js";

let h: Harness;
beforeEach(async () => {
  h = await startBroker();
});
afterEach(async () => {
  await h.close();
});

describe("takeover while messages flow", () => {
  it("a clean-start takeover never receives a message for a subscription it did not make", async () => {
    const old = await h.client({ clientId: "c", clean: true, properties: { receiveMaximum: 1 } });
    await old.subscribeAsync("flow", { qos: 1 });
    const pub = await h.client({ clientId: "pub" });
    const flowing = { on: true };
    let sent = 0;
    const flow = (async () => {
      while (flowing.on) {
        await pub.publishAsync("flow", String(sent++), { qos: 1 });
      }
    })();
    await until(() => sent > 20, 5000, "traffic");
    const fresh = await h.client({ clientId: "c", clean: true });
    const got = collect(fresh);
    await until(() => sent > 60, 5000, "more traffic");
    flowing.on = false;
    await flow;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(got).toEqual([]);
    expect(old.connected).toBe(false); // displaced with DISCONNECT 0x8E
  });

  it("a resumed takeover gets every message published while it took over, in order, duplicates only as DUP", async () => {
    const props = { sessionExpiryInterval: 300, receiveMaximum: 2 };
    const old = await h.client({ clientId: "r", clean: false, properties: props });
    await old.subscribeAsync("flow", { qos: 1 });
    const before = collect(old);
    const pub = await h.client({ clientId: "pub" });
    const total = 200;
    let sent = 0;
    const flow = (async () => {
      while (sent < total) await pub.publishAsync("flow", String(sent++), { qos: 1 });
    })();
    await until(() => sent > 30, 5000, "traffic");
    const resumed = await h.client({ clientId: "r", clean: false, properties: props });
    const after = collect(resumed);
    await flow;
    await until(() => new Set([...before, ...after].map((m) => m.payload)).size === total, 10_000, "every message");
    // Every message arrived; the only repeats are DUP resends of what the old connection had in flight.
    const firsts = new Map<string, number>();
    for (const m of [...before, ...after]) firsts.set(m.payload, (firsts.get(m.payload) ?? 0) + 1);
    const repeats = after.filter((m) => before.some((b) => b.payload === m.payload));
    expect(repeats.every((m) => m.dup)).toBe(true);
    expect([...firsts.values()].every((n) => n <= 2)).toBe(true);
    // Order on the new connection: non-DUP deliveries strictly increasing.
    const fresh = after.filter((m) => !m.dup).map((m) => Number(m.payload));
    expect(fresh).toEqual([...fresh].sort((a, b) => a - b));
  });
});
