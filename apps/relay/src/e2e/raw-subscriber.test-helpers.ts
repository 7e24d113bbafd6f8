/**
 * A minimal lite-04 subscriber over qmux-00 on a WebSocket, built on the relay's own framing and
 * the codec: far cheaper than @moq/lite, so tests and the benchmark can run hundreds of them and
 * see the relay's cost rather than the client's. Test and benchmark helper.
 */
import { LITE_04, LiteStreamReader, LiteStreamWriter } from "@handoff/moq-resume/lite";
import WebSocket from "ws";
import { createFraming, type StreamId, type TransportParams } from "@handoff/qmux";

/** Options of {@link rawSubscriber}. */
export interface RawSubscriberOptions {
  /** URL path of the connection (its scope). */
  readonly path: string;
  readonly broadcast: string;
  readonly track: string;
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
  const ws = new WebSocket(`ws://127.0.0.1:${String(port)}/${options.path}`, ["qmux-00.moq-lite-04"]);
  const opened = new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  // autoConsume: every byte read returns credit at once (a reading subscriber); the initial
  // credit in `params` is what a starved one that never reads gets.
  const framing = createFraming("qmux-00", { role: "client", autoConsume: true, ...(options.params === undefined ? {} : { params: options.params }) });
  const readers = new Map<StreamId, LiteStreamReader>();
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  const flush = (): void => {
    for (let batch = framing.poll(); batch.length > 0; batch = framing.poll()) {
      for (const e of batch) {
        if (e.kind === "ready") markReady();
        else if (e.kind === "send") {
          if (ws.readyState === ws.OPEN) ws.send(e.bytes);
        } else if (e.kind === "stream-opened" && !e.bidi) readers.set(e.streamId, new LiteStreamReader({ role: "accepted-uni", version: LITE_04 }));
        else if (e.kind === "stream-reset") {
          if (readers.delete(e.streamId)) options.onReset?.(e.code);
        } else if (e.kind === "stream-data") {
          const reader = readers.get(e.streamId);
          if (reader === undefined) continue;
          reader.push(e.bytes);
          if (e.fin) reader.end();
          for (const m of reader.drain().messages) {
            if (m.type === "frame") options.onFrame?.(m.payload);
            else if (m.type === "group") options.onGroup?.(m.sequence);
          }
          if (e.fin) readers.delete(e.streamId);
        }
      }
    }
  };
  // Listen before awaiting the open: the relay's transport parameters may come right after it.
  ws.on("message", (data: Buffer) => {
    framing.receive(new Uint8Array(data));
    flush();
  });
  ws.on("error", () => {
    ws.terminate();
  });
  await opened;
  flush();
  await ready;
  const open = framing.openStream(true);
  if (!open.ok) throw new Error("no stream for SUBSCRIBE");
  framing.write(
    open.streamId,
    new LiteStreamWriter(LITE_04).encodeAll([
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
