import { LITE_05, type LiteMessage, LiteStreamReader, LiteStreamWriter, type Setup, type StreamKind } from "@handoff/moq-resume/lite";
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { createFraming, type FramingEvent, type StreamId } from "@handoff/qmux";
import { e2eSetup, testRelay, until, within } from "./harness.test-helpers.js";

const cleanup = e2eSetup();

function setup(role: Setup["role"]): Setup {
  return { type: "setup", probe: "none", path: undefined, role, cost: undefined, origin: undefined, unknown: [] };
}

/** A lite-05 peer built on the codec, over qmux-00 on a WebSocket offering `qmux-00.moq-lite-05`. */
async function lite05Client(port: number, role: Setup["role"]) {
  const ws = new WebSocket(`ws://127.0.0.1:${String(port)}/demo`, ["qmux-00.moq-lite-05"]);
  const opened = new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  cleanup.push(() => {
    ws.terminate();
  });
  const framing = createFraming("qmux-00", { role: "client", autoConsume: true });
  const events: FramingEvent[] = [];
  const readers = new Map<StreamId, LiteStreamReader>();
  const messages = new Map<StreamId, LiteMessage[]>();
  const fins = new Set<StreamId>();
  const flush = (): void => {
    for (let batch = framing.poll(); batch.length > 0; batch = framing.poll()) {
      for (const e of batch) {
        if (e.kind === "send") ws.send(e.bytes);
        else events.push(e);
        if (e.kind === "stream-opened") readers.set(e.streamId, new LiteStreamReader({ role: e.bidi ? "accepted-bidi" : "accepted-uni", version: LITE_05 }));
        if (e.kind === "stream-data") {
          const reader = readers.get(e.streamId);
          if (reader === undefined) continue;
          reader.push(e.bytes);
          if (e.fin) {
            reader.end();
            fins.add(e.streamId);
          }
          messages.set(e.streamId, [...(messages.get(e.streamId) ?? []), ...reader.drain().messages]);
        }
      }
    }
  };
  ws.on("message", (data: Buffer) => {
    framing.receive(new Uint8Array(data));
    flush();
  });
  await within(opened, 3000, "websocket open");
  flush();
  await until(() => events.some((e) => e.kind === "ready"), 2000, "transport parameters");
  const writer = (): LiteStreamWriter => new LiteStreamWriter(LITE_05);
  const write = (id: StreamId, msgs: LiteMessage[], fin = false): void => {
    framing.write(id, writer().encodeAll(msgs), fin);
    flush();
  };
  const open = (kind: StreamKind, msgs: LiteMessage[], fin = false): StreamId => {
    const uni = kind === "setup" || kind === "group";
    const r = framing.openStream(!uni);
    if (!r.ok) throw new Error("no stream");
    if (kind !== "setup" && kind !== "group") readers.set(r.streamId, new LiteStreamReader({ role: "opened", kind, version: LITE_05 }));
    write(r.streamId, [{ type: "stream_header", kind }, ...msgs], fin);
    return r.streamId;
  };
  /** The first stream the relay opened whose messages satisfy `match`. */
  const find = (match: (msgs: LiteMessage[]) => boolean): StreamId | undefined => [...messages.entries()].find(([, msgs]) => match(msgs))?.[0];
  open("setup", [setup(role)], true);
  return { events, messages, fins, write, open, find, resets: (id: StreamId) => events.filter((e) => e.kind === "stream-reset" && e.streamId === id) };
}

const has = (type: LiteMessage["type"]) => (msgs: LiteMessage[]) => msgs.some((m) => m.type === type);

type Client = Awaited<ReturnType<typeof lite05Client>>;

/** A relay with a lite-05 publisher of `cam` (hop 77) announced, and a lite-05 viewer connected. */
async function camOnRelay() {
  const relay = await testRelay(cleanup);
  const publisher = await lite05Client(relay.ports.http, "publisher");
  await until(() => publisher.find(has("announce_request")) !== undefined, 2000, "announce request");
  const announceStream = publisher.find(has("announce_request"));
  if (announceStream === undefined) throw new Error("no announce request");
  publisher.write(announceStream, [
    { type: "announce_ok", hopId: 77, activeCount: 1 },
    { type: "announce", status: "active", suffix: "cam", hops: [] },
  ]);
  await until(() => relay.origin.broadcasts === 1, 2000, "routable");
  const viewer = await lite05Client(relay.ports.http, "subscriber");
  return { relay, publisher, viewer };
}

const STAMPS = [90_000, 93_003, 96_006];

/**
 * The viewer subscribes to `cam/video` (priority 2); the publisher answers SUBSCRIBE_START and
 * sends group 0 with frames stamped {@link STAMPS}; resolves once the viewer has the whole group.
 */
