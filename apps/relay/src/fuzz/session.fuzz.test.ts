// Fuzz at the transport seam: thousands of random and damaged moq-lite streams, transport frames
// and raw bytes, each case a session of its own on one shared origin where a publisher and a
// bystander live. No case may throw, fault or close with an internal error, and afterwards the
// publisher is still up and a bystander still completes a round trip.
import { LITE_04, LiteStreamWriter } from "@handoff/moq-resume/lite";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { testOrigin, TestPeer } from "@handoff/moq-relay/testing";
import { fuzzCase } from "./arbitraries.test-helpers.js";
import { runCase } from "./fuzz-client.test-helpers.js";

const RUNS = 3000;

/** A bystander's round trip through `origin`: a fresh broadcast, subscribed to and read back. */
function roundTrip(origin: ReturnType<typeof testOrigin>, name: string, ids: number): boolean {
  const publisher = new TestPeer(origin, { id: ids });
  const [announce] = publisher.opened(true);
  if (announce === undefined) return false;
  publisher.write(announce, publisher.writer.encode({ type: "announce", status: "active", suffix: name, hops: [] }));
  const subscriber = new TestPeer(origin, { id: ids + 1 });
  subscriber.open([
    { type: "stream_header", kind: "subscribe" },
    { type: "subscribe", id: 1, broadcast: name, track: "video", priority: 0, ordered: false, maxLatency: 0, startGroup: undefined, endGroup: undefined },
  ]);
  const upstream = publisher.opened(true)[1];
  if (upstream === undefined) return false;
  const request = publisher.decode(upstream, { role: "accepted-bidi", version: LITE_04 })[1];
  if (request?.type !== "subscribe") return false;
  const group = publisher.framing.openStream(false);
  if (!group.ok) return false;
  publisher.write(
    group.streamId,
    new LiteStreamWriter(LITE_04).encodeAll([
      { type: "stream_header", kind: "group" },
      { type: "group", subscribe: request.id, sequence: 0 },
      { type: "frame", payload: Uint8Array.of(7, 7), timestamp: undefined },
    ]),
    true,
  );
  const [down] = subscriber.opened(false);
  if (down === undefined) return false;
  const frame = subscriber.decode(down, { role: "accepted-uni", version: LITE_04 }).find((m) => m.type === "frame");
  return frame?.type === "frame" && frame.payload.length === 2;
}

describe("fuzz at the session seam", () => {
  it(`survives ${String(RUNS)} random and damaged connections, and serves a bystander after`, () => {
    const origin = testOrigin();
    // A publisher of `cam`, which the cases' SUBSCRIBEs mostly ask for.
    const publisher = new TestPeer(origin, { id: 1 });
    const [announce] = publisher.opened(true);
    if (announce === undefined) throw new Error("no announce stream");
    publisher.write(announce, publisher.writer.encode({ type: "announce", status: "active", suffix: "cam", hops: [] }));
    // A viewer that subscribes to `fz` whenever a case announces it, so the case's group streams
    // and subscribe replies are read by the relay, not ignored.
    const viewer = new TestPeer(origin, { id: 2, permissions: { publish: [], subscribe: [""] } });
    let subscribeId = 0;
    const subscribeToCase = (): void => {
      if (origin.routes("fz").length === 0 || viewer.session.subscriptions > 0) return;
      viewer.open([
        { type: "stream_header", kind: "subscribe" },
        { type: "subscribe", id: subscribeId++, broadcast: "fz", track: "video", priority: 0, ordered: false, maxLatency: 0, startGroup: undefined, endGroup: undefined },
      ]);
    };
    // The publisher writes a group now and then, so fan-out reaches the cases' subscriptions.
    let sequence = 0;
    const publish = (): void => {
      const upstream = publisher.opened(true).at(-1);
      if (upstream === undefined || upstream === announce || origin.cachedTrack("cam", "video") === undefined) return;
      const request = publisher.decode(upstream, { role: "accepted-bidi", version: LITE_04 })[1];
      const group = publisher.framing.openStream(false);
      if (request?.type !== "subscribe" || !group.ok) return;
      publisher.write(
        group.streamId,
        new LiteStreamWriter(LITE_04).encodeAll([
          { type: "stream_header", kind: "group" },
          { type: "group", subscribe: request.id, sequence: sequence++ },
          { type: "frame", payload: Uint8Array.of(1, 2, 3), timestamp: undefined },
        ]),
        true,
      );
    };
    const react = (): void => {
      subscribeToCase();
      publish();
    };
    let id = 100;
    let closedByRelay = 0;
    fc.assert(
      fc.property(fuzzCase(), (c) => {
        const result = runCase(origin, id++, c, react);
        if (result.closed) closedByRelay += 1;
        expect(result.bugs).toEqual([]);
      }),
      { numRuns: RUNS },
    );
    expect(publisher.session.closed).toBe(false);
    expect(viewer.session.closed).toBe(false);
    // Cases did announce `fz` and the viewer got to subscribe to it.
    expect(subscribeId).toBeGreaterThan(0);
    // Every fuzzed session is gone: only the publisher's route is left.
    expect(origin.routes("cam").length).toBe(1);
    expect(origin.broadcasts).toBe(1);
    expect(roundTrip(origin, "bystander", 10)).toBe(true);
    // Some cases were bad enough for the relay to close them, and many were not.
    expect(closedByRelay).toBeGreaterThan(0);
    expect(closedByRelay).toBeLessThan(RUNS);
  }, 90_000);
});
