// Codec throughput, ours next to mqtt-packet (mqtt.parser() to decode, mqtt.generate() to encode)
// in the same run. Each task handles a batch of packets so per-call overhead is amortised alike.
import * as mqtt from "mqtt-packet";
import { Bench } from "tinybench";
import { PacketDecoder, encodePacket, type Packet, type ProtocolVersion } from "../src/codec/index.js";
import { decodeUtf8, writeUtf8 } from "../src/codec/utf8.js";

const TIME_MS = 300;
const WARMUP_MS = 100;
// The machine is shared and noisy: every task runs in several rounds (ours and theirs
// alternating within each round) and the best round counts.
const ROUNDS = 3;

interface Case {
  readonly name: string;
  readonly version: ProtocolVersion;
  readonly packet: Packet;
  readonly theirs: mqtt.Packet;
  /** Packets per task iteration. */
  readonly batch: number;
}

function encodeOrThrow(p: Packet, protocolVersion: ProtocolVersion): Uint8Array {
  const r = encodePacket(p, { protocolVersion });
  if (!r.ok) throw r.error;
  return r.bytes;
}

const topic = "sensors/room1/t1"; // 16 bytes
const small = new Uint8Array(32).fill(0x2a);
const large = new Uint8Array(64 * 1024).fill(0x2b);

function publishCase(name: string, version: ProtocolVersion, payload: Uint8Array, batch: number): Case {
  return {
    name,
    version,
    batch,
    packet: { type: "publish", qos: 1, retain: false, dup: false, topic, packetId: 42, payload, properties: {} },
    theirs: { cmd: "publish", qos: 1, retain: false, dup: false, topic, messageId: 42, payload: Buffer.from(payload) },
  };
}

const filters = ["sensors/+/temperature", "alerts/#", "devices/abc123/cmd", "$SYS/broker/load/#"];
const cases: readonly Case[] = [
  publishCase("small PUBLISH v5", 5, small, 1000),
  publishCase("small PUBLISH 3.1.1", 4, small, 1000),
  publishCase("64 KiB PUBLISH v5", 5, large, 16),
  {
    name: "SUBSCRIBE x4 v5",
    version: 5,
    batch: 1000,
    packet: {
      type: "subscribe",
      packetId: 7,
      subscriptions: filters.map((topicFilter) => ({ topicFilter, qos: 1, noLocal: false, retainAsPublished: false, retainHandling: 0 })),
      properties: {},
    },
    theirs: {
      cmd: "subscribe",
      messageId: 7,
      subscriptions: filters.map((t) => ({ topic: t, qos: 1, nl: false, rap: false, rh: 0 })),
    },
  },
];

interface Row {
  readonly task: string;
  readonly "ours pkt/s": string;
  readonly "ours MB/s": string;
  readonly "mqtt-packet pkt/s": string;
  readonly "mqtt-packet MB/s": string;
  readonly "ours/theirs": string;
}

function periodOf(bench: Bench, name: string): number {
  const task = bench.getTask(name);
  const result = task?.result;
  if (result?.state !== "completed") throw new Error(`benchmark ${name} did not complete`);
  return result.period; // ms per iteration
}

const fmt = (n: number): string => (n >= 100 ? Math.round(n).toLocaleString("en-US") : n.toFixed(1));

/** Runs `tasks` in ROUNDS rounds; returns each task's best period (ms per iteration). */
async function bestPeriods(tasks: readonly (readonly [string, () => void])[]): Promise<Map<string, number>> {
  const best = new Map<string, number>();
  for (let round = 0; round < ROUNDS; round++) {
    const bench = new Bench({ time: TIME_MS, warmupTime: WARMUP_MS });
    for (const [name, fn] of tasks) bench.add(name, fn);
    await bench.run();
    for (const [name] of tasks) best.set(name, Math.min(best.get(name) ?? Infinity, periodOf(bench, name)));
  }
  return best;
}

