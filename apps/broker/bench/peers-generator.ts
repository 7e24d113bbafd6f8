/**
 * The peers bench's load generator, one child process per role so it never shares an event loop
 * with the broker (or with the other role). Started by peers.ts with a JSON job in argv[2]; it
 * connects, reports `{ ready: true }` over IPC, starts on `{ go: true }`, counts only inside the
 * measured window and reports `{ result }` at the end.
 *
 * - `subscribers`: `count` clients subscribed to `filter`; each QoS 1 delivery is acknowledged at
 *   once (no Receive Maximum announced). Counts deliveries and their latency (payload stamp).
 * - `publishers`: `count` clients publishing 64-byte payloads to `topic(i)`; QoS 1 keeps at most
 *   the broker's Receive Maximum (capped at `window`) unacknowledged; QoS 0 sends `window` per
 *   turn. With `ratePerSec`, each publisher sends at that rate instead of flooding.
 * @module
 */
import { connect, type Socket } from "node:net";
import { performance } from "node:perf_hooks";
import { PacketDecoder, encodePacket, preparePublish, type Packet, type ProtocolVersion } from "@handoff/mqtt-router/codec";
import { LatencyReservoir } from "./latency.js";

/** What one generator child does. */
export type GeneratorJob =
  | {
      readonly role: "subscribers";
      readonly port: number;
      readonly version: ProtocolVersion;
      readonly count: number;
      readonly filter: string;
      readonly qos: 0 | 1;
      /**
       * Seconds: sessions that outlive their connection (3.1.1: CleanSession 0), which a durable
       * broker has to keep on disk. Absent: sessions that end with it, as the other roles'.
       */
      readonly sessionExpiry?: number;
      readonly warmupMs: number;
      readonly measureMs: number;
    }
  | {
      readonly role: "publishers";
      readonly port: number;
      readonly version: ProtocolVersion;
      readonly count: number;
      /** Topic of publisher i is `${topicPrefix}${i}${topicSuffix}`; with `sameTopic`, all share `${topicPrefix}`. */
      readonly topicPrefix: string;
      readonly topicSuffix: string;
      readonly sameTopic: boolean;
      readonly qos: 0 | 1;
      readonly window: number;
      readonly ratePerSec: number | undefined;
      readonly warmupMs: number;
      readonly measureMs: number;
    };

/** What a generator child reports. */
export interface GeneratorResult {
  /** Deliveries (subscribers) or PUBLISHes sent (publishers) in the window. */
  readonly messages: number;
  /** PUBACKs received in the window (publishers, QoS 1). */
  readonly acked: number;
  readonly seconds: number;
  readonly p50Ms: number | undefined;
  readonly p99Ms: number | undefined;
  /** Clients the broker closed during the run. */
  readonly lost: number;
}

const PAYLOAD = 64;
const job = JSON.parse(process.argv[2] ?? "{}") as GeneratorJob;

function encode(packet: Packet): Uint8Array {
  const r = encodePacket(packet, { protocolVersion: job.version });
  if (!r.ok) throw r.error;
  return r.bytes;
}

interface Client {
  readonly socket: Socket;
  /** The broker's Receive Maximum (65535 when it announced none). */
  receiveMaximum: number;
}

function open(clientId: string, onPacket: (p: Packet, c: Client) => void, sessionExpiry?: number): Promise<Client> {
  // Each run's client ids are new, so a session is always fresh; a persistent one in 3.1.1 is
  // CleanSession 0, in MQTT 5 a Session Expiry Interval.
  const session =
    sessionExpiry === undefined ? { cleanStart: true, properties: {} } : job.version === 5 ? { cleanStart: true, properties: { sessionExpiryInterval: sessionExpiry } } : { cleanStart: false, properties: {} };
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port: job.port, noDelay: true });
    const client: Client = { socket, receiveMaximum: 65_535 };
    const decoder = new PacketDecoder({ protocolVersion: job.version });
    socket.once("error", reject);
    socket.on("connect", () => {
      socket.write(encode({ type: "connect", protocolVersion: job.version, keepAlive: 0, clientId, ...session }));
    });
    socket.on("data", (chunk: Buffer) => {
      decoder.push(chunk);
      // What the packets of one chunk answer (PUBACKs, refills) leaves in one write, as a real
      // client's would: a write call per PUBACK cost the generator most of its core.
      socket.cork();
      for (let r = decoder.next(); r !== undefined; r = decoder.next()) {
        if (!r.ok) {
          socket.destroy();
          return;
        }
        const p = r.packet;
        if (p.type === "connack") {
          if (p.reasonCode !== 0) reject(new Error(`CONNACK ${String(p.reasonCode)}`));
          client.receiveMaximum = p.properties.receiveMaximum ?? 65_535;
          resolve(client);
        } else onPacket(p, client);
      }
      socket.uncork();
    });
  });
}

const now = (): number => performance.timeOrigin + performance.now();
let measuring = false;
/** Set at the end of the measured window: publishers send nothing more. */
let stopped = false;
let messages = 0;
let acked = 0;
const latency = new LatencyReservoir();
const clients: Client[] = [];

