import type { FramingEvent, FramingSession } from "@handoff/qmux";
import WebSocket from "ws";

/** A client WebSocket carrying a qmux framing (test and benchmark helper). */
export interface FramedWebSocket {
  readonly ws: WebSocket;
  /** Drains the framing's events: sends go out on the socket, the rest to `onEvent`. */
  readonly flush: () => void;
}

/**
 * Opens `url` with `subprotocol`, feeds every message to `framing` and drains its events (call
 * `flush` after writing too); resolves once the socket is open and the first drain is done.
 */
export async function framedWebSocket(url: string, subprotocol: string, framing: FramingSession, onEvent: (event: FramingEvent) => void): Promise<FramedWebSocket> {
  const ws = new WebSocket(url, [subprotocol]);
  const opened = new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  const flush = (): void => {
    for (let batch = framing.poll(); batch.length > 0; batch = framing.poll()) {
      for (const e of batch) {
        if (e.kind !== "send") onEvent(e);
        else if (ws.readyState === ws.OPEN) ws.send(e.bytes);
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
  return { ws, flush };
}
