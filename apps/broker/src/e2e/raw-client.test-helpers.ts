// Test-only: an MQTT 5 client over a raw socket (TCP or WebSocket) that sends whatever bytes an
// attacker would, and decodes what the broker answers.
import { connect as tcpConnect, type Socket } from "node:net";
import { waitLimit } from "@handoff/test-kit";
import { encodePacket, PacketDecoder, type Packet } from "@handoff/mqtt-router/codec";
import { WebSocket } from "ws";

/** A raw connection to the broker. */
export interface RawClient {
  /** Sends a packet, encoded for MQTT 5. */
  send(packet: Packet): void;
  /** Sends raw bytes. */
  sendBytes(bytes: Uint8Array): void;
  /** Every packet received so far (the same array every call). */
  readonly received: Packet[];
  /** Resolves once the connection is closed (by either side). */
  readonly closed: Promise<void>;
  readonly isClosed: boolean;
  /** Waits for the first received packet matching `match`, or fails after `ms`. */
  next(match: (p: Packet) => boolean, ms?: number): Promise<Packet>;
  end(): void;
}

/** Encodes `packet` for MQTT 5 (throws if it cannot be encoded). */
export function bytesOf(packet: Packet): Uint8Array {
  const result = encodePacket(packet, { protocolVersion: 5 });
  if (!result.ok) throw result.error;
  return result.bytes;
}

/** A CONNECT with a clean start and a 60 s keep alive. */
export function connectPacket(clientId: string, extra: Partial<Extract<Packet, { type: "connect" }>> = {}): Packet {
  return { type: "connect", protocolVersion: 5, cleanStart: true, keepAlive: 60, clientId, properties: {}, ...extra };
}

function client(write: (b: Uint8Array) => void, end: () => void): { raw: RawClient; data: (b: Uint8Array) => void; close: () => void } {
  const decoder = new PacketDecoder({ protocolVersion: 5 });
  const received: Packet[] = [];
  const waiters = new Set<() => void>();
  let isClosed = false;
  let closeNow: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => {
    closeNow = resolve;
  });
  const raw: RawClient = {
    send: (p) => {
      write(bytesOf(p));
    },
    sendBytes: write,
    received,
    closed,
    get isClosed() {
      return isClosed;
    },
    next: (match, ms = 5000) =>
      new Promise<Packet>((resolve, reject) => {
        const check = (): void => {
          const found = received.find(match);
          if (found !== undefined) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(found);
          } else if (isClosed) {
            waiters.delete(check);
            clearTimeout(timer);
            reject(new Error(`closed before the packet came; got ${received.map((r) => r.type).join(",")}`));
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error("timed out waiting for a packet"));
        }, waitLimit(ms));
        waiters.add(check);
        check();
      }),
    end,
  };
  return {
    raw,
    data: (b) => {
      decoder.push(b);
      for (let item = decoder.next(); item?.ok === true; item = decoder.next()) received.push(item.packet);
      for (const w of [...waiters]) w();
    },
    close: () => {
      isClosed = true;
      closeNow();
      for (const w of [...waiters]) w();
    },
  };
}

/** Opens a raw TCP connection (nothing sent yet). */
export async function rawTcp(port: number): Promise<RawClient> {
  const socket: Socket = tcpConnect(port, "127.0.0.1");
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  const c = client(
    (b) => socket.write(b),
    () => socket.destroy(),
  );
  socket.on("data", c.data);
  socket.on("error", () => undefined);
  socket.on("close", c.close);
  return c.raw;
}

/** Opens a raw WebSocket connection to `/mqtt` (nothing sent yet). */
export async function rawWs(port: number): Promise<RawClient> {
  const ws = new WebSocket(`ws://127.0.0.1:${String(port)}/mqtt`, "mqtt");
  await new Promise<void>((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("error", reject);
  });
  const c = client(
    (b) => {
      ws.send(b);
    },
    () => {
      ws.terminate();
    },
  );
  ws.on("message", (data: Buffer) => {
    c.data(data);
  });
  ws.on("error", () => undefined);
  ws.on("close", c.close);
  return c.raw;
}
