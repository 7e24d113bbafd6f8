import { concat } from "@handoff/test-kit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TransportError } from "./errors.js";
import { createFraming } from "./index.js";
import { qmuxRecordStreamWire } from "./record-stream-wire.js";
import { negotiateTlsAlpn, tlsAlpns } from "./subprotocol.js";
import { qmuxFrameArb } from "./testing/frame-arbitrary.js";
import { pump, streamBytes } from "./framing-session.test-helpers.js";
import { pushInPieces } from "./wire.test-helpers.js";

describe("qmux-01/02 records over a byte stream", () => {
  it("yields the frames it encoded however the bytes are split", () => {
    fc.assert(
      fc.property(fc.array(qmuxFrameArb, { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 10 }), (frames, cuts) => {
        const sender = qmuxRecordStreamWire("qmux-01", 1 << 20);
        const parts = frames.map((f) => sender.encode(f)).filter((b): b is Uint8Array => b !== undefined);
        expect(pushInPieces(qmuxRecordStreamWire("qmux-01", 1 << 20), concat(parts), cuts)).toEqual(frames);
      }),
      { numRuns: 300 },
    );
  });

  it("prefixes each record with its size, and takes an empty record", () => {
    const wire = qmuxRecordStreamWire("qmux-02", 16_382);
    const record = wire.encode({ type: "padding" });
    expect(record === undefined ? [] : [...record]).toEqual([1, 0]);
    expect(wire.push(Uint8Array.of(0, 1, 0))).toEqual({ frames: [{ type: "padding" }], error: undefined });
  });

  it("refuses a record larger than our max_record_size before it arrives", () => {
    const wire = qmuxRecordStreamWire("qmux-01", 100);
    const { error } = wire.push(Uint8Array.of(0x40, 101));
    expect(error?.code).toBe(TransportError.FRAME_ENCODING_ERROR);
  });

  it("refuses a record whose last frame runs past its end", () => {
    const wire = qmuxRecordStreamWire("qmux-01", 100);
    // A 2-byte record holding the start of a STREAM frame with a 5-byte length.
    const { error } = wire.push(Uint8Array.of(2, 0x0a, 0));
    expect(error?.code).toBe(TransportError.FRAME_ENCODING_ERROR);
  });

  it("runs a qmux-02 connection over a byte stream: streams, and datagrams both ways", () => {
    const client = createFraming("qmux-02", { role: "client", carrier: "stream" });
    const server = createFraming("qmux-02", { role: "server", carrier: "stream" });
    const first = pump(client, server);
    expect(first.a).toContainEqual({ kind: "ready" });
    expect(first.b).toContainEqual({ kind: "ready" });
    expect(client.version).toBe("qmux-02");
    expect(client.maxDatagramPayload).toBeGreaterThan(0);
    const open = client.openStream(true);
    if (!open.ok) throw new Error("open refused");
    const payload = Uint8Array.from({ length: 40_000 }, (_, i) => i & 0xff);
    client.write(open.streamId, payload, true);
    expect(client.sendDatagram(Uint8Array.of(1, 2, 3))).toBe(true);
    const up = pump(client, server);
    expect(Buffer.from(streamBytes(up.b, open.streamId).bytes).equals(payload)).toBe(true);
    expect(up.b).toContainEqual({ kind: "datagram", bytes: Uint8Array.of(1, 2, 3) });
    expect(server.sendDatagram(Uint8Array.of(9))).toBe(true);
    expect(pump(client, server).a).toContainEqual({ kind: "datagram", bytes: Uint8Array.of(9) });
  });
});

describe("qmux version by TLS ALPN", () => {
  it("offers qmux-02, qmux-01, then the bare ALPN (qmux-00) for each moq version", () => {
    expect(tlsAlpns(["moq-lite-06", "moq-lite-05"])).toEqual([
      "qmux-02.moq-lite-06",
      "qmux-01.moq-lite-06",
      "moq-lite-06",
      "qmux-02.moq-lite-05",
      "qmux-01.moq-lite-05",
      "moq-lite-05",
    ]);
  });

  it("reads the agreed ALPN as a qmux version and a moq ALPN", () => {
    expect(negotiateTlsAlpn("qmux-02.moq-lite-06")).toEqual({ framing: "qmux-02", moqAlpn: "moq-lite-06" });
    expect(negotiateTlsAlpn("qmux-01.moq-lite-04")).toEqual({ framing: "qmux-01", moqAlpn: "moq-lite-04" });
    // A relay from before qmux-01 over TLS answers a bare moq ALPN; plain TCP has none at all.
    expect(negotiateTlsAlpn("moq-lite-06")).toEqual({ framing: "qmux-00", moqAlpn: "moq-lite-06" });
    expect(negotiateTlsAlpn(false)).toEqual({ framing: "qmux-00", moqAlpn: undefined });
    expect(negotiateTlsAlpn(undefined)).toEqual({ framing: "qmux-00", moqAlpn: undefined });
  });
});
