import { chunked } from "@handoff/test-kit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { anyPacket, publishPacket } from "./arbitraries.test-helpers.js";
import { decodePacket } from "./decode.js";
import { PacketDecoder } from "./decoder.js";
import { encodePacket } from "./encode.js";
import type { Packet, ProtocolVersion } from "./packet.js";

function encodeOk(packet: Packet, protocolVersion: ProtocolVersion): Uint8Array {
  const r = encodePacket(packet, { protocolVersion });
  if (!r.ok) throw new Error(`encode failed: ${r.error.message}`);
  return r.bytes;
}

describe.each([4, 5] as const)("MQTT level %i round trip", (version) => {
  it("decodes every encoded valid packet back to the same packet", () => {
    fc.assert(
      fc.property(anyPacket(version), (packet) => {
        const bytes = encodeOk(packet, version);
        expect(decodePacket(bytes, { protocolVersion: version })).toEqual({ ok: true, packet });
      }),
      { numRuns: 1000 },
    );
  });

  it("round-trips PUBLISH packets whose Remaining Length takes two or three bytes", () => {
    fc.assert(
      fc.property(publishPacket(version, 20_000), (packet) => {
        expect(decodePacket(encodeOk(packet, version), { protocolVersion: version })).toEqual({ ok: true, packet });
      }),
      { numRuns: 30 },
    );
  });

  it("encodes a decoded packet to the same bytes", () => {
    fc.assert(
      fc.property(anyPacket(version), (packet) => {
        const bytes = encodeOk(packet, version);
        const decoded = decodePacket(bytes, { protocolVersion: version });
        if (!decoded.ok) throw decoded.error;
        expect(encodeOk(decoded.packet, version)).toEqual(bytes);
      }),
      { numRuns: 500 },
    );
  });

  it("decodes a stream the same whatever its chunking", () => {
    const stream = fc.array(anyPacket(version), { minLength: 1, maxLength: 6 }).chain((packets) => {
      const parts = packets.map((p) => encodeOk(p, version));
      const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
      let at = 0;
      for (const p of parts) {
        all.set(p, at);
        at += p.length;
      }
      return chunked(all, 20).map((chunks) => ({ packets, chunks }));
    });
    fc.assert(
      fc.property(stream, ({ packets, chunks }) => {
        const decoder = new PacketDecoder({ protocolVersion: version });
        const got: Packet[] = [];
        for (const c of chunks) {
          decoder.push(c);
          for (let item = decoder.next(); item !== undefined; item = decoder.next()) {
            if (!item.ok) throw item.error;
            got.push(item.packet);
          }
        }
        expect(got).toEqual(packets);
        expect(decoder.bufferedBytes).toBe(0);
      }),
      { numRuns: 300 },
    );
  });
});
