// Runs fuzz cases against a relay over real sockets: WebSocket with the case's subprotocol, or
// qmux-00 over raw TCP, the client's framing driven as in memory. Test helper.
import { connect as connectTcp, type Socket } from "node:net";
import WebSocket from "ws";
import { createFraming, type StreamId } from "@handoff/qmux";
import type { FuzzCase } from "./arbitraries.test-helpers.js";
import { play, type Player } from "./play.test-helpers.js";

/** The relay's ports. */
export interface Ports {
  readonly http: number;
  readonly tcp: number | undefined;
}

interface Pipe {
  send(bytes: Uint8Array): void;
  close(): void;
  readonly done: Promise<void>;
}

function webSocketPipe(port: number, subprotocol: string, receive: (bytes: Uint8Array) => void): Pipe {
  const ws = new WebSocket(`ws://127.0.0.1:${String(port)}/anon`, [subprotocol]);
  const queued: Uint8Array[] = [];
  ws.on("open", () => {
    for (const bytes of queued.splice(0)) ws.send(bytes);
  });
  ws.on("message", (data: Buffer) => {
    receive(new Uint8Array(data));
  });
  ws.on("error", () => undefined);
  const done = new Promise<void>((resolve) => {
    ws.once("close", () => {
      resolve();
    });
  });
  return {
    send: (bytes) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(bytes);
      else if (ws.readyState === WebSocket.CONNECTING) queued.push(bytes);
    },
    close: () => {
      ws.terminate();
    },
    done,
  };
}

function tcpPipe(port: number, receive: (bytes: Uint8Array) => void): Pipe {
  const socket: Socket = connectTcp(port, "127.0.0.1");
  socket.setNoDelay(true);
  socket.on("data", (chunk: Buffer) => {
    receive(new Uint8Array(chunk));
  });
  socket.on("error", () => undefined);
  const done = new Promise<void>((resolve) => {
    socket.once("close", () => {
      resolve();
    });
  });
  return {
    send: (bytes) => {
      if (!socket.destroyed) socket.write(bytes);
    },
    close: () => {
      socket.destroy();
    },
    done,
  };
}

/**
 * Plays `c` against the relay at `ports` (over raw TCP when `tcp` and the case is qmux-00), then
 * hangs up after `lingerMs` or when the relay closes first.
 */
export async function runOverSocket(ports: Ports, c: FuzzCase, tcp: boolean, lingerMs = 15): Promise<void> {
  const tcpPort = tcp && c.connection.framing === "qmux-00" ? ports.tcp : undefined;
  const overTcp = tcpPort !== undefined;
  const alpn = c.connection.subprotocol.split(".")[1] ?? "";
  const client = overTcp
    ? createFraming("qmux-00", { role: "client", carrier: "stream", autoConsume: true, params: { applicationProtocols: [alpn] } })
    : createFraming(c.connection.framing, { role: "client", autoConsume: true });
  const theirs: StreamId[] = [];
  const ours: StreamId[] = [];
  const receive = (bytes: Uint8Array): void => {
    client.receive(bytes);
    flush();
  };
  const pipe = tcpPort === undefined ? webSocketPipe(ports.http, c.connection.subprotocol, receive) : tcpPipe(tcpPort, receive);
  function flush(): void {
    for (const e of client.poll()) {
      if (e.kind === "send") pipe.send(e.bytes);
      else if (e.kind === "stream-opened" && e.bidi) theirs.push(e.streamId);
    }
  }
  flush();
  const player: Player = {
    client,
    ours,
    theirs,
    flush,
    raw: (bytes) => {
      pipe.send(bytes);
    },
    // Real time passes on its own.
    tick: () => undefined,
  };
  for (const action of c.actions) {
    play(player, action);
    // Let the relay answer before the next step, as a real peer would wait for replies.
    await new Promise((resolve) => setImmediate(resolve));
  }
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([pipe.done, new Promise((resolve) => (timer = setTimeout(resolve, lingerMs)))]);
  clearTimeout(timer);
  pipe.close();
  await pipe.done;
}

/** Sends one HTTP request's bytes to `port`, half-closes, and resolves with the status line (empty if none) once the relay hangs up. */
export async function sendHttp(port: number, bytes: Uint8Array, waitMs: number): Promise<string> {
  const socket = connectTcp(port, "127.0.0.1");
  let text = "";
  socket.on("data", (chunk: Buffer) => {
    if (text.length < 200) text += chunk.toString("latin1");
  });
  socket.on("error", () => undefined);
  const closed = new Promise<void>((resolve) => {
    socket.once("close", () => {
      resolve();
    });
  });
  socket.end(bytes);
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([closed, new Promise((resolve) => (timer = setTimeout(resolve, waitMs)))]);
  clearTimeout(timer);
  socket.destroy();
  await closed;
  const end = text.indexOf("\r\n");
  return end < 0 ? "" : text.slice(0, end);
}
