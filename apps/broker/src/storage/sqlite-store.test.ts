// The durable store through a restart: a real Router writes, a new Router restores from the file.
import { describe, expect, it } from "vitest";
import { SqliteStore } from "./sqlite-store.js";
import { countRows, message, newRouter, online, recordingSink, sub, useTempDir } from "./store.test-helpers.js";

const dir = useTempDir();
const open = (): SqliteStore => SqliteStore.open({ dataDir: dir.path });
const decode = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

/** Commits, closes, reopens the file and restores a new router from it at clock `now`. */
async function restart(store: SqliteStore, now: number) {
  await store.flush();
  await store.close();
  const next = open();
  const { router, clock } = newRouter(next, now);
  router.restore(next.load());
  return { store: next, router, clock };
}

describe("SqliteStore across a restart", () => {
  it("resends in-flight deliveries with their packet ids and DUP=1 before the queued ones", async () => {
    const store = open();
    const first = newRouter(store);
    const c = online(first.router, "c", { receiveMaximum: 1 });
    first.router.subscribe("c", c.generation, [sub("t")]);
    first.router.publish(message("t", "in-flight"));
    first.router.publish(message("t", "queued"));
    const id = c.sink.sent[0]?.packetId;
    const second = await restart(store, first.clock.now());
    const back = online(second.router, "c", { receiveMaximum: 5 });
    expect(back.sessionPresent).toBe(true);
    expect(back.sink.sent.map((p) => [decode(p.payload), p.dup, p.packetId === id])).toEqual([
      ["in-flight", true, true],
      ["queued", false, false],
    ]);
    await second.store.close();
  });

  it("brings back subscriptions and retained messages", async () => {
    const store = open();
    const first = newRouter(store);
    const c = online(first.router, "c");
    first.router.subscribe("c", c.generation, [sub("news/#")]);
    first.router.publish(message("status", "up", 1, { retain: true }));
    const second = await restart(store, first.clock.now());
    const back = online(second.router, "c");
    second.router.publish(message("news/1", "after restart"));
    expect(back.sink.payloads()).toEqual(["after restart"]);
    expect(second.router.retainedCount).toBe(1);
    await second.store.close();
  });

  it("hands out generations above every stored one", async () => {
    const store = open();
    const first = newRouter(store);
    const c = online(first.router, "c");
    const second = await restart(store, first.clock.now());
    expect(online(second.router, "c").generation).toBeGreaterThan(c.generation);
    await second.store.close();
  });

  it("continues session expiry from the stored disconnect time", async () => {
    const store = open();
    const first = newRouter(store);
    const c = online(first.router, "c", { sessionExpiryInterval: 10 });
    first.router.disconnect("c", c.generation, { publishWill: false });
    const second = await restart(store, first.clock.now() + 9_000);
    second.router.tick();
    expect(second.router.session("c")).toBeDefined();
    second.clock.advance(1_000);
    second.router.tick();
    expect(second.router.session("c")).toBeUndefined();
    await second.store.close();
  });

  it("keeps the inbound QoS 2 ids awaiting PUBREL", async () => {
    const store = open();
    const first = newRouter(store);
    const c = online(first.router, "c");
    first.router.inboundQos2("c", c.generation, 7, true);
    first.router.inboundQos2("c", c.generation, 8, true);
    first.router.inboundQos2("c", c.generation, 8, false);
    const second = await restart(store, first.clock.now());
    const outcome = second.router.connect({ clientId: "c", cleanStart: false, sessionExpiryInterval: 60, receiveMaximum: 1, protocolVersion: 5, sink: recordingSink() });
    expect(outcome.inboundQos2).toEqual([7]);
    await second.store.close();
  });

  it("resends a PUBREL, not the PUBLISH, for a QoS 2 delivery the client already received", async () => {
    const store = open();
    const first = newRouter(store);
    const c = online(first.router, "c");
    first.router.subscribe("c", c.generation, [sub("t", 2)]);
    first.router.publish(message("t", "once", 2));
    const id = c.sink.sent[0]?.packetId ?? -1;
    first.router.pubrec("c", c.generation, id);
    const second = await restart(store, first.clock.now());
    const back = online(second.router, "c");
    expect([back.sink.sent.length, back.sink.pubrels]).toEqual([0, [id]]);
    await second.store.close();
  });

  it("fires a stored will after its delay when the process died while the client was connected", async () => {
    const store = open();
    const first = newRouter(store);
    const watcher = online(first.router, "w");
    first.router.subscribe("w", watcher.generation, [sub("wills/#")]);
    online(first.router, "c", { will: { message: message("wills/c", "gone"), delaySeconds: 5 } });
    const second = await restart(store, first.clock.now());
    second.clock.advance(5_000);
    const events = second.router.tick();
    expect(events).toContainEqual({ kind: "will-published", clientId: "c", topic: "wills/c" });
    expect(online(second.router, "w").sink.payloads()).toEqual(["gone"]);
    await second.store.close();
  });

  it("gives messages back with their properties exactly", async () => {
    const store = open();
    const first = newRouter(store);
    const original = message("r", "payload", 1, {
      retain: true,
      origin: "pub",
      expiresAt: 9_000_000,
      properties: {
        payloadFormatIndicator: 1,
        contentType: "text/plain",
        responseTopic: "reply/here",
        correlationData: new Uint8Array([0, 255, 7, 128]),
        userProperties: [["z", "1"], ["a", "2"], ["z", "3"]],
      },
    });
    first.router.publish(original);
    await store.flush();
    await store.close();
    const reopened = open();
    expect(reopened.load().retained).toEqual([original]);
    await reopened.close();
  });
});

