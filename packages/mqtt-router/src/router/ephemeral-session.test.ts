// A session with a Session Expiry Interval of 0 ends with its connection, so with the process too:
// the router never asks the store to keep its queue or its QoS 2 state, only what outlives it.
import { describe, expect, it } from "vitest";
import { SnapshotStore } from "./snapshot-store.js";
import type { RouterStore } from "./store.js";
import { message, newRouter, online, sub } from "./router.test-helpers.js";

/** A store that notes which client each queue or QoS 2 change was for, and keeps the rest. */
class ClientLog extends SnapshotStore implements RouterStore {
  readonly clients: string[] = [];
  override deliveryQueued(...a: Parameters<RouterStore["deliveryQueued"]>): void { this.clients.push(`queued ${a[0]}`); super.deliveryQueued(...a); }
  override deliveryAssigned(...a: Parameters<RouterStore["deliveryAssigned"]>): void { this.clients.push(`assigned ${a[0]}`); super.deliveryAssigned(...a); }
  override deliveryRemoved(...a: Parameters<RouterStore["deliveryRemoved"]>): void { this.clients.push(`removed ${a[0]}`); super.deliveryRemoved(...a); }
  override inboundQos2Changed(...a: Parameters<RouterStore["inboundQos2Changed"]>): void { this.clients.push(`qos2 ${a[0]}`); super.inboundQos2Changed(...a); }
}

describe("a session that ends with its connection", () => {
  it("has no delivery stored, while a durable subscriber of the same message has its own", () => {
    const store = new ClientLog();
    const { router } = newRouter({ store });
    const gone = online(router, "gone", { cleanStart: true, sessionExpiryInterval: 0 });
    const kept = online(router, "kept", { sessionExpiryInterval: 60 });
    router.subscribe("gone", gone.generation, [sub("t", 2)]);
    router.subscribe("kept", kept.generation, [sub("t", 2)]);
    router.publish(message("t", "one", 2));
    for (const c of [{ id: "gone", ...gone }, { id: "kept", ...kept }]) {
      const packetId = c.sink.sent[0]?.packetId ?? -1;
      expect(router.pubrec(c.id, c.generation, packetId)).toEqual({ ok: true, known: true });
      expect(router.acknowledge(c.id, c.generation, packetId)).toEqual({ ok: true, known: true });
    }
    expect(gone.sink.payloads()).toEqual(["one"]);
    expect(store.clients).toEqual(["queued kept", "assigned kept", "assigned kept", "removed kept"]);
  });

  it("has no inbound QoS 2 packet id stored", () => {
    const store = new ClientLog();
    const { router } = newRouter({ store });
    const gone = online(router, "gone", { cleanStart: true, sessionExpiryInterval: 0 });
    const kept = online(router, "kept", { sessionExpiryInterval: 60 });
    router.inboundQos2("gone", gone.generation, 7, true);
    router.inboundQos2("kept", kept.generation, 7, true);
    router.inboundQos2("gone", gone.generation, 7, false);
    expect(store.clients).toEqual(["qos2 kept"]);
    // The router still knows it, for the connection's own duplicate check.
    expect(router.session("gone")?.inboundQos2.size).toBe(0);
    expect(router.session("kept")?.inboundQos2.has(7)).toBe(true);
  });

  it("is not made durable by a DISCONNECT asking for an expiry [MQTT-3.14.2-2]: it ends", () => {
    const store = new ClientLog();
    const { router } = newRouter({ store });
    const gone = online(router, "gone", { cleanStart: true, sessionExpiryInterval: 0 });
    router.subscribe("gone", gone.generation, [sub("t")]);
    router.publish(message("t", "queued before the disconnect"));
    router.disconnect("gone", gone.generation, { publishWill: false, sessionExpiryInterval: 600 });
    expect(router.session("gone")).toBeUndefined();
    expect(store.snapshot().sessions).toEqual([]);
  });

  it("resumed as one (a durable session reconnecting with expiry 0) is not brought back by a restart", () => {
    const store = new SnapshotStore();
    const first = newRouter({ store });
    const c = online(first.router, "c", { sessionExpiryInterval: 60 });
    first.router.subscribe("c", c.generation, [sub("t")]);
    first.router.disconnect("c", c.generation, { publishWill: false });
    first.router.publish(message("t", "stored while durable"));
    // Resumed with expiry 0: the queued copy goes out, its ack is not stored.
    const again = online(first.router, "c", { sessionExpiryInterval: 0 });
    expect(again.sessionPresent).toBe(true);
    expect(first.router.acknowledge("c", again.generation, again.sink.sent[0]?.packetId ?? -1)).toEqual({ ok: true, known: true });
    // The process dies here: the stored expiry of 0 ends the session at once.
    const second = newRouter({ store });
    second.router.restore(store.snapshot());
    expect(second.router.session("c")).toBeUndefined();
    const back = online(second.router, "c", { sessionExpiryInterval: 60 });
    expect(back.sessionPresent).toBe(false);
    expect(back.sink.sent).toEqual([]);
  });
});
