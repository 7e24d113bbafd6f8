import type { Track } from "@handoff/moq-resume";
import { type SubscribeUpdate } from "@handoff/moq-resume/lite";
import type { StreamId } from "@handoff/qmux";
import { lastCopy } from "../origin/test-source.test-helpers.js";
import type { OutboundGroup } from "../serve/outbound-group.js";
import { Harness, type HarnessOptions, subscribeMsg } from "./harness.test-helpers.js";

/** A harness with a publisher of `cam`, and the peer's SUBSCRIBE (fields given) on stream 0. */
export function serving(fields: Parameters<typeof subscribeMsg>[2] = {}, options: HarnessOptions = {}) {
  const h = new Harness(options);
  const pub = h.publisher("cam");
  h.serve(0, subscribeMsg(7, "cam", fields));
  return { h, pub, copy: lastCopy(pub).track };
}

/** The copy the publisher fills for `track` of `cam`, after the peer's SUBSCRIBE on `stream`. */
export function subscribeTrack(h: Harness, stream: StreamId, id: number, track: string, priority: number, ordered = true): Track {
  h.serve(stream, subscribeMsg(id, "cam", { track, priority, ordered, startGroup: 0 }));
  const copy = h.origin.upstreamCopy("cam", track);
  if (copy === undefined) throw new Error(`no copy of ${track}`);
  return copy;
}

export function finishedGroup(track: Track, sequence: number, ...bytes: number[]): void {
  const group = track.createGroup(sequence);
  for (const b of bytes) group.write(Uint8Array.of(b));
  group.finish();
}

export function outbound(h: Harness, stream: StreamId): OutboundGroup {
  const handler = h.handlers.get(stream);
  if (handler?.kind !== "group-out") throw new Error(`no outbound group on ${String(stream)}`);
  return handler.group;
}

export function update(fields: Partial<Omit<SubscribeUpdate, "type">>): SubscribeUpdate {
  return { type: "subscribe_update", priority: 0, ordered: false, maxLatency: 0, startGroup: undefined, endGroup: undefined, ...fields };
}
