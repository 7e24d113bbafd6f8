import { connect as tcpConnect, type Socket } from "node:net";
import { LITE_04, LiteStreamReader, LiteStreamWriter, type LiteMessage } from "@handoff/moq-resume/lite";
import { describe, expect, it } from "vitest";
import { createFraming, type FramingEvent, type StreamId } from "@handoff/qmux";
import { e2eSetup, livePublisher, payload, testRelay, until, within } from "./harness.test-helpers.js";

const cleanup = e2eSetup();

/** A downstream relay's end of a qmux-over-TCP link, speaking lite-04 with the codec. */
async function link(port: number) {
  const socket: Socket = tcpConnect(port, "127.0.0.1");
  const connected = new Promise((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  cleanup.push(() => socket.destroy());
  const framing = createFraming("qmux-00", { role: "client", carrier: "stream", autoConsume: true, params: { applicationProtocols: ["moq-lite-04"] } });
  const events: FramingEvent[] = [];
  const readers = new Map<StreamId, LiteStreamReader>();
  const messages = new Map<StreamId, LiteMessage[]>();
  const flush = (): void => {
    for (const e of framing.poll()) {
      if (e.kind === "send") socket.write(e.bytes);
      else events.push(e);
      if (e.kind === "stream-data") {
        const reader = readers.get(e.streamId) ?? new LiteStreamReader({ role: "accepted-uni", version: LITE_04 });
        readers.set(e.streamId, reader);
        reader.push(e.bytes);
        messages.set(e.streamId, [...(messages.get(e.streamId) ?? []), ...reader.drain().messages]);
      }
    }
  };
  // Listen before awaiting the connect: the relay's transport parameters may follow at once.
  socket.on("data", (chunk: Buffer) => {
    framing.receive(new Uint8Array(chunk));
    flush();
  });
  await within(connected, 2000, "tcp connect");
  flush();
  await until(() => events.some((e) => e.kind === "ready"), 2000, "transport parameters");
  const writer = new LiteStreamWriter(LITE_04);
  const request = (kind: "announce" | "subscribe", msgs: LiteMessage[]): StreamId => {
    const r = framing.openStream(true);
    if (!r.ok) throw new Error("no stream");
    readers.set(r.streamId, new LiteStreamReader({ role: "opened", kind, version: LITE_04 }));
    framing.write(r.streamId, writer.encodeAll([{ type: "stream_header", kind }, ...msgs]));
    flush();
    return r.streamId;
  };
  return { framing, events, messages, request };
}

describe("qmux over raw TCP (relay link, lite-04)", () => {
  it("agrees on moq-lite-04 in-band, discovers a broadcast with hops and receives its groups", async () => {
    const r = await testRelay(cleanup);
    const broadcast = await livePublisher(cleanup, r);

    if (r.ports.tcp === undefined) throw new Error("no tcp port");
    const peer = await link(r.ports.tcp);
    expect([...r.sessions].some((s) => s.version === LITE_04)).toBe(true);
    const announces = peer.request("announce", [{ type: "announce_request", prefix: "anon", excludeHop: 0 }]);
    await until(() => (peer.messages.get(announces) ?? []).length > 0, 2000, "announce");
    expect(peer.messages.get(announces)).toEqual([{ type: "announce", status: "active", suffix: "live", hops: [r.origin.hopId] }]);

    const sub = peer.request("subscribe", [
      { type: "subscribe", id: 3, broadcast: "anon/live", track: "video", priority: 1, ordered: true, maxLatency: 0, startGroup: undefined, endGroup: undefined },
    ]);
    const req = await within(broadcast.requested(), 2000, "track requested");
    if (!req) throw new Error("no request");
    await until(() => (peer.messages.get(sub) ?? []).length > 0, 2000, "subscribe ok");
    const group = req.track.appendGroup();
    for (let f = 0; f < 3; f++) group.writeFrame(payload(0, f));
    group.close();
    const groupStream = (): LiteMessage[] =>
      [...peer.messages.entries()].find(([, msgs]) => msgs.some((m) => m.type === "group"))?.[1] ?? [];
    await until(() => groupStream().filter((m) => m.type === "frame").length === 3, 2000, "frames");
    expect(groupStream().slice(1)).toEqual([
      { type: "group", subscribe: 3, sequence: 0 },
      ...[0, 1, 2].map((f) => ({ type: "frame", payload: payload(0, f), timestamp: undefined })),
    ]);
  });
});
