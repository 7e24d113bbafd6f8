// fast-check generators of frames, for this folder's tests (not part of the public API).
import fc from "fast-check";
import type { Frame } from "../frame.js";
import type { TransportParams } from "../transport-params.js";

const int = fc.maxSafeNat();
const small = fc.maxSafeNat();
const bytes = fc.uint8Array({ maxLength: 64 });
const reason = fc.string({ maxLength: 40 });

/** Transport parameters as the encoder can write them (ids are never duplicated). */
export const transportParamsArb: fc.Arbitrary<TransportParams> = fc.record({
  maxIdleTimeout: int,
  initialMaxData: int,
  initialMaxStreamDataBidiLocal: int,
  initialMaxStreamDataBidiRemote: int,
  initialMaxStreamDataUni: int,
  initialMaxStreamsBidi: small,
  initialMaxStreamsUni: small,
  maxRecordSize: int,
  maxDatagramFrameSize: int,
  resetStreamAt: fc.boolean(),
  applicationProtocols: fc.array(fc.string({ minLength: 0, maxLength: 12 }), { maxLength: 3 }),
});

/** Every qmux frame kind (00 to 02) with arbitrary field values. */
export const qmuxFrameArb: fc.Arbitrary<Frame> = fc.oneof(
  fc.constant<Frame>({ type: "padding" }),
  fc.record({ type: fc.constant("stream" as const), id: int, offset: fc.option(int, { nil: undefined }), data: bytes, fin: fc.boolean() }),
  fc.record({ type: fc.constant("reset-stream" as const), id: int, code: int, finalSize: int }),
  fc.record({ type: fc.constant("stop-sending" as const), id: int, code: int }),
  fc.record({ type: fc.constant("connection-close" as const), code: int, frameType: int, reason }),
  fc.record({ type: fc.constant("application-close" as const), code: int, reason }),
  fc.record({ type: fc.constant("max-data" as const), max: int }),
  fc.record({ type: fc.constant("max-stream-data" as const), id: int, max: int }),
  fc.record({ type: fc.constant("max-streams" as const), bidi: fc.boolean(), max: small }),
  fc.record({ type: fc.constant("data-blocked" as const), limit: int }),
  fc.record({ type: fc.constant("stream-data-blocked" as const), id: int, limit: int }),
  fc.record({ type: fc.constant("streams-blocked" as const), bidi: fc.boolean(), limit: small }),
  fc.record({ type: fc.constant("datagram" as const), data: bytes }),
  fc.record({ type: fc.constant("transport-parameters" as const), params: transportParamsArb }),
  fc
    .record({ id: int, code: int, finalSize: int, reliableSize: int })
    .map(({ id, code, finalSize, reliableSize }) => ({
      type: "reset-stream-at" as const,
      id,
      code,
      finalSize: Math.max(finalSize, reliableSize),
      reliableSize: Math.min(finalSize, reliableSize),
    })),
  fc.record({ type: fc.constant("ping" as const), response: fc.boolean(), sequence: int }),
);
