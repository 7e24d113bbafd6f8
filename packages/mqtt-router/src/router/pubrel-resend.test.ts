// PUBREL resends are never limited by the client's Receive Maximum [MQTT-3.3.4-10], also when
// they sit behind a DUP PUBLISH in the resend queue.
import { describe, expect, it } from "vitest";
import { message, newRouter, online, sub } from "./router.test-helpers.js";

describe("PUBREL resend after a resume with a smaller Receive Maximum", () => {
  it("goes out at bind even when an earlier DUP PUBLISH fills the quota", () => {
    const { router } = newRouter();
    const first = online(router, "c", { receiveMaximum: 3 });
    router.subscribe("c", first.generation, [sub("t", 2)]);
    for (const p of ["one", "two", "three"]) router.publish(message("t", p, 2));
    const ids = first.sink.sent.map((p) => p.packetId ?? 0);
    // Only the second and third reach the PUBREL phase; the first is still awaiting PUBREC.
    router.pubrec("c", first.generation, ids[1] ?? 0);
    router.pubrec("c", first.generation, ids[2] ?? 0);

    const second = online(router, "c", { receiveMaximum: 1 });
    expect(second.sink.pubrels).toEqual([ids[1], ids[2]]);
    // The PUBREL flows keep their quota slots until PUBCOMP, so the DUP PUBLISH waits for them.
    expect(second.sink.sent).toEqual([]);
    router.publish(message("t", "four", 2));
    router.acknowledge("c", second.generation, ids[1] ?? 0);
    expect(second.sink.sent).toEqual([]);
    router.acknowledge("c", second.generation, ids[2] ?? 0);
    expect(second.sink.sent.map((p) => [p.packetId, p.dup])).toEqual([[ids[0], true]]);
    router.acknowledge("c", second.generation, ids[0] ?? 0);
    expect(second.sink.payloads()).toEqual(["one", "four"]);
  });

  it("goes out once, not again on a later bind of the same owner", () => {
    const { router } = newRouter();
    const first = online(router, "c");
    router.subscribe("c", first.generation, [sub("t", 2)]);
    router.publish(message("t", "x", 2));
    const id = first.sink.sent[0]?.packetId ?? 0;
    router.pubrec("c", first.generation, id);
    const second = online(router, "c", { receiveMaximum: 1 });
    router.unbind("c", second.generation);
    router.bind("c", second.generation);
    expect(second.sink.pubrels).toEqual([id]);
  });
});
