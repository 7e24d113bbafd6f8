// Benchmarks for the moq-lite wire codec (`@handoff/moq-resume/lite`), next to npm @moq/lite's
// own codec where it can be driven in memory. Its encoders write onto a WritableStream and its
// decoders read through async methods, so every JS-side operation awaits; the figures include
// that cost because it is how that codec runs.
import { Bench } from "tinybench";
import * as JsAnnounce from "../node_modules/@moq/lite/lite/announce.js";
import * as JsGroup from "../node_modules/@moq/lite/lite/group.js";
import * as JsSubscribe from "../node_modules/@moq/lite/lite/subscribe.js";
import * as JsPath from "../node_modules/@moq/lite/path.js";
import { Reader, Writer } from "../node_modules/@moq/lite/stream.js";
import {
  type Announce,
  ByteWriter,
  FrameEncoder,
  LITE_04,
  LiteStreamReader,
  LiteStreamWriter,
  type Subscribe,
  encodeMessage,
} from "../src/lite/index.js";

const SMALL = 100;
const SMALL_COUNT = 1000;
const LARGE = 64 * 1024;
const LARGE_COUNT = 64;
const MESSAGES = 1000;

function groupStream(size: number, count: number): Uint8Array {
  const payload = new Uint8Array(size).fill(0x5a);
  const w = new LiteStreamWriter(LITE_04);
  return w.encodeAll([
    { type: "stream_header", kind: "group" },
    { type: "group", subscribe: 1, sequence: 42 },
    ...Array.from({ length: count }, () => ({ type: "frame" as const, payload, timestamp: undefined })),
  ]);
}

function split(bytes: Uint8Array, chunk: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += chunk) out.push(bytes.subarray(at, at + chunk));
  return out;
}

/** Bytes before the first frame of a {@link groupStream}: type, then the GROUP header. */
const GROUP_PREFIX = 1 + encodeMessage({ type: "group", subscribe: 1, sequence: 42 }, LITE_04).length;

function decodeAll(chunks: readonly Uint8Array[]): number {
  const reader = new LiteStreamReader({ role: "accepted-uni", version: LITE_04 });
  let frames = 0;
  for (const c of chunks) {
    reader.push(c);
    for (let r = reader.next(); r.kind === "message"; r = reader.next()) if (r.message.type === "frame") frames++;
  }
  return frames;
}

function jsWriter(): Writer {
  return new Writer(new WritableStream<Uint8Array>({ write: () => undefined }));
}

const subscribe: Subscribe = {
  type: "subscribe",
  id: 17,
  broadcast: "room/alice",
  track: "video",
  priority: 3,
  ordered: true,
  maxLatency: 500,
  startGroup: undefined,
  endGroup: undefined,
};
const announce: Announce = { type: "announce", status: "active", suffix: "room/alice", hops: [1234567, 7654321] };

function repeated(bytes: Uint8Array, times: number): Uint8Array {
  const out = new Uint8Array(bytes.length * times);
  for (let i = 0; i < times; i++) out.set(bytes, i * bytes.length);
  return out;
}

interface Row {
  readonly task: string;
  readonly batch: number;
  readonly bytes: number;
}

