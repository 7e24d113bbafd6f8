import type { StreamId } from "../transport/index.js";

/** The slice of the framing that stream handlers use (so they can be tested with a fake). */
export interface StreamIo {
  /** Opens a stream of ours; undefined when the peer's stream limit is reached or the session closed. */
  open(bidi: boolean): StreamId | undefined;
  /** Queues bytes (and FIN); returns how many were accepted (FIN applies only if all were). */
  write(id: StreamId, bytes: Uint8Array, fin: boolean): number;
  /** Abandons our sending side. */
  reset(id: StreamId, code: number): void;
  /** Asks the peer to stop sending. */
  stopSending(id: StreamId, code: number): void;
}
