// Coalescing of pending changes into the net difference from the file.
import type { Delivery } from "@handoff/mqtt-router";
import { describe, expect, it } from "vitest";
import { PendingChanges } from "./pending.js";
import { message } from "./store.test-helpers.js";

const delivery: Delivery = { message: message("t", "x"), qos: 1, retain: false, subscriptionIds: [] };

describe("PendingChanges", () => {
  it("drops a fresh delivery removed before the commit", () => {
    const p = new PendingChanges();
    p.queueDelivery("c", 0, delivery, 1, false);
    p.removeDelivery("c", 0);
    expect(p.isEmpty).toBe(true);
  });

  it("keeps the delete of a stored delivery that was replaced and then removed", () => {
    const p = new PendingChanges();
    p.queueDelivery("c", 0, delivery, 1, true);
    p.removeDelivery("c", 0);
    expect(p.deliveries.get("c")?.get(0)).toEqual({ kind: "delete" });
  });

  it("treats a delivery queued again after a pending delete as replacing a stored row", () => {
    const p = new PendingChanges();
    p.removeDelivery("c", 0);
    p.queueDelivery("c", 0, delivery, 1, false);
    p.removeDelivery("c", 0);
    expect(p.deliveries.get("c")?.get(0)).toEqual({ kind: "delete" });
  });

  it("folds a packet id into a pending insert", () => {
    const p = new PendingChanges();
    p.queueDelivery("c", 0, delivery, 1, false);
    p.assignDelivery("c", 0, { packetId: 9, phase: "publish" });
    expect(p.deliveries.get("c")?.get(0)).toMatchObject({ kind: "upsert", assigned: { packetId: 9, phase: "publish" } });
  });

  it("updates only the packet id of a stored delivery", () => {
    const p = new PendingChanges();
    p.assignDelivery("c", 0, { packetId: 9, phase: "pubrel" });
    expect(p.deliveries.get("c")?.get(0)).toEqual({ kind: "assign", packetId: 9, phase: "pubrel" });
  });

  it("keeps the phase recorded, not the router's object (which PUBREC changes in place)", () => {
    const p = new PendingChanges();
    const routers: { packetId: number; phase: "publish" | "pubrel" } = { packetId: 9, phase: "publish" };
    p.queueDelivery("c", 0, delivery, 1, false);
    p.assignDelivery("c", 0, routers);
    p.assignDelivery("c", 1, routers);
    routers.phase = "pubrel";
    expect([p.deliveries.get("c")?.get(0), p.deliveries.get("c")?.get(1)]).toMatchObject([
      { kind: "upsert", assigned: { packetId: 9, phase: "publish" } },
      { kind: "assign", packetId: 9, phase: "publish" },
    ]);
  });

  it("never writes a message inserted and deleted in the same batch", () => {
    const p = new PendingChanges();
    p.insertMessage(5, delivery.message);
    p.deleteMessage(5);
    expect(p.isEmpty).toBe(true);
  });

  it("forgets a deleted client's pending rows but remembers to delete its stored ones", () => {
    const p = new PendingChanges();
    p.saveSession({ clientId: "c", expiryInterval: 1, generation: 1, disconnectedAt: undefined });
    p.saveSubscription("c", { filter: "t", qos: 1, noLocal: false, retainAsPublished: false, retainHandling: 0 });
    p.queueDelivery("c", 0, delivery, 1, false);
    p.inboundQos2Changed("c", 1, true);
    p.setWill("c", { messageId: 1, delayMs: 0 });
    p.deleteClient("c");
    expect([p.size, [...p.clientDeletes]]).toEqual([1, ["c"]]);
  });
});
