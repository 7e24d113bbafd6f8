import { describe, expect, it } from "vitest";
import { TransportError } from "./errors.js";
import type { FramingOptions } from "./events.js";
import type { Frame } from "./frame.js";
import { createFraming } from "./index.js";
import { qmuxRecordStreamWire } from "./record-stream-wire.js";
import type { FramingSession } from "./framing-session.js";
import { closedEvent, paramsFrame, pump } from "./framing-session.test-helpers.js";

// Plain TCP has no ALPN: a qmux-02 end that may face a qmux-01 one (the reference relay's fixed
// choice on TCP) settles on qmux-01 unless the peer advertises reset_stream_at.
const dialer = (options: Partial<FramingOptions> = {}): FramingSession =>
  createFraming("qmux-02", { role: "client", carrier: "stream", matchPeerVersion: true, ...options });

/** Feeds hand-written frames as records on a byte stream. */
function feedRecords(session: FramingSession, ...frames: Frame[]): void {
  const wire = qmuxRecordStreamWire("qmux-01", 16_382);
  for (const frame of frames) {
    const bytes = wire.encode(frame);
    if (bytes === undefined) throw new Error("not encodable");
    session.receive(bytes);
  }
}

describe("matchPeerVersion (qmux-01/02 on a carrier without ALPN)", () => {
  it("stays qmux-02 with a qmux-02 peer, and says qmux-02 before the peer's parameters", () => {
    const client = dialer();
    const server = createFraming("qmux-02", { role: "server", carrier: "stream", matchPeerVersion: true });
    expect(client.version).toBe("qmux-02");
    pump(client, server);
    expect([client.version, server.version]).toEqual(["qmux-02", "qmux-02"]);
  });

  it("settles on qmux-01 with a qmux-01 peer, which needs no change of wire", () => {
    const client = dialer();
    const server = createFraming("qmux-01", { role: "server", carrier: "stream" });
    const events = pump(client, server);
    expect([client.version, server.version]).toEqual(["qmux-01", "qmux-01"]);
    expect(events.a.some((e) => e.kind === "ready") && events.b.some((e) => e.kind === "ready")).toBe(true);
    // Datagrams are qmux-01's too.
    expect(client.sendDatagram(new Uint8Array([7]))).toBe(true);
    expect(pump(client, server).b).toEqual([{ kind: "datagram", bytes: new Uint8Array([7]) }]);
  });

  it("drops qmux-02's ping sequence rules once settled on qmux-01", () => {
    const lenient = dialer();
    const strict = createFraming("qmux-02", { role: "client", carrier: "stream" });
    for (const session of [lenient, strict]) {
      session.poll();
      const ping: Frame = { type: "ping", response: false, sequence: 5 };
      feedRecords(session, paramsFrame(), ping, ping);
    }
    expect(closedEvent(lenient.poll())).toBeUndefined();
    expect(closedEvent(strict.poll())).toMatchObject({ code: TransportError.PROTOCOL_VIOLATION });
  });

  it("takes a qmux-01 peer's refusal sent before its parameters as a refusal", () => {
    const session = dialer();
    session.poll();
    feedRecords(session, { type: "application-close", code: 0x5, reason: "too many sessions" });
    expect(closedEvent(session.poll())).toEqual({ kind: "closed", code: 0x5, reason: "too many sessions", byPeer: true, transport: false });
  });

  it("keeps qmux-02 on a peer with reset_stream_at, and has no effect on other versions", () => {
    const session = dialer();
    feedRecords(session, paramsFrame({ resetStreamAt: true }));
    expect(session.version).toBe("qmux-02");
    const one = createFraming("qmux-01", { role: "client", carrier: "stream", matchPeerVersion: true });
    feedRecords(one, paramsFrame({ resetStreamAt: true }));
    expect(one.version).toBe("qmux-01");
  });
});