describe("SqliteStore rows", () => {
  it("stores a message fanned out to several sessions once", async () => {
    const store = open();
    const { router } = newRouter(store);
    for (const id of ["a", "b", "c"]) {
      const client = online(router, id, { receiveMaximum: 1 });
      router.subscribe(id, client.generation, [sub("t")]);
    }
    router.publish(message("t", "shared"));
    await store.close();
    expect(countRows(store.file)).toMatchObject({ deliveries: 3, messages: 1 });
  });

  it("hands a shared message back as one object", async () => {
    const store = open();
    const { router } = newRouter(store);
    for (const id of ["a", "b"]) {
      const client = online(router, id);
      router.subscribe(id, client.generation, [sub("t")]);
    }
    router.publish(message("t", "shared"));
    await store.close();
    const reopened = open();
    const [a, b] = reopened.load().sessions;
    expect(a?.deliveries[0]?.delivery.message).toBe(b?.deliveries[0]?.delivery.message);
    await reopened.close();
  });

  it("deletes a message once its last delivery is acknowledged", async () => {
    const store = open();
    const { router } = newRouter(store);
    const c = online(router, "c");
    router.subscribe("c", c.generation, [sub("t")]);
    router.publish(message("t", "ack me"));
    await store.flush();
    router.acknowledge("c", c.generation, c.sink.sent[0]?.packetId ?? -1);
    await store.close();
    expect(countRows(store.file)).toMatchObject({ deliveries: 0, messages: 0 });
  });

  it("leaves no rows for a session ended by a clean start", async () => {
    const store = open();
    const { router } = newRouter(store);
    const c = online(router, "c", { receiveMaximum: 1, will: { message: message("w", "x"), delaySeconds: 60 } });
    router.subscribe("c", c.generation, [sub("t")]);
    router.inboundQos2("c", c.generation, 3, true);
    router.publish(message("t", "1"));
    router.publish(message("t", "2"));
    await store.flush();
    const fresh = online(router, "c", { cleanStart: true, sessionExpiryInterval: 0 });
    router.disconnect("c", fresh.generation, { publishWill: false });
    await store.close();
    expect(countRows(store.file)).toEqual({ sessions: 0, subscriptions: 0, deliveries: 0, inbound_qos2: 0, wills: 0, retained: 0, messages: 0 });
  });

  it("leaves no rows for an expired session", async () => {
    const store = open();
    const { router, clock } = newRouter(store);
    const c = online(router, "c", { sessionExpiryInterval: 10 });
    router.subscribe("c", c.generation, [sub("t")]);
    router.disconnect("c", c.generation, { publishWill: false });
    router.publish(message("t", "queued offline"));
    await store.flush();
    clock.advance(10_000);
    router.tick();
    await store.close();
    expect(countRows(store.file)).toEqual({ sessions: 0, subscriptions: 0, deliveries: 0, inbound_qos2: 0, wills: 0, retained: 0, messages: 0 });
  });

  it("keeps a retained message that is also queued until both let go", async () => {
    const store = open();
    const { router } = newRouter(store);
    const c = online(router, "c", { receiveMaximum: 1 });
    router.subscribe("c", c.generation, [sub("t")]);
    router.publish(message("t", "kept", 1, { retain: true }));
    await store.flush();
    router.acknowledge("c", c.generation, c.sink.sent[0]?.packetId ?? -1);
    await store.close();
    expect(countRows(store.file)).toMatchObject({ deliveries: 0, retained: 1, messages: 1 });
  });
});
