import { LITE_04, LiteStreamReader, LiteStreamWriter } from "@handoff/moq-resume/lite";
import type { StreamId } from "@handoff/qmux";
import { until } from "./harness.test-helpers.js";
import { rawTcpClient, type RawTcpClient } from "./raw-client.test-helpers.js";

/** A hand-driven lite-04 publisher over raw TCP (test helper). */
export interface RawPublisher {
  readonly c: RawTcpClient;
  /** Waits for the relay's first SUBSCRIBE and returns its id. */
  subscribeId(): Promise<number>;
  /** Opens a group stream of subscription `id` and writes its header and `frames` (then FIN when `fin`); returns the stream. */
  group(id: number, sequence: number, frames: readonly Uint8Array[], fin: boolean): StreamId;
  /** Writes one more frame on group stream `stream` (then FIN when `fin`). */
  frame(stream: StreamId, payload: Uint8Array, fin: boolean): void;
}

/** Connects to the relay's raw-TCP `port`, announces `name` when the relay asks, and publishes what the test writes. */
export async function rawPublisher(cleanup: (() => unknown)[], port: number, name: string): Promise<RawPublisher> {
  const c = await rawTcpClient(cleanup, port);
  const writer = new LiteStreamWriter(LITE_04);
  await until(() => c.events.some((e) => e.kind === "stream-opened" && e.bidi), 3000, "announce request");
  const asked = c.events.find((e) => e.kind === "stream-opened" && e.bidi);
  if (asked?.kind !== "stream-opened") throw new Error("no announce request");
  c.framing.write(asked.streamId, writer.encode({ type: "announce", status: "active", suffix: name, hops: [] }));
  c.flush();
  const subscribeId = async (): Promise<number> => {
    const opened = (): StreamId[] => c.events.flatMap((e) => (e.kind === "stream-opened" && e.bidi && e.streamId !== asked.streamId ? [e.streamId] : []));
    await until(() => opened().length > 0, 3000, "upstream SUBSCRIBE");
    const id = opened()[0] ?? -1;
    await until(() => c.received(id).length > 0, 3000, "SUBSCRIBE bytes");
    const reader = new LiteStreamReader({ role: "accepted-bidi", version: LITE_04 });
    for (const chunk of c.received(id)) reader.push(chunk);
    const msg = reader.drain().messages.find((m) => m.type === "subscribe");
    if (msg?.type !== "subscribe") throw new Error("no SUBSCRIBE");
    return msg.id;
  };
  const group = (id: number, sequence: number, frames: readonly Uint8Array[], fin: boolean): StreamId => {
    const r = c.framing.openStream(false);
    if (!r.ok) throw new Error("no uni stream");
    c.framing.write(
      r.streamId,
      writer.encodeAll([
        { type: "stream_header", kind: "group" },
        { type: "group", subscribe: id, sequence },
        ...frames.map((payload) => ({ type: "frame" as const, payload, timestamp: undefined })),
      ]),
      fin,
    );
    c.flush();
    return r.streamId;
  };
  const frame = (stream: StreamId, payload: Uint8Array, fin: boolean): void => {
    c.framing.write(stream, writer.encode({ type: "frame", payload, timestamp: undefined }), fin);
    c.flush();
  };
  return { c, subscribeId, group, frame };
}
