// In-process bench of the connection handlers with the SQLite store: a QoS 1 fan-out from one
// publisher (64 in flight) to N subscribers over in-memory links, so what it measures is the
// broker's own cost per delivery — encoding, the router, the commit barrier in front of every
// QoS 1/2 copy, group commit — without sockets or a loaded machine's scheduler in the way (CPU
// time per delivery is the steadier figure; throughput is wall time). Run from apps/broker:
//   ../../node_modules/.bin/tsx --conditions=@handoff/source bench/handler-fanout.ts
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { memoryOnlyStore, type RouterStore } from "@handoff/mqtt-router";
import { PacketDecoder, encodePacket, type Packet } from "@handoff/mqtt-router/codec";
import { pino } from "pino";
import { Broker } from "../src/mqtt/broker.js";
import type { Durability } from "../src/mqtt/client-handler.js";
import type { TransportEvents } from "../src/mqtt/transport.js";
import { SqliteStore } from "../src/storage/index.js";
import { printTable } from "./report.js";

const WARMUP_MS = 500;
const MEASURE_MS = 2000;
const WINDOW = 64;

function encode(packet: Packet): Uint8Array {
  const r = encodePacket(packet, { protocolVersion: 5 });
  if (!r.ok) throw r.error;
  return r.bytes;
}

/** A client on an in-memory link: what the broker writes is decoded on the next turn, like a socket's. */
class LinkClient {
  readonly #decoder = new PacketDecoder({ protocolVersion: 5 });
  #inbox: Uint8Array[] = [];
  #scheduled = false;
  events: TransportEvents | undefined;

  constructor(readonly onPacket: (packet: Packet, client: LinkClient) => void) {}

  attach(broker: Broker): void {
    this.events = broker.attach({
      remote: "memory",
      listener: "tcp",
      buffered: 0,
      pauseReading: () => undefined,
      resumeReading: () => undefined,
      write: (bytes) => {
        this.#inbox.push(bytes);
        if (this.#scheduled) return;
        this.#scheduled = true;
        setImmediate(() => {
          this.#scheduled = false;
          for (const chunk of this.#inbox.splice(0)) this.#decoder.push(chunk);
          for (let r = this.#decoder.next(); r !== undefined; r = this.#decoder.next()) {
            if (!r.ok) throw r.error;
            this.onPacket(r.packet, this);
          }
        });
      },
      close: () => undefined,
      destroy: () => undefined,
    });
  }

  send(packet: Packet): void {
    this.events?.data(encode(packet));
  }
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * A store that writes nothing and "commits" once per turn, handing every flush of a turn the same
 * ticket as SqliteStore does: what is left is the handlers' own cost, the barriers included.
 */
class TurnStore {
  #ticket: Promise<void> | undefined;
  commits = 0;

  flush(): Promise<void> {
    this.#ticket ??= new Promise<void>((resolve) => {
      setImmediate(() => {
        this.#ticket = undefined;
        this.commits += 1;
        resolve();
      });
    });
    return this.#ticket;
  }
}

type StoreKind = "sqlite NORMAL" | "no writes";

function openStore(kind: StoreKind, dir: string): { readonly store: RouterStore & Durability; readonly commits: () => number; readonly close: () => Promise<void> } {
  if (kind === "sqlite NORMAL") {
    const sqlite = SqliteStore.open({ dataDir: dir, synchronous: "normal" });
    return { store: sqlite, commits: () => sqlite.stats.commits, close: () => sqlite.close() };
  }
  const turns = new TurnStore();
  return { store: { ...memoryOnlyStore, flush: () => turns.flush() }, commits: () => turns.commits, close: () => Promise.resolve() };
}

interface Result {
  readonly deliveriesPerSec: number;
  readonly cpuUsPerDelivery: number;
  readonly commitsPerSec: number;
}

async function run(kind: StoreKind, subscribers: number): Promise<Result> {
  const dir = mkdtempSync(join(tmpdir(), "handoff-bench-handlers-"));
  const { store, commits, close } = openStore(kind, dir);
  const broker = new Broker({ log: pino({ level: "silent" }), store, tickMs: 3_600_000, router: { queueLimits: { maxCount: 1_000_000, maxBytes: 1 << 30 } } });
  let delivered = 0;
  let stopped = false;
  const clients: LinkClient[] = [];
  const payload = new Uint8Array(64);
  const connect = async (clientId: string, onPacket: (packet: Packet, client: LinkClient) => void): Promise<LinkClient> => {
    const state = { ready: false };
    const client = new LinkClient((packet, c) => {
      if (packet.type === "connack" || packet.type === "suback") state.ready = true;
      else if (!stopped) onPacket(packet, c);
    });
    clients.push(client);
    client.attach(broker);
    client.send({ type: "connect", protocolVersion: 5, cleanStart: true, keepAlive: 0, clientId, properties: {} });
    while (!state.ready) await turn();
    return client;
  };
  try {
    for (let i = 0; i < subscribers; i++) {
      const client = await connect(`sub-${String(i)}`, (packet, c) => {
        if (packet.type !== "publish" || packet.packetId === undefined) return;
        delivered += 1;
        c.send({ type: "puback", packetId: packet.packetId, reasonCode: 0, properties: {} });
      });
      client.send({ type: "subscribe", packetId: 1, subscriptions: [{ topicFilter: "fan/out", qos: 1, noLocal: false, retainAsPublished: false, retainHandling: 0 }], properties: {} });
    }
    await store.flush();
    for (let i = 0; i < 10; i++) await turn();
    let nextId = 1;
    const publish = (c: LinkClient): void => {
      c.send({ type: "publish", topic: "fan/out", qos: 1, retain: false, dup: false, packetId: nextId, payload, properties: {} });
      nextId = (nextId % 65_535) + 1;
    };
    const publisher = await connect("pub", (packet, c) => {
      if (packet.type === "puback") publish(c);
    });
    for (let i = 0; i < WINDOW; i++) publish(publisher);
    await new Promise((resolve) => setTimeout(resolve, WARMUP_MS));
    const commits0 = commits();
    const delivered0 = delivered;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await new Promise((resolve) => setTimeout(resolve, MEASURE_MS));
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const n = delivered - delivered0;
    return { deliveriesPerSec: n / seconds, cpuUsPerDelivery: (cpu.user + cpu.system) / Math.max(1, n), commitsPerSec: (commits() - commits0) / seconds };
  } finally {
    // Traffic stops, every link closes, and what that changes is written before the store closes.
    stopped = true;
    for (let i = 0; i < 10; i++) await turn();
    for (const c of clients) c.events?.closed();
    await store.flush();
    await broker.close(0);
    await close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Prints the fan-out rows. */
export async function benchHandlerFanout(): Promise<void> {
  const rows: string[][] = [["QoS 1 fan-out through the handlers, in-memory links", "store", "deliveries/s", "CPU us/delivery", "commits/s"]];
  for (const kind of ["sqlite NORMAL", "no writes"] as const) {
    for (const subscribers of [10, 100, 1000]) {
      const r = await run(kind, subscribers);
      rows.push([`1 -> ${String(subscribers)}, ${String(WINDOW)} in flight`, kind, Math.round(r.deliveriesPerSec).toLocaleString("en-US"), r.cpuUsPerDelivery.toFixed(2), Math.round(r.commitsPerSec).toLocaleString("en-US")]);
    }
  }
  printTable("handlers: the broker's cost per QoS 1 delivery with the durable store (clients in-process)", rows);
}

if (import.meta.url === `file://${process.argv[1] ?? ""}`) await benchHandlerFanout();
