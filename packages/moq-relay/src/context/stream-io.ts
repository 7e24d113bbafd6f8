import type { FramingSession, StreamId } from "@handoff/qmux";
import type { ControlBacklog } from "./control-backlog.js";

/** The slice of the framing that stream handlers use (so they can be tested with a fake). */
export interface StreamIo {
  /** Opens a stream of ours; undefined when the peer's stream limit is reached or the session closed. */
  open(bidi: boolean): StreamId | undefined;
  /**
   * Queues bytes (and FIN); returns how many were accepted (FIN applies only if all were). For
   * streams that pace themselves (group and fetch data keep what was not taken); everything else
   * uses {@link send}. `bytes` may be parts, taken as their concatenation without a copy (a
   * group's header and the frame encodings every subscriber of the track shares).
   */
  write(id: StreamId, bytes: Uint8Array | readonly Uint8Array[], fin: boolean): number;
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

/**
 * The stream I/O of a session over `framing`: control bytes go through `backlog`, which holds
 * what the framing cannot take yet; group and fetch data is written directly.
 */
export function framingIo(framing: FramingSession, backlog: ControlBacklog): StreamIo {
  return {
    open: (bidi) => {
      const r = framing.openStream(bidi);
      return r.ok ? r.streamId : undefined;
    },
    write: (id, bytes, fin) => {
      const r = framing.write(id, bytes, fin);
      // A stream already gone takes everything (nothing will be sent on it).
      return r.ok ? r.accepted : bytes instanceof Uint8Array ? bytes.length : bytes.reduce((n, part) => n + part.length, 0);
    },
    send: (id, bytes, fin) => {
      backlog.send(id, bytes, fin);
    },
    reset: (id, code) => {
      backlog.drop(id);
      framing.reset(id, code);
    },
    stopSending: (id, code) => {
      framing.stopSending(id, code);
    },
    datagram: (bytes) => framing.sendDatagram(bytes),
  };
}
