/**
 * A minimal subscriber at any moq-lite version the codec speaks from lite-04 on, over one
 * WebSocket, built on the relay's own framing and the codec: far cheaper than @moq/lite, so tests
 * and the benchmark can run hundreds (a thousand) of them and see the relay's cost rather than the
 * client's. Test and benchmark helper.
 */
import { LITE_04, LITE_05, LITE_06, LiteStreamReader, LiteStreamWriter, type LiteVersion } from "@handoff/moq-resume/lite";
import type WebSocket from "ws";
import { createFraming, type FramingEvent, type StreamId, type TransportParams } from "@handoff/qmux";
import { framedWebSocket } from "./framed-ws.test-helpers.js";

/** The versions a raw subscriber runs at, with the WebSocket subprotocol that selects each. */
export const RAW_VERSIONS = {
  "lite-04": { subprotocol: "qmux-00.moq-lite-04", qmux: "qmux-00", version: LITE_04 },
  "lite-05": { subprotocol: "qmux-02.moq-lite-05", qmux: "qmux-02", version: LITE_05 },
  "lite-06": { subprotocol: "qmux-02.moq-lite-06", qmux: "qmux-02", version: LITE_06 },
} as const satisfies Record<string, { subprotocol: string; qmux: "qmux-00" | "qmux-02"; version: LiteVersion }>;

/** A version key of {@link RAW_VERSIONS}. */
export type RawVersion = keyof typeof RAW_VERSIONS;

/** Options of {@link rawSubscriber}. */
export interface RawSubscriberOptions {
  /** URL path of the connection (its scope). */
  readonly path: string;
  readonly broadcast: string;
  readonly track: string;
  /** The version it speaks (lite-04 over qmux-00 unless told). */
  readonly at?: RawVersion;
  /** Transport parameters the client advertises (e.g. tiny credit for a starved subscriber). */
  readonly params?: Partial<TransportParams>;
  /** Called with each frame's payload. */
  readonly onFrame?: (payload: Uint8Array) => void;
  /** Called with each group stream's sequence. */
  readonly onGroup?: (sequence: number) => void;
  /** Called when the relay resets one of its group streams. */
  readonly onReset?: (code: number) => void;
}

/** A connected, subscribed raw subscriber. */
export interface RawSubscriber {
  readonly ws: WebSocket;
  /** Stops reading the socket: only TCP and the qmux credit push back. */
  pause(): void;
  close(): void;
}

/** Connects to `ws://127.0.0.1:port/path`, subscribes to the track and reads what comes. */
export async function rawSubscriber(port: number, options: RawSubscriberOptions): Promise<RawSubscriber> {
  const { subprotocol, qmux, version } = RAW_VERSIONS[options.at ?? "lite-04"];
  // autoConsume: every byte read returns credit at once (a reading subscriber); the initial
  // credit in `params` is what a starved one that never reads gets.
  const framing = createFraming(qmux, { role: "client", autoConsume: true, ...(options.params === undefined ? {} : { params: options.params }) });
  const readers = new Map<StreamId, LiteStreamReader>();
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  const onEvent = (e: FramingEvent): void => {
    if (e.kind === "ready") markReady();
    else if (e.kind === "stream-opened" && !e.bidi) readers.set(e.streamId, new LiteStreamReader({ role: "accepted-uni", version }));
    else if (e.kind === "stream-reset") {
      // A group the relay gave up on (a slow subscriber's oldest, by the moq-lite rules).
      if (readers.delete(e.streamId)) options.onReset?.(e.code);
    } else if (e.kind === "stream-data") {
      const reader = readers.get(e.streamId);
      if (reader === undefined) return;
      reader.push(e.bytes);
      if (e.fin) reader.end();
      for (const m of reader.drain().messages) {
        if (m.type === "frame") options.onFrame?.(m.payload);
        else if (m.type === "group") options.onGroup?.(m.sequence);
      }
      if (e.fin) readers.delete(e.streamId);
    }
  };
  const { ws, flush } = await framedWebSocket(`ws://127.0.0.1:${String(port)}/${options.path}`, subprotocol, framing, onEvent);
  await ready;
  const writer = new LiteStreamWriter(version);
  if (version !== LITE_04) {
    // lite-05 on: the relay serves requests only after the client's SETUP (a uni stream, then FIN).
    const setup = framing.openStream(false);
    if (!setup.ok) throw new Error("no stream for SETUP");
    framing.write(
      setup.streamId,
      writer.encodeAll([
        { type: "stream_header", kind: "setup" },
        { type: "setup", probe: "none", path: undefined, role: "subscriber", cost: undefined, origin: undefined, unknown: [] },
      ]),
      true,
    );
  }
  const open = framing.openStream(true);
  if (!open.ok) throw new Error("no stream for SUBSCRIBE");
  framing.write(
    open.streamId,
    writer.encodeAll([
      { type: "stream_header", kind: "subscribe" },
      { type: "subscribe", id: 0, broadcast: options.broadcast, track: options.track, priority: 0, ordered: true, maxLatency: 0, startGroup: undefined, endGroup: undefined },
    ]),
  );
  flush();
  return {
    ws,
    pause: () => {
      ws.pause();
    },
    close: () => {
      ws.terminate();
    },
  };
}
