import { hex } from "@handoff/test-kit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FramingError, TransportError } from "./errors.js";
import { transportParamsArb } from "./testing/frame-arbitrary.js";
import { decodeTransportParams, EMPTY_PARAMS, encodeTransportParams, REFERENCE_PARAMS } from "./transport-params.js";

function codeOf(result: unknown): number | undefined {
  return result instanceof FramingError ? result.code : undefined;
}

describe("transport parameters", () => {
  it("round-trip", () => {
    fc.assert(
      fc.property(transportParamsArb, (params) => {
        const decoded = decodeTransportParams(encodeTransportParams(params));
        const protocols = params.applicationProtocols.map((p) => new TextDecoder().decode(new TextEncoder().encode(p)));
        expect(decoded).toEqual({ ...params, applicationProtocols: protocols });
      }),
      { numRuns: 500 },
    );
  });

  it("write the reference defaults as id, length, varint triples, zero values omitted", () => {
    const bytes = encodeTransportParams({ ...EMPTY_PARAMS, maxIdleTimeout: 30_000, initialMaxStreamsBidi: 100 });
    expect(Buffer.from(bytes).toString("hex")).toBe("0104" + "80007530" + "0802" + "4064");
  });

  it("decode what @moq/qmux 0.0.6 sends (its recommended values)", () => {
    const js = hex("0404 80100000 0504 80040000 0604 80040000 0704 80040000 0802 4064 0902 4064");
    expect(decodeTransportParams(js)).toEqual({ ...REFERENCE_PARAMS, maxIdleTimeout: 0, maxRecordSize: 0 });
  });

  it("skip unknown parameters", () => {
    expect(decodeTransportParams(hex("1101ff 0401 05"))).toMatchObject({ initialMaxData: 5 });
  });

  it("refuse a duplicate with TRANSPORT_PARAMETER_ERROR", () => {
    expect(codeOf(decodeTransportParams(hex("040105 040106")))).toBe(TransportError.TRANSPORT_PARAMETER_ERROR);
  });

  it("refuse QUIC v1 parameters qmux forbids with TRANSPORT_PARAMETER_ERROR", () => {
    expect(codeOf(decodeTransportParams(hex("0200")))).toBe(TransportError.TRANSPORT_PARAMETER_ERROR);
    expect(codeOf(decodeTransportParams(hex("0e0101")))).toBe(TransportError.TRANSPORT_PARAMETER_ERROR);
  });

  it("refuse a truncated list or a value that does not fill its length", () => {
    expect(codeOf(decodeTransportParams(hex("0405 01")))).toBe(TransportError.TRANSPORT_PARAMETER_ERROR);
    expect(codeOf(decodeTransportParams(hex("0402 0101")))).toBe(TransportError.TRANSPORT_PARAMETER_ERROR);
    expect(codeOf(decodeTransportParams(hex("0400")))).toBe(TransportError.TRANSPORT_PARAMETER_ERROR);
  });

  it("never throw on random bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), (bytes) => {
        decodeTransportParams(bytes);
      }),
      { numRuns: 1000 },
    );
  });
});
