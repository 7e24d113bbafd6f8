import { describe, expect, it } from "vitest";
import { createFraming } from "./index.js";
import type { FramingEvent, FramingKind } from "./events.js";
import { closedEvent, pump, streamBytes } from "./framing-session.test-helpers.js";

function pair(kind: FramingKind) {
  const client = createFraming(kind, { role: "client" });
  const server = createFraming(kind, { role: "server" });
  const first = pump(client, server);
  return { client, server, first };
}

function bytes(n: number, seed = 1): Uint8Array {
  return Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);
}

describe.each<FramingKind>(["qmux-00", "webtransport"])("a %s client and server in memory", (kind) => {
  it("both become ready", () => {
    const { first } = pair(kind);
    expect(first.a).toContainEqual({ kind: "ready" });
    expect(first.b).toContainEqual({ kind: "ready" });
  });

  it("exchange data with FIN on a client-opened bidi stream", () => {
    const { client, server } = pair(kind);
    const open = client.openStream(true);
    if (!open.ok) throw new Error("open refused");
    expect(open.streamId).toBe(0);
    client.write(open.streamId, bytes(40_000), true);
    const up = pump(client, server);
    expect(up.b).toContainEqual({ kind: "stream-opened", streamId: 0, bidi: true });
    const got = streamBytes(up.b, 0);
    expect(got.fin).toBe(true);
    expect(Buffer.from(got.bytes).equals(bytes(40_000))).toBe(true);
    server.consume(0, 40_000);
    server.write(0, bytes(5, 9), true);
    const down = pump(client, server);
    expect(streamBytes(down.a, 0)).toEqual({ bytes: bytes(5, 9), fin: true });
    expect(client.liveStreams).toBe(0);
    expect(server.liveStreams).toBe(0);
  });

  it("exchange data on server-opened uni and bidi streams", () => {
    const { client, server } = pair(kind);
    const uni = server.openStream(false);
    const bidi = server.openStream(true);
    if (!uni.ok || !bidi.ok) throw new Error("open refused");
    expect([uni.streamId, bidi.streamId]).toEqual([3, 1]);
    server.write(uni.streamId, bytes(10), true);
    server.write(bidi.streamId, bytes(7), false);
    const { a } = pump(client, server);
    expect(a).toContainEqual({ kind: "stream-opened", streamId: 3, bidi: false });
    expect(a).toContainEqual({ kind: "stream-opened", streamId: 1, bidi: true });
    expect(streamBytes(a, 3)).toEqual({ bytes: bytes(10), fin: true });
    expect(streamBytes(a, 1)).toEqual({ bytes: bytes(7), fin: false });
  });

  it("deliver a reset to the reader", () => {
    const { client, server } = pair(kind);
    const open = client.openStream(false);
    if (!open.ok) throw new Error("open refused");
    client.write(open.streamId, bytes(3));
    expect(client.reset(open.streamId, 42)).toBe(true);
    const { b } = pump(client, server);
    expect(b).toContainEqual({ kind: "stream-reset", streamId: 2, code: 42 });
    expect(server.liveStreams).toBe(0);
  });

  it("answer STOP_SENDING with a reset carrying the same code", () => {
    const { client, server } = pair(kind);
    const open = client.openStream(true);
    if (!open.ok) throw new Error("open refused");
    client.write(open.streamId, bytes(3));
    pump(client, server);
    server.stopSending(open.streamId, 7);
    const { a, b } = pump(client, server);
    expect(a).toContainEqual({ kind: "stop-sending", streamId: 0, code: 7 });
    expect(b).not.toContainEqual(expect.objectContaining({ kind: "stream-reset" }));
    expect(client.write(open.streamId, bytes(1))).toEqual({ ok: false, reason: "not-writable" });
  });

  it("close with an application code the peer sees", () => {
    const { client, server } = pair(kind);
    server.close(0x10, "going away");
    const { a, b } = pump(client, server);
    expect(closedEvent(b)).toEqual({ kind: "closed", code: 0x10, reason: "going away", byPeer: false, transport: false });
    expect(closedEvent(a)).toEqual({ kind: "closed", code: 0x10, reason: "going away", byPeer: true, transport: false });
    expect(client.openStream(true)).toEqual({ ok: false, reason: "closed" });
  });
});

describe("a qmux-00 client and server over a byte stream (TCP)", () => {
  it("exchange data however the byte stream is chunked", () => {
    const client = createFraming("qmux-00", { role: "client", carrier: "stream", autoConsume: true });
    const server = createFraming("qmux-00", { role: "server", carrier: "stream", autoConsume: true });
    // Re-chunk every burst of sends into 7-byte pieces, as TCP may.
    const shuttle = (from: typeof client, to: typeof client, seen: FramingEvent[]): boolean => {
      const events = from.poll();
      const wire = Buffer.concat(events.flatMap((e) => (e.kind === "send" ? [e.bytes] : [])));
      seen.push(...events.filter((e) => e.kind !== "send"));
      for (let i = 0; i < wire.length; i += 7) to.receive(Uint8Array.from(wire.subarray(i, i + 7)));
      return events.length > 0;
    };
    const atClient: FramingEvent[] = [];
    const atServer: FramingEvent[] = [];
    const settle = (): void => {
      for (let i = 0; i < 1000 && (shuttle(client, server, atClient) || shuttle(server, client, atServer)); i++);
    };
    settle();
    const open = client.openStream(true);
    if (!open.ok) throw new Error("open refused");
    client.write(open.streamId, bytes(50_000), true);
    settle();
    const got = streamBytes(atServer, open.streamId);
    expect(got.fin).toBe(true);
    expect(Buffer.from(got.bytes).equals(bytes(50_000))).toBe(true);
    expect(closedEvent([...atClient, ...atServer])).toBeUndefined();
  });
});
