/**
 * A bare MQTT 3.1.1 client over one TCP socket, framed by our own codec: just enough to connect,
 * subscribe, publish pre-encoded packets and acknowledge QoS 1 deliveries. No library client sits
 * between the generator and the socket, so its cost stays small and visible.
 * @module
 */
import { connect, type Socket } from "node:net";
import { PacketDecoder, encodePacket, type Packet } from "@handoff/mqtt-router/codec";

/** Encodes a packet the bench builds itself; failing here is a bug in the bench. */
export function encodeV4(packet: Packet): Uint8Array {
  const r = encodePacket(packet, { protocolVersion: 4 });
  if (!r.ok) throw r.error;
  return r.bytes;
}

/** The 2-byte DISCONNECT of 3.1.1. */
const DISCONNECT = Uint8Array.of(0xe0, 0x00);

/** What a connected client does with what it receives. */
export interface ClientEvents {
  /** A PUBLISH arrived (already acknowledged when QoS 1). */
  onPublish?: (payload: Uint8Array) => void;
  /** The broker acknowledged one of our QoS 1 PUBLISHes. */
  onPuback?: (packetId: number) => void;
}

/** One connected bench client. */
export class BenchClient {
  readonly socket: Socket;
  readonly #decoder = new PacketDecoder({ protocolVersion: 4 });
  #events: ClientEvents = {};
  #suback: (() => void) | undefined;
  #failure: string | undefined;

  private constructor(socket: Socket) {
    this.socket = socket;
  }

  /** Why the connection ended early (protocol error, socket error), if it did. */
  get failure(): string | undefined {
    return this.#failure;
  }

  /** Connects, sends CONNECT (clean session, no keep-alive) and waits for a successful CONNACK. */
  static open(port: number, clientId: string, timeoutMs: number): Promise<BenchClient> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: "127.0.0.1", port, noDelay: true });
      const client = new BenchClient(socket);
      let settled = false;
      const fail = (why: string): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        socket.destroy();
        reject(new Error(why));
      };
      const timer = setTimeout(() => {
        fail(`no CONNACK within ${timeoutMs} ms`);
      }, timeoutMs);
      socket.once("connect", () => {
        socket.write(encodeV4({ type: "connect", protocolVersion: 4, cleanStart: true, keepAlive: 0, clientId, properties: {} }));
      });
      socket.on("error", (err) => {
        client.#failure ??= err.message;
        fail(err.message);
      });
      socket.on("close", () => {
        client.#failure ??= "closed by the broker";
        fail("closed before CONNACK");
      });
      client.#events = {};
      socket.on("data", (chunk: Buffer) => {
        client.#receive(chunk, (packet) => {
          if (packet.type !== "connack" || settled) return;
          if (packet.reasonCode !== 0) {
            fail(`CONNACK return code ${packet.reasonCode}`);
            return;
          }
          settled = true;
          clearTimeout(timer);
          resolve(client);
        });
      });
    });
  }

  /** Sets what happens on PUBLISH and PUBACK from now on. */
  listen(events: ClientEvents): void {
    this.#events = events;
  }

  /** Subscribes to one filter and waits for the SUBACK (rejecting a refused subscription). */
  subscribe(topicFilter: string, qos: 0 | 1, timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#suback = undefined;
        reject(new Error(`no SUBACK within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#suback = () => {
        clearTimeout(timer);
        resolve();
      };
      this.socket.write(
        encodeV4({
          type: "subscribe",
          packetId: 1,
          subscriptions: [{ topicFilter, qos, noLocal: false, retainAsPublished: false, retainHandling: 0 }],
          properties: {},
        }),
      );
    });
  }

  /** Sends DISCONNECT and half-closes; the caller destroys stragglers. */
  end(): void {
    if (this.socket.destroyed) return;
    this.socket.end(DISCONNECT);
  }

  #receive(chunk: Buffer, onControl: (packet: Packet) => void): void {
    this.#decoder.push(chunk);
    // QoS 1 deliveries of one chunk are acknowledged with a single write.
    let acks: number[] | undefined;
    for (let r = this.#decoder.next(); r !== undefined; r = this.#decoder.next()) {
      if (!r.ok) {
        this.#failure ??= `decode error: ${r.error.message}`;
        this.socket.destroy();
        return;
      }
      const p = r.packet;
      if (p.type === "publish") {
        if (p.qos !== 0) (acks ??= []).push(p.packetId);
        this.#events.onPublish?.(p.payload);
      } else if (p.type === "puback") {
        this.#events.onPuback?.(p.packetId);
      } else if (p.type === "suback") {
        const done = this.#suback;
        this.#suback = undefined;
        done?.();
      } else {
        onControl(p);
      }
      // A decode error above leaves the loop; a failure result repeats forever, so stop on it.
      if (this.socket.destroyed) return;
    }
    if (acks !== undefined) {
      const out = Buffer.allocUnsafe(acks.length * 4);
      for (let i = 0; i < acks.length; i++) {
        const id = acks[i] ?? 0;
        out[i * 4] = 0x40;
        out[i * 4 + 1] = 0x02;
        out[i * 4 + 2] = id >>> 8;
        out[i * 4 + 3] = id & 0xff;
      }
      this.socket.write(out);
    }
  }
}

/** Ends every client, then destroys whatever has not closed within `graceMs`. */
export async function closeAll(clients: readonly BenchClient[], graceMs: number): Promise<void> {
  const open = clients.filter((c) => !c.socket.destroyed);
  for (const c of open) c.end();
  await Promise.race([
    Promise.all(open.map((c) => new Promise<void>((resolve) => c.socket.once("close", () => { resolve(); })))),
    new Promise<void>((resolve) => setTimeout(resolve, graceMs)),
  ]);
  for (const c of open) c.socket.destroy();
}

/** Opens `count` clients, `batch` handshakes at a time; stops at the first failure. */
export async function openMany(
  port: number,
  count: number,
  idPrefix: string,
  batch: number,
  timeoutMs: number,
): Promise<{ readonly clients: BenchClient[]; readonly error: string | undefined }> {
  const clients: BenchClient[] = [];
  for (let start = 0; start < count; start += batch) {
    const n = Math.min(batch, count - start);
    const settled = await Promise.allSettled(
      Array.from({ length: n }, (_, i) => BenchClient.open(port, `${idPrefix}${start + i}`, timeoutMs)),
    );
    for (const s of settled) if (s.status === "fulfilled") clients.push(s.value);
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
    if (failed !== undefined) {
      return { clients, error: failed.reason instanceof Error ? failed.reason.message : String(failed.reason) };
    }
  }
  return { clients, error: undefined };
}
