import { LITE_02, LiteStreamWriter } from "@handoff/moq-resume/lite";
import WebSocket from "ws";
import { createFraming, type FramingEvent, type FramingSession } from "../transport/index.js";
import { until, within } from "./harness.js";

/** A hand-driven client: the test writes whatever bytes it likes through the transport module. */
export interface RawClient {
  readonly ws: WebSocket;
  readonly framing: FramingSession;
  /** Every framing event but sends, in order. */
  readonly events: FramingEvent[];
  /** Puts what the framing queued on the socket. */
  flush(): void;
}

/** Connects a raw client speaking the legacy "webtransport" framing at `path` (closed by `cleanup`). */
export async function rawClient(cleanup: (() => unknown)[], port: number, path = "anon"): Promise<RawClient> {
  const ws = new WebSocket(`ws://127.0.0.1:${String(port)}/${path}`, ["webtransport"]);
  const opened = new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  const framing = createFraming("webtransport", { role: "client" });
  const events: FramingEvent[] = [];
  const flush = (): void => {
    for (const e of framing.poll()) {
      if (e.kind === "send") ws.send(e.bytes);
      else events.push(e);
    }
  };
  ws.on("message", (data: Buffer) => {
    framing.receive(new Uint8Array(data));
    flush();
  });
  cleanup.push(() => {
    ws.terminate();
  });
  await within(opened, 3000, "raw open");
  flush();
  return { ws, framing, events, flush };
}

/** Runs the lite-02 SETUP exchange on a raw client and waits for the relay's answer. */
export async function rawSetup(c: RawClient): Promise<void> {
  const open = c.framing.openStream(true);
  if (!open.ok) throw new Error("no stream");
  c.framing.write(open.streamId, new LiteStreamWriter(LITE_02).encode({ type: "client_setup", versions: [LITE_02], parameters: [] }));
  c.flush();
  await until(() => c.events.some((e) => e.kind === "stream-data" && e.streamId === open.streamId), 2000, "server setup");
}