async function subscribers(j: Extract<GeneratorJob, { role: "subscribers" }>): Promise<void> {
  for (let i = 0; i < j.count; i++) {
    const c = await open(`peers-sub-${String(process.pid)}-${String(i)}`, (p, client) => {
      if (p.type !== "publish") return;
      if (measuring) {
        messages++;
        const view = new DataView(p.payload.buffer, p.payload.byteOffset, p.payload.byteLength);
        if (p.payload.byteLength >= 8) latency.add(now() - view.getFloat64(0));
      }
      if (p.qos === 1) client.socket.write(Uint8Array.of(0x40, 2, p.packetId >> 8, p.packetId & 0xff));
    }, j.sessionExpiry);
    clients.push(c);
    await new Promise<void>((resolve) => {
      c.socket.on("data", function wait() {
        c.socket.off("data", wait);
        resolve();
      });
      c.socket.write(encode({ type: "subscribe", packetId: 1, subscriptions: [{ topicFilter: j.filter, qos: j.qos, noLocal: false, retainAsPublished: false, retainHandling: 0 }], properties: {} }));
    });
  }
}

async function publishers(j: Extract<GeneratorJob, { role: "publishers" }>): Promise<() => void> {
  const senders: (() => void)[] = [];
  for (let i = 0; i < j.count; i++) {
    const topic = j.sameTopic ? j.topicPrefix : `${j.topicPrefix}${String(i)}${j.topicSuffix}`;
    const payload = new Uint8Array(PAYLOAD);
    const prepared = preparePublish(
      j.qos === 0
        ? { type: "publish", qos: 0, retain: false, dup: false, topic, payload, properties: {} }
        : { type: "publish", qos: 1, retain: false, dup: false, topic, packetId: 1, payload, properties: {} },
      j.version,
    );
    if (!prepared.ok) throw prepared.error;
    const t = prepared.template;
    const at = t.bytes.length - PAYLOAD;
    let packetId = 0;
    let outstanding = 0;
    let window = j.window;
    const send = (c: Client, n: number): void => {
      if (n <= 0 || c.socket.destroyed) return;
      const buf = Buffer.allocUnsafe(t.bytes.length * n);
      const stamp = now();
      for (let k = 0; k < n; k++) {
        const off = k * t.bytes.length;
        if (t.qos === 0) buf.set(t.bytes, off);
        else {
          packetId = packetId === 0xffff ? 1 : packetId + 1;
          buf.set(t.withPacketId(packetId), off);
        }
        buf.writeDoubleBE(stamp, off + at);
      }
      if (j.qos === 1) outstanding += n;
      if (measuring) messages += n;
      c.socket.write(buf);
    };
    const c = await open(`peers-pub-${String(process.pid)}-${String(i)}`, (p, client) => {
      if (p.type !== "puback") return;
      outstanding--;
      if (measuring) acked++;
      // Refill in batches once half the window is back, unless paced by a rate or done.
      if (j.ratePerSec === undefined && !stopped && outstanding <= window / 2) send(client, window - outstanding);
    });
    clients.push(c);
    window = Math.min(j.window, c.receiveMaximum);
    if (j.ratePerSec === undefined && j.qos === 1) senders.push(() => { send(c, window); });
    else if (j.ratePerSec === undefined) {
      // QoS 0 flood: a batch per turn while the socket takes it.
      const pump = (): void => {
        if (c.socket.destroyed || stopped) return;
        if (c.socket.writableLength < 64 * 1024) send(c, window);
        setImmediate(pump);
      };
      senders.push(pump);
    } else {
      const rate = j.ratePerSec;
      senders.push(() => {
        const started = performance.now();
        let sent = 0;
        const timer = setInterval(() => {
          const due = Math.floor(((performance.now() - started) / 1000) * rate) - sent;
          // Open loop, but never more than the broker's Receive Maximum unacknowledged.
          const n = j.qos === 1 ? Math.min(due, window - outstanding) : due;
          if (n > 0) {
            send(c, n);
            sent += n;
          }
        }, 5);
        stoppers.push(() => { clearInterval(timer); });
      });
    }
  }
  return () => {
    for (const s of senders) s();
  };
}

const stoppers: (() => void)[] = [];
const ready = job.role === "subscribers" ? subscribers(job).then(() => () => undefined) : publishers(job);
ready.then(
  (start) => {
    process.send?.({ ready: true });
    process.on("message", (m: { go?: boolean; close?: boolean }) => {
      if (m.close === true) {
        for (const c of clients) c.socket.destroy();
        process.exit(0);
      }
      if (m.go !== true) return;
      start();
      setTimeout(() => {
        measuring = true;
        const t0 = performance.now();
        setTimeout(() => {
          measuring = false;
          const seconds = (performance.now() - t0) / 1000;
          const [p50, p99] = latency.quantiles([0.5, 0.99]);
          const result: GeneratorResult = { messages, acked, seconds, p50Ms: p50, p99Ms: p99, lost: clients.filter((c) => c.socket.destroyed).length };
          // Publishing stops; the clients stay connected until the bench says `close`, so what it
          // reads from the broker now (drops) is of a run whose subscribers were all still reading.
          stopped = true;
          for (const s of stoppers) s();
          process.send?.({ result });
        }, job.measureMs);
      }, job.warmupMs);
    });
  },
  (err: unknown) => {
    process.send?.({ error: err instanceof Error ? err.message : String(err) }, () => process.exit(1));
  },
);
process.on("disconnect", () => process.exit(0));