/** Runs the codec benchmarks and prints ops/s, messages/s and MB/s per task. */
export async function benchLite(): Promise<void> {
  const bench = new Bench({ time: 400, warmupTime: 100 });
  const rows: Row[] = [];
  const add = (task: string, batch: number, bytes: number, fn: () => unknown): void => {
    rows.push({ task, batch, bytes });
    bench.add(task, fn);
  };

  const smallPayload = new Uint8Array(SMALL).fill(1);
  const largePayload = new Uint8Array(LARGE).fill(1);
  const smallStream = groupStream(SMALL, SMALL_COUNT);
  const largeStream = groupStream(LARGE, LARGE_COUNT);
  const smallPackets = split(smallStream, 1200);
  const largeQmux = split(largeStream, 16 * 1024);

  add(`ours: encode ${SMALL_COUNT} x ${SMALL} B frames (header+copy)`, SMALL_COUNT, smallStream.length, () => {
    const enc = new FrameEncoder(LITE_04);
    const w = new ByteWriter(smallStream.length);
    for (let i = 0; i < SMALL_COUNT; i++) enc.write(w, smallPayload);
    return w.length;
  });
  add(`ours: frame headers only x ${SMALL_COUNT} (payload sent as is)`, SMALL_COUNT, smallStream.length, () => {
    const enc = new FrameEncoder(LITE_04);
    let n = 0;
    for (let i = 0; i < SMALL_COUNT; i++) n += enc.header(SMALL).length;
    return n;
  });
  add(`@moq/lite: encode ${SMALL_COUNT} x ${SMALL} B frames`, SMALL_COUNT, smallStream.length, async () => {
    const w = jsWriter();
    for (let i = 0; i < SMALL_COUNT; i++) await new JsGroup.Frame(smallPayload).encode(w);
  });
  add(`ours: decode ${SMALL_COUNT} x ${SMALL} B frames, one chunk`, SMALL_COUNT, smallStream.length, () => decodeAll([smallStream]));
  add(`ours: decode ${SMALL_COUNT} x ${SMALL} B frames, 1200 B chunks`, SMALL_COUNT, smallStream.length, () => decodeAll(smallPackets));
  add(`@moq/lite: decode ${SMALL_COUNT} x ${SMALL} B frames, one chunk`, SMALL_COUNT, smallStream.length, async () => {
    const r = new Reader(undefined, smallStream.subarray(GROUP_PREFIX));
    for (let i = 0; i < SMALL_COUNT; i++) await JsGroup.Frame.decode(r);
  });

  add(`ours: encode ${LARGE_COUNT} x 64 KiB frames (header+copy)`, LARGE_COUNT, largeStream.length, () => {
    const enc = new FrameEncoder(LITE_04);
    const w = new ByteWriter(largeStream.length);
    for (let i = 0; i < LARGE_COUNT; i++) enc.write(w, largePayload);
    return w.length;
  });
  add(`@moq/lite: encode ${LARGE_COUNT} x 64 KiB frames`, LARGE_COUNT, largeStream.length, async () => {
    const w = jsWriter();
    for (let i = 0; i < LARGE_COUNT; i++) await new JsGroup.Frame(largePayload).encode(w);
  });
  add(`ours: decode ${LARGE_COUNT} x 64 KiB frames, one chunk (views, no copy)`, LARGE_COUNT, largeStream.length, () => decodeAll([largeStream]));
  add(`ours: decode ${LARGE_COUNT} x 64 KiB frames, 16 KiB chunks (copies)`, LARGE_COUNT, largeStream.length, () => decodeAll(largeQmux));
  add(`@moq/lite: decode ${LARGE_COUNT} x 64 KiB frames, one chunk`, LARGE_COUNT, largeStream.length, async () => {
    const r = new Reader(undefined, largeStream.subarray(GROUP_PREFIX));
    for (let i = 0; i < LARGE_COUNT; i++) await JsGroup.Frame.decode(r);
  });

  const subBytes = encodeMessage(subscribe, LITE_04);
  const subs = repeated(subBytes, MESSAGES);
  const jsSub = new JsSubscribe.Subscribe({ id: 17n, broadcast: JsPath.from("room/alice"), track: "video", priority: 3, ordered: true, maxLatency: 500 });
  add(`ours: encode ${MESSAGES} SUBSCRIBE`, MESSAGES, subs.length, () => {
    const w = new ByteWriter(subs.length);
    const sw = new LiteStreamWriter(LITE_04);
    for (let i = 0; i < MESSAGES; i++) sw.write(w, subscribe);
    return w.length;
  });
  add(`@moq/lite: encode ${MESSAGES} SUBSCRIBE`, MESSAGES, subs.length, async () => {
    const w = jsWriter();
    for (let i = 0; i < MESSAGES; i++) await jsSub.encode(w, LITE_04);
  });
  add(`ours: decode ${MESSAGES} SUBSCRIBE (a fresh stream reader each)`, MESSAGES, subs.length, () => {
    // A subscribe stream carries one SUBSCRIBE then updates; to time SUBSCRIBE itself, decode
    // each from a fresh reader of its own stream.
    let n = 0;
    const typed = Uint8Array.of(2, ...subBytes);
    for (let i = 0; i < MESSAGES; i++) {
      const reader = new LiteStreamReader({ role: "accepted-bidi", version: LITE_04 });
      reader.push(typed);
      reader.next();
      if (reader.next().kind === "message") n++;
    }
    return n;
  });
  add(`@moq/lite: decode ${MESSAGES} SUBSCRIBE`, MESSAGES, subs.length, async () => {
    const r = new Reader(undefined, subs);
    for (let i = 0; i < MESSAGES; i++) await JsSubscribe.Subscribe.decode(r, LITE_04);
  });

  const annBytes = encodeMessage(announce, LITE_04);
  const anns = repeated(annBytes, MESSAGES);
  const jsAnn = new JsAnnounce.Announce({ suffix: JsPath.from("room/alice"), active: true, hops: [1234567, 7654321] });
  add(`ours: encode ${MESSAGES} ANNOUNCE`, MESSAGES, anns.length, () => {
    const w = new ByteWriter(anns.length);
    const sw = new LiteStreamWriter(LITE_04);
    for (let i = 0; i < MESSAGES; i++) sw.write(w, announce);
    return w.length;
  });
  add(`@moq/lite: encode ${MESSAGES} ANNOUNCE`, MESSAGES, anns.length, async () => {
    const w = jsWriter();
    for (let i = 0; i < MESSAGES; i++) await jsAnn.encode(w, LITE_04);
  });
  add(`ours: decode ${MESSAGES} ANNOUNCE from one chunk`, MESSAGES, anns.length, () => {
    const reader = new LiteStreamReader({ role: "opened", kind: "announce", version: LITE_04 });
    reader.push(anns);
    let n = 0;
    for (let r = reader.next(); r.kind === "message"; r = reader.next()) n++;
    return n;
  });
  add(`@moq/lite: decode ${MESSAGES} ANNOUNCE from one chunk`, MESSAGES, anns.length, async () => {
    const r = new Reader(undefined, anns);
    for (let i = 0; i < MESSAGES; i++) await JsAnnounce.Announce.decode(r, LITE_04);
  });

  await bench.run();
  const table = bench.tasks.map((task, i) => {
    const row = rows[i];
    const result = task.result;
    const hz = "throughput" in result ? result.throughput.mean : 0;
    return {
      task: task.name,
      "batches/s": Math.round(hz),
      "msgs/s": row === undefined ? 0 : Math.round(hz * row.batch),
      "MB/s": row === undefined ? 0 : Math.round((hz * row.bytes) / 1e6),
    };
  });
  console.log("@handoff/moq-resume/lite wire codec (lite-04 layouts)");
  console.table(table);
}
