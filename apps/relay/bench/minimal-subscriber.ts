/**
 * The bench's minimal subscriber at any moq-lite version the codec speaks from lite-04 on: the
 * relay's own framing and codec over one WebSocket, nothing else, so a thousand of them cost the
 * client core little and the relay's cost shows. The lite-04 one in src/e2e/raw-subscriber.ts is
 * the same shape fixed to qmux-00 and lite-04; this one takes the subprotocol.
 * @module
 */
import { LITE_04, LITE_05, LITE_06, LiteStreamReader, LiteStreamWriter, type LiteVersion } from "@handoff/moq-resume/lite";
import WebSocket from "ws";
import { createFraming, type StreamId } from "@handoff/qmux";

/** The versions a minimal subscriber runs at, with the WebSocket subprotocol that selects each. */
export const MINIMAL_VERSIONS = {
  "lite-04": { subprotocol: "qmux-00.moq-lite-04", qmux: "qmux-00", version: LITE_04 },
  "lite-05": { subprotocol: "qmux-02.moq-lite-05", qmux: "qmux-02", version: LITE_05 },
  "lite-06": { subprotocol: "qmux-02.moq-lite-06", qmux: "qmux-02", version: LITE_06 },
} as const satisfies Record<string, { subprotocol: string; qmux: "qmux-00" | "qmux-02"; version: LiteVersion }>;

/** A version key of {@link MINIMAL_VERSIONS}. */
export type MinimalVersion = keyof typeof MINIMAL_VERSIONS;

/** Connects to `ws://127.0.0.1:port/path`, subscribes to `broadcast`/`track` and calls `onFrame` with each payload, `onReset` for each group stream the relay resets. */
export async function minimalSubscriber(
  port: number,
  at: MinimalVersion,
  target: { readonly path: string; readonly broadcast: string; readonly track: string },
  onFrame: (payload: Uint8Array) => void,
  onReset: () => void = () => undefined,
): Promise<WebSocket> {
  const { subprotocol, qmux, version } = MINIMAL_VERSIONS[at];
  const ws = new WebSocket(`ws://127.0.0.1:${String(port)}/${target.path}`, [subprotocol]);
  const opened = new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  // autoConsume: every byte read returns its credit at once, as a subscriber that keeps up does.
  const framing = createFraming(qmux, { role: "client", autoConsume: true });
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
        } else if (e.kind === "stream-opened" && !e.bidi) readers.set(e.streamId, new LiteStreamReader({ role: "accepted-uni", version }));
        else if (e.kind === "stream-reset") {
          // A group the relay gave up on (a slow subscriber's oldest, by the moq-lite rules).
          if (readers.delete(e.streamId)) onReset();
        }
        else if (e.kind === "stream-data") {
          const reader = readers.get(e.streamId);
          if (reader === undefined) continue;
          reader.push(e.bytes);
          if (e.fin) reader.end();
          for (const m of reader.drain().messages) if (m.type === "frame") onFrame(m.payload);
          if (e.fin) readers.delete(e.streamId);
        }
      }
    }
  };
  // Listen before the open resolves: the relay's transport parameters may come right after it.
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
      { type: "subscribe", id: 0, broadcast: target.broadcast, track: target.track, priority: 0, ordered: true, maxLatency: 0, startGroup: undefined, endGroup: undefined },
    ]),
  );
  flush();
  return ws;
}
