import type { Boundary, Track } from "@handoff/moq-resume";
import { LITE_04, type LiteMessage, LiteStreamWriter } from "@handoff/moq-resume/lite";
import type { PlaceCopy } from "../origin/route.js";
import type { StreamId } from "@handoff/qmux";
import { Harness, type HarnessOptions } from "./harness.test-helpers.js";
import { InboundGroup } from "../upstream/inbound-group.js";
import type { UpstreamSubscription } from "../upstream/upstream-subscription.js";

export const atLiveEdge: PlaceCopy = () => undefined;

/** A harness and one upstream subscription to `video` of `cam`, placed where `boundary` says. */
export function upstream(options: HarnessOptions & { readonly boundary?: Boundary } = {}) {
  const h = new Harness(options);
  const placed: Track[] = [];
  const up = h.subscribeUpstream("cam", "video", 5, (copy) => {
    placed.push(copy);
    return options.boundary;
  });
  if (up === undefined) throw new Error("no upstream subscription");
  const [stream] = h.io.opened(true);
  if (stream === undefined) throw new Error("no SUBSCRIBE stream");
  return { h, up, stream, placed, writer: new LiteStreamWriter(h.version ?? LITE_04) };
}

/** What the relay wrote on its SUBSCRIBE stream, decoded as the peer reads it. */
export function requests(h: Harness, stream: StreamId): LiteMessage[] {
  return h.io.messages(stream, { role: "accepted-bidi", version: h.version ?? LITE_04 });
}

export function handlerSub(h: Harness, stream: StreamId): UpstreamSubscription {
  const handler = h.handlers.get(stream);
  if (handler?.kind !== "upstream") throw new Error(`no upstream handler on ${String(stream)}`);
  return handler.sub;
}

/** The bytes of a group stream: header for subscription `subscribe`, then one frame per payload. */
export function groupBytes(writer: LiteStreamWriter, subscribe: number, sequence: number, frames: readonly Uint8Array[]): Uint8Array {
  return writer.encodeAll([
    { type: "stream_header", kind: "group" },
    { type: "group", subscribe, sequence },
    ...frames.map((payload): LiteMessage => ({ type: "frame", payload, timestamp: undefined })),
  ]);
}

/** Feeds a whole group stream `id` to the harness's upstreams, as dispatch would. */
export function receiveGroup(h: Harness, id: StreamId, bytes: Uint8Array, fin = true): InboundGroup {
  const group = new InboundGroup(h.version ?? LITE_04, h.limits.maxGroupBytes);
  h.handlers.set(id, { kind: "group-in", group });
  h.receiveGroup(id, group, bytes, fin);
  return group;
}

export function frames(track: Track, sequence: number): (number | undefined)[] {
  const group = track.group(sequence);
  if (group === undefined) return [];
  const out: (number | undefined)[] = [];
  for (let i = 0; i < group.frameEnd; i += 1) out.push(group.frame(i)?.[0]);
  return out;
}

export const bytes = (...values: number[]): Uint8Array[] => values.map((v) => Uint8Array.of(v));
