/**
 * `@handoff/qmux`: qmux (draft-00, -01 and -02: QUIC's streams, flow control and datagrams over a
 * reliable byte carrier) and the legacy "webtransport" WebSocket framing, behind one sans-I/O
 * connection state machine, plus WebSocket subprotocol negotiation for moq.
 *
 * The owner feeds bytes in and drains events after every call, until none are
 * left (handling an event, e.g. writing, can queue more); time comes in through `tick`:
 *
 * ```ts
 * const choice = negotiateSubprotocol(offeredProtocols); // in ws handleProtocols
 * const framing = createFraming(choice.framing, { role: "server" });
 * const drain = () => {
 *   for (let batch = framing.poll(); batch.length > 0; batch = framing.poll())
 *     for (const e of batch) if (e.kind === "send") ws.send(e.bytes); else handle(e);
 * };
 * ws.on("message", (data) => { framing.receive(data); drain(); });
 * setInterval(() => { framing.tick(performance.now()); drain(); }, 1000);
 * ```
 */
import type { FramingKind, FramingOptions } from "./events.js";
import { FramingSession } from "./framing-session.js";

export { concatBytes } from "./bytes.js";
export { FramingError, TransportError, type TransportErrorCode } from "./errors.js";
export type {
  Carrier,
  FramingEvent,
  FramingKind,
  FramingOptions,
  QmuxVersion,
  OpenResult,
  Role,
  WriteResult,
} from "./events.js";
export { MAX_FRAME_SIZE, MAX_STREAM_PAYLOAD } from "./frame.js";
export type { FramingSession } from "./framing-session.js";
export { isBidi, isServerInitiated, streamIndex, type StreamId } from "./stream-id.js";
export { STREAM_SNIFF_BYTES, sniffStreamQmux, type StreamSniff } from "./stream-sniff.js";
export {
  DEFAULT_MOQ_ALPNS,
  QMUX_VERSIONS,
  TCP_MOQ_ALPNS,
  negotiateSubprotocol,
  negotiateTlsAlpn,
  supportedSubprotocols,
  tlsAlpns,
  type SubprotocolChoice,
  type TlsAlpnChoice,
} from "./subprotocol.js";
export { REFERENCE_PARAMS, type TransportParams } from "./transport-params.js";

/**
 * Creates the framing state machine for one connection. qmux-00 runs over
 * WebSocket messages (`carrier: "message"`, the default) or a byte stream
 * (`carrier: "stream"`, relay-to-relay TCP); so do qmux-01/02 (records with a
 * Size prefix on a byte stream). The legacy framing runs only over WebSocket
 * messages, so asking for it on a byte stream is a programming error.
 */
export function createFraming(kind: FramingKind, options: FramingOptions): FramingSession {
  return new FramingSession(kind, options);
}
