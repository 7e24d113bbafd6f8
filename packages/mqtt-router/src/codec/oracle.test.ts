import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { anyPacket } from "./arbitraries.test-helpers.js";
import { decodePacket } from "./decode.js";
import { encodePacket } from "./encode.js";
import { fromOracle, normalizeForOracle, oracleCanGenerate, oracleCanParse, oracleGenerate, oracleParse } from "./mqtt-packet-oracle.test-helpers.js";
import type { ProtocolVersion } from "./packet.js";

describe.each([4, 5] as const)("mqtt-packet as an oracle, level %i", (version: ProtocolVersion) => {
  it("parses the bytes we encode to the same packet", () => {
    fc.assert(
      fc.property(anyPacket(version), (packet) => {
        fc.pre(oracleCanParse(packet));
        const encoded = encodePacket(packet, { protocolVersion: version });
        if (!encoded.ok) throw encoded.error;
        const theirs = oracleParse(encoded.bytes, version);
        expect(theirs).toHaveLength(1);
        expect(theirs.map((p) => fromOracle(p, version))).toEqual([normalizeForOracle(packet)]);
      }),
      { numRuns: 500 },
    );
  });

  it("decodes the bytes mqtt-packet encodes to the same packet", () => {
    fc.assert(
      fc.property(anyPacket(version), (packet) => {
        fc.pre(oracleCanGenerate(packet));
        const bytes = oracleGenerate(packet, version);
        expect(decodePacket(bytes, { protocolVersion: version })).toEqual({ ok: true, packet: normalizeForOracle(packet) });
      }),
      { numRuns: 500 },
    );
  });
});

// A counterexample CI found: mqtt-packet's object lists an integer-like name ("0") before the
// others, whatever order the packet had.
describe("User Properties as mqtt-packet orders them", () => {
  it("compare equal when an integer-like name follows another", () => {
    const packet = { type: "auth", reasonCode: 0, properties: { userProperties: [["", ""], ["0", ""]] } } as const satisfies Parameters<typeof normalizeForOracle>[0];
    const encoded = encodePacket(packet, { protocolVersion: 5 });
    if (!encoded.ok) throw encoded.error;
    expect(oracleParse(encoded.bytes, 5).map((p) => fromOracle(p, 5))).toEqual([normalizeForOracle(packet)]);
    expect(decodePacket(oracleGenerate(packet, 5), { protocolVersion: 5 })).toEqual({ ok: true, packet: normalizeForOracle(packet) });
  });
});
