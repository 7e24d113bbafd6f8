import { chunked, mutated } from "@handoff/test-kit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { anyPacket } from "./arbitraries.test-helpers.js";
import { decodePacket } from "./decode.js";
import { PacketDecoder } from "./decoder.js";
import { encodePacket } from "./encode.js";
import type { ProtocolVersion } from "./packet.js";

const MAX = 256;
const HEADER_SLACK = 5;

/** Pushes `chunks` and drains; fails the property if anything throws or the buffer exceeds its bound. */
function feed(decoder: PacketDecoder, chunks: readonly Uint8Array[]): void {
  for (const c of chunks) {
    decoder.push(c);
    expect(decoder.bufferedBytes).toBeLessThanOrEqual(MAX + HEADER_SLACK);
    expect(decoder.reservedBytes).toBeLessThanOrEqual(MAX + HEADER_SLACK);
    for (let item = decoder.next(); item !== undefined; item = decoder.next()) {
      if (!item.ok) {
        expect(item.error.message).not.toMatch(/internal/);
        return;
      }
    }
  }
}

const version = fc.constantFrom<ProtocolVersion | undefined>(undefined, 4, 5);

function encoded(v: ProtocolVersion): fc.Arbitrary<Uint8Array> {
  return anyPacket(v).map((p) => {
    const r = encodePacket(p, { protocolVersion: v });
    if (!r.ok) throw r.error;
    return r.bytes;
  });
}

/** A valid packet with a few bytes overwritten, inserted or removed. */
const mutatedPacket = fc.constantFrom<ProtocolVersion>(4, 5).chain((v) => mutated(encoded(v)).map((bytes) => ({ v, bytes })));

describe("decoder fuzzing", () => {
  it("never throws and stays bounded on random bytes in random chunks", () => {
    fc.assert(
      fc.property(
        version,
        fc.uint8Array({ maxLength: 600 }).chain((b) => chunked(b, 20)),
        (v, chunks) => {
          const decoder = new PacketDecoder(v === undefined ? { maxPacketSize: MAX } : { protocolVersion: v, maxPacketSize: MAX });
          feed(decoder, chunks);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("never throws and stays bounded on mutated valid packets in random chunks", () => {
    fc.assert(
      fc.property(
        mutatedPacket.chain(({ v, bytes }) => chunked(bytes, 20).map((chunks) => ({ v, chunks }))),
        ({ v, chunks }) => {
          feed(new PacketDecoder({ protocolVersion: v, maxPacketSize: MAX }), chunks);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("one-shot decoding never throws on mutated valid packets", () => {
    fc.assert(
      fc.property(mutatedPacket, ({ v, bytes }) => {
        const r = decodePacket(bytes, { protocolVersion: v });
        expect(r.ok || !r.error.message.includes("internal")).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it("keeps returning the same error after a failure, whatever follows", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 64 }), (more) => {
        const decoder = new PacketDecoder({ protocolVersion: 4 });
        decoder.push(Uint8Array.of(0x00, 0x00)); // reserved packet type 0
        const first = decoder.next();
        decoder.push(more);
        expect(decoder.next()).toBe(first);
        expect(decoder.next()).toBe(first);
        expect(decoder.bufferedBytes).toBe(0);
      }),
      { numRuns: 200 },
    );
  });
});
