// QUIC stream ids (RFC 9000 §2.1): bit 0 = server-initiated, bit 1 = unidirectional,
// the rest is the per-type index. Ids stay below 2^53 in practice because the
// stream-count limits bound the index; arithmetic avoids 32-bit bit operators.

/** A QUIC stream id (a non-negative safe integer). */
export type StreamId = number;

/** True if `id` was opened by the server. */
export function isServerInitiated(id: StreamId): boolean {
  return id % 2 === 1;
}

/** True if `id` is a bidirectional stream. */
export function isBidi(id: StreamId): boolean {
  return Math.floor(id / 2) % 2 === 0;
}

/** The per-type sequence index of `id` (0 for the first stream of its kind). */
export function streamIndex(id: StreamId): number {
  return Math.floor(id / 4);
}

/** Builds the id of the `index`-th stream of a kind. */
export function makeStreamId(index: number, bidi: boolean, server: boolean): StreamId {
  return index * 4 + (bidi ? 0 : 2) + (server ? 1 : 0);
}
