/**
 * The "null broker": a TCP server inside the generator's own process that does the least an MQTT
 * broker can (CONNACK, SUBACK, PUBACK, forward each PUBLISH's bytes unchanged to every
 * subscriber). Running the scenarios against it shows the generator's own ceiling; since it
 * shares the generator's event loop, that ceiling is a lower bound.
 * @module
 */
import { createServer, type Server, type Socket } from "node:net";

/** Above this many unsent bytes a subscriber misses QoS 0 messages, as real brokers do. */
const QOS0_HIGH_WATER = 1 << 20;

/** A started null broker. */
export interface NullBroker {
  readonly port: number;
  stop(): Promise<void>;
}

/** Splits a byte stream into whole MQTT frames (fixed header + remaining length), nothing more. */
class Framer {
  #pending: Buffer | undefined;

  push(chunk: Buffer, onFrame: (frame: Buffer, bodyStart: number) => void): void {
    const buf = this.#pending === undefined ? chunk : Buffer.concat([this.#pending, chunk]);
    this.#pending = undefined;
    let pos = 0;
    for (;;) {
      let len = 0;
      let mul = 1;
      let i = pos + 1;
      let complete = false;
      for (; i < buf.length && i < pos + 5; i++) {
        const b = buf[i] ?? 0;
        len += (b & 0x7f) * mul;
        mul *= 128;
        if ((b & 0x80) === 0) {
          complete = true;
          i++;
          break;
        }
      }
      if (!complete || i + len > buf.length) break;
      onFrame(buf.subarray(pos, i + len), i - pos);
      pos = i + len;
    }
    if (pos < buf.length) this.#pending = Buffer.from(buf.subarray(pos));
  }
}

/** Starts a null broker on 127.0.0.1, port chosen by the system. */
export async function startNullBroker(): Promise<NullBroker> {
  const subscribers = new Set<Socket>();
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    socket.setNoDelay(true);
    sockets.add(socket);
    const framer = new Framer();
    socket.on("data", (chunk: Buffer) => {
      // Filled by the frame callback below; flushed once per chunk.
      const out = { forward: [] as Buffer[], acks: [] as Buffer[], qos0: true };
      framer.push(chunk, (frame, bodyStart) => {
        const type = (frame[0] ?? 0) >> 4;
        if (type === 3) {
          const qos = ((frame[0] ?? 0) >> 1) & 3;
          if (qos > 0) {
            out.qos0 = false;
            const topicLen = ((frame[bodyStart] ?? 0) << 8) | (frame[bodyStart + 1] ?? 0);
            const idAt = bodyStart + 2 + topicLen;
            out.acks.push(Buffer.from([0x40, 0x02, frame[idAt] ?? 0, frame[idAt + 1] ?? 0]));
          }
          out.forward.push(frame);
        } else if (type === 1) {
          socket.write(Buffer.from([0x20, 0x02, 0x00, 0x00]));
        } else if (type === 8) {
          subscribers.add(socket);
          const granted = (frame[frame.length - 1] ?? 0) & 3;
          socket.write(Buffer.from([0x90, 0x03, frame[bodyStart] ?? 0, frame[bodyStart + 1] ?? 0, granted]));
        } else if (type === 12) {
          socket.write(Buffer.from([0xd0, 0x00]));
        } else if (type === 14) {
          socket.end();
        }
      });
      if (out.acks.length > 0) socket.write(Buffer.concat(out.acks));
      if (out.forward.length > 0) {
        const bytes = Buffer.concat(out.forward);
        for (const sub of subscribers) {
          if (out.qos0 && sub.writableLength > QOS0_HIGH_WATER) continue;
          sub.write(bytes);
        }
      }
    });
    socket.on("error", () => {
      socket.destroy();
    });
    socket.on("close", () => {
      sockets.delete(socket);
      subscribers.delete(socket);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("null broker: no TCP address");
  return {
    port: address.port,
    stop: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => {
          resolve();
        });
      }),
  };
}