/** Runs the codec benchmarks and prints one table. */
export async function runCodecBench(): Promise<void> {
  const tasks: (readonly [string, () => void])[] = [];
  const bench = { add: (name: string, fn: () => void): void => void tasks.push([name, fn]) };
  const sizes = new Map<string, { packets: number; bytes: number }>();

  for (const c of cases) {
    const one = encodeOrThrow(c.packet, c.version);
    const theirsOne = mqtt.generate(c.theirs, { protocolVersion: c.version });
    if (Buffer.compare(Buffer.from(one), theirsOne) !== 0) throw new Error(`${c.name}: encodings differ`);
    const stream = Buffer.alloc(one.length * c.batch);
    for (let i = 0; i < c.batch; i++) stream.set(one, i * one.length);
    const bytes = stream.length;

    let sink = 0;
    const decodeOurs = `${c.name} decode ours`;
    const decodeTheirs = `${c.name} decode theirs`;
    bench.add(decodeOurs, () => {
      const d = new PacketDecoder({ protocolVersion: c.version });
      d.push(stream);
      for (let item = d.next(); item !== undefined; item = d.next()) {
        if (!item.ok) throw item.error;
        sink++;
      }
    });
    bench.add(decodeTheirs, () => {
      const parser = mqtt.parser({ protocolVersion: c.version });
      parser.on("packet", () => {
        sink++;
      });
      parser.parse(stream);
    });
    const encodeOurs = `${c.name} encode ours`;
    const encodeTheirs = `${c.name} encode theirs`;
    bench.add(encodeOurs, () => {
      for (let i = 0; i < c.batch; i++) sink += encodeOrThrow(c.packet, c.version).length;
    });
    bench.add(encodeTheirs, () => {
      for (let i = 0; i < c.batch; i++) sink += mqtt.generate(c.theirs, { protocolVersion: c.version }).length;
    });
    for (const n of [decodeOurs, decodeTheirs, encodeOurs, encodeTheirs]) sizes.set(n, { packets: c.batch, bytes });
    if (sink < 0) console.log(sink);
  }

  const periods = await bestPeriods(tasks);
  const period = (name: string): number => periods.get(name) ?? Number.NaN;

  const rows: Row[] = [];
  for (const c of cases) {
    for (const op of ["decode", "encode"] as const) {
      const ours = period(`${c.name} ${op} ours`);
      const theirs = period(`${c.name} ${op} theirs`);
      const size = sizes.get(`${c.name} ${op} ours`) ?? { packets: 0, bytes: 0 };
      const perSecond = (period: number, n: number): number => (n * 1000) / period;
      rows.push({
        task: `${c.name} ${op}`,
        "ours pkt/s": fmt(perSecond(ours, size.packets)),
        "ours MB/s": fmt(perSecond(ours, size.bytes) / 1e6),
        "mqtt-packet pkt/s": fmt(perSecond(theirs, size.packets)),
        "mqtt-packet MB/s": fmt(perSecond(theirs, size.bytes) / 1e6),
        "ours/theirs": `${(theirs / ours).toFixed(2)}x`,
      });
    }
  }
  console.log(`MQTT codec throughput (ours vs mqtt-packet 9.0.2, same run, best of ${ROUNDS} rounds)`);
  console.table(rows);
}

/**
 * Short ASCII topic strings: decoding with our path (zero-byte scan + fatal TextDecoder) vs a
 * hand-rolled ASCII path (scan + String.fromCharCode), and encoding with a char-code loop (ours,
 * for ASCII) vs TextEncoder.encodeInto. These figures chose the paths in src/codec/utf8.ts.
 */
export async function runUtf8Bench(): Promise<void> {
  const bytes = new TextEncoder().encode(topic);
  const out = new Uint8Array(64);
  const encoder = new TextEncoder();
  let sink = 0;
  const asciiFromCharCode = (b: Uint8Array): string => {
    for (const x of b) if (x === 0 || x >= 0x80) throw new Error("not ASCII");
    return String.fromCharCode.apply(null, b as unknown as number[]);
  };
  const names = {
    decodeOurs: "decode: scan + TextDecoder fatal (ours)",
    decodeAlt: "decode: scan + String.fromCharCode",
    encodeOurs: "encode: charCodeAt loop (ours, ASCII)",
    encodeAlt: "encode: TextEncoder.encodeInto",
  } as const;
  const bench = new Bench({ time: 300, warmupTime: 100 });
  bench
    .add(names.decodeOurs, () => {
      for (let i = 0; i < 1000; i++) sink += decodeUtf8(bytes, 0, bytes.length).length;
    })
    .add(names.decodeAlt, () => {
      for (let i = 0; i < 1000; i++) sink += asciiFromCharCode(bytes).length;
    })
    .add(names.encodeOurs, () => {
      for (let i = 0; i < 1000; i++) {
        writeUtf8(out, 2, topic, topic.length);
        sink += out[2] ?? 0;
      }
    })
    .add(names.encodeAlt, () => {
      for (let i = 0; i < 1000; i++) sink += encoder.encodeInto(topic, out.subarray(2)).written;
    });
  await bench.run();
  console.log("16-byte ASCII topic strings (ns per string; lower is better)");
  console.table(
    Object.values(names).map((method) => ({ method, "ns/string": ((periodOf(bench, method) * 1e6) / 1000).toFixed(1) })),
  );
  if (sink < 0) console.log(sink);
}