async function subscribeAndPublish(publisher: Client, viewer: Client): Promise<{ subscription: StreamId; groupStream: StreamId }> {
  const subscription = viewer.open("subscribe", [
    { type: "subscribe", id: 5, broadcast: "cam", track: "video", priority: 2, ordered: true, maxLatency: 0, startGroup: undefined, endGroup: undefined },
  ]);
  await until(() => publisher.find(has("subscribe")) !== undefined, 2000, "upstream subscribe");
  const upstream = publisher.find(has("subscribe"));
  const request = upstream === undefined ? undefined : publisher.messages.get(upstream)?.find((m) => m.type === "subscribe");
  if (upstream === undefined || request?.type !== "subscribe") throw new Error("no upstream subscribe");
  publisher.write(upstream, [{ type: "subscribe_start", group: 0 }]);
  publisher.open(
    "group",
    [{ type: "group", subscribe: request.id, sequence: 0 }, ...STAMPS.map((timestamp, f): LiteMessage => ({ type: "frame", payload: Uint8Array.of(f, f), timestamp }))],
    true,
  );
  const groupStream = (): StreamId | undefined => viewer.find(has("group"));
  await until(() => viewer.fins.has(groupStream() ?? -1), 2000, "group downstream");
  return { subscription, groupStream: groupStream() ?? -1 };
}

describe("lite-05 through the relay (qmux-00.moq-lite-05 over WebSocket)", () => {
  it("sends its SETUP and FIN, and asks a publisher for announces once the publisher's SETUP is read", async () => {
    const relay = await testRelay(cleanup);
    const publisher = await lite05Client(relay.ports.http, "publisher");
    await until(() => publisher.find(has("announce_request")) !== undefined, 2000, "announce request");
    const relaySetup = publisher.find(has("setup"));
    expect(relaySetup === undefined ? [] : [publisher.messages.get(relaySetup), publisher.fins.has(relaySetup)]).toEqual([
      [{ type: "stream_header", kind: "setup" }, setup("both")],
      true,
    ]);
  });

  it("answers an announce request with ANNOUNCE_OK and the initial set", async () => {
    const { relay, viewer } = await camOnRelay();
    const announces = viewer.open("announce", [{ type: "announce_request", prefix: "", excludeHop: 0 }]);
    await until(() => (viewer.messages.get(announces) ?? []).length >= 2, 2000, "announces");
    expect(viewer.messages.get(announces)).toEqual([
      { type: "announce_ok", hopId: relay.origin.hopId, activeCount: 1 },
      { type: "announce", status: "active", suffix: "cam", hops: [77] },
    ]);
  });

  it("answers a subscription with SUBSCRIBE_START and relays frames with their timestamps unchanged", async () => {
    const { publisher, viewer } = await camOnRelay();
    const { subscription, groupStream } = await subscribeAndPublish(publisher, viewer);
    expect(viewer.messages.get(groupStream)).toEqual([
      { type: "stream_header", kind: "group" },
      { type: "group", subscribe: 5, sequence: 0 },
      ...STAMPS.map((timestamp, f) => ({ type: "frame", payload: Uint8Array.of(f, f), timestamp })),
    ]);
    expect(viewer.messages.get(subscription)).toEqual([{ type: "subscribe_start", group: 0 }]);
  });

  it("answers FETCH of a finished group with its frames and timestamps, then FIN", async () => {
    const { publisher, viewer } = await camOnRelay();
    await subscribeAndPublish(publisher, viewer);
    const fetch = viewer.open("fetch", [{ type: "fetch", broadcast: "cam", track: "video", priority: 0, group: 0 }]);
    await until(() => viewer.fins.has(fetch), 2000, "fetch");
    expect(viewer.messages.get(fetch)).toEqual(STAMPS.map((timestamp, f) => ({ type: "frame", payload: Uint8Array.of(f, f), timestamp })));
  });

  it("answers TRACK with the publisher's info, asked on a TRACK stream of its own, and resets an unknown broadcast with not-found", async () => {
    const { publisher, viewer } = await camOnRelay();
    await subscribeAndPublish(publisher, viewer);
    const info = viewer.open("track", [{ type: "track", broadcast: "cam", track: "video" }]);
    const missing = viewer.open("track", [{ type: "track", broadcast: "nobody", track: "video" }]);
    await until(() => publisher.find(has("track")) !== undefined, 2000, "the relay asks the publisher");
    const query = publisher.find(has("track"));
    if (query === undefined) throw new Error("no track query");
    expect(publisher.messages.get(query)).toEqual([{ type: "stream_header", kind: "track" }, { type: "track", broadcast: "cam", track: "video" }]);
    publisher.write(query, [{ type: "track_info", priority: 2, ordered: true, maxLatency: 1500, timescale: 48_000 }], true);
    await until(() => viewer.fins.has(info) && viewer.resets(missing).length > 0, 2000, "track info");
    expect(viewer.messages.get(info)).toEqual([{ type: "track_info", priority: 2, ordered: true, maxLatency: 1500, timescale: 48_000 }]);
    expect(viewer.resets(missing)).toMatchObject([{ code: 404 }]);
  });

  it("answers PROBE with an unknown bitrate and keeps the stream open", async () => {
    const { viewer } = await camOnRelay();
    const probe = viewer.open("probe", []);
    await until(() => (viewer.messages.get(probe) ?? []).length > 0, 2000, "probe");
    expect([viewer.messages.get(probe), viewer.fins.has(probe)]).toEqual([[{ type: "probe", bitrate: undefined, rtt: undefined }], false]);
  });
});
