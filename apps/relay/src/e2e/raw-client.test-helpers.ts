import { connect as connectTcp, type Socket } from "node:net";
import { LITE_02, LiteStreamWriter } from "@handoff/moq-resume/lite";
import WebSocket from "ws";
import { createFraming, type FramingEvent, type FramingSession, type StreamId, type TransportParams } from "@handoff/qmux";
import { until, within } from "./harness.test-helpers.js";

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

/** A hand-driven qmux-00 client over raw TCP (the relay's `--tcp-port`). */
export interface RawTcpClient {
  readonly socket: Socket;
  readonly framing: FramingSession;
  /** Every framing event but sends, in order. */
  readonly events: FramingEvent[];
  /** Puts what the framing queued on the socket. */
  flush(): void;
  /** Every byte received on stream `id`, in order. */
  received(id: StreamId): Uint8Array[];
}

/**
 * Connects a raw qmux-00 client over TCP agreeing `alpn` in the qmux parameters (closed by
 * `cleanup`) and waits for the relay's transport parameters. `params` sets what it advertises
 * (a small window makes a peer the relay can only send a little to before it reads).
 */
export async function rawTcpClient(
  cleanup: (() => unknown)[],
  port: number,
  alpn = "moq-lite-04",
  params: Partial<TransportParams> = {},
): Promise<RawTcpClient> {
  const socket = connectTcp(port, "127.0.0.1");
  socket.setNoDelay(true);
  const opened = new Promise((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  const framing = createFraming("qmux-00", { role: "client", carrier: "stream", autoConsume: true, params: { applicationProtocols: [alpn], ...params } });
  const events: FramingEvent[] = [];
  const data = new Map<StreamId, Uint8Array[]>();
  const flush = (): void => {
    for (let batch = framing.poll(); batch.length > 0; batch = framing.poll()) {
      for (const e of batch) {
        if (e.kind === "send") {
          if (!socket.destroyed) socket.write(e.bytes);
          continue;
        }
        events.push(e);
        if (e.kind === "stream-data") data.set(e.streamId, [...(data.get(e.streamId) ?? []), e.bytes]);
      }
    }
  };
  socket.on("data", (chunk: Buffer) => {
    framing.receive(new Uint8Array(chunk));
    flush();
  });
  socket.on("error", () => {
    socket.destroy();
  });
  cleanup.push(() => {
    socket.destroy();
  });
  await within(opened, 3000, "raw tcp connect");
  flush();
  await until(() => events.some((e) => e.kind === "ready"), 3000, "relay transport parameters");
  return { socket, framing, events, flush, received: (id) => data.get(id) ?? [] };
}
