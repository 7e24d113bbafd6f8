import type { StreamId } from "@handoff/qmux";

/** The slice of the framing that stream handlers use (so they can be tested with a fake). */
export interface StreamIo {
  /** Opens a stream of ours; undefined when the peer's stream limit is reached or the session closed. */
  open(bidi: boolean): StreamId | undefined;
  /**
   * Queues bytes (and FIN); returns how many were accepted (FIN applies only if all were). For
   * streams that pace themselves (group and fetch data keep what was not taken); everything else
   * uses {@link send}.
   */
  write(id: StreamId, bytes: Uint8Array, fin: boolean): number;
  /**
   * Writes control bytes (and FIN) whole: what the framing cannot take now waits in the session
   * and follows in order when the stream has room. Never truncates a message.
   */
  send(id: StreamId, bytes: Uint8Array, fin: boolean): void;
  /** Abandons our sending side. */
  reset(id: StreamId, code: number): void;
  /** Asks the peer to stop sending. */
  stopSending(id: StreamId, code: number): void;
  /**
   * Sends one datagram (qmux-01/02 DATAGRAM); false, and nothing sent, when the peer takes no
   * datagram that large (or none at all). Absent: the session sends none.
   */
  datagram?(bytes: Uint8Array): boolean;
}
