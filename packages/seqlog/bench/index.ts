// Benchmarks for @handoff/seqlog: the structures on the per-message hot path of both cores,
// next to the plain JavaScript structure a naive implementation would use.
import { Bench } from "tinybench";
import { RangeSet, SeqQueue } from "../src/index.js";

const N = 10_000;

async function rangeSets(): Promise<void> {
  const bench = new Bench({ time: 400, warmupTime: 100 });
  const shuffled = Array.from({ length: N }, (_, i) => i).sort((a, b) => ((a * 7919) % N) - ((b * 7919) % N));
  bench
    .add(`RangeSet add ${String(N)} in order`, () => {
      const set = new RangeSet();
      for (let i = 0; i < N; i++) set.add(i);
    })
    .add(`Set<number> add ${String(N)} in order`, () => {
      const set = new Set<number>();
      for (let i = 0; i < N; i++) set.add(i);
    })
    .add(`RangeSet add ${String(N)} shuffled`, () => {
      const set = new RangeSet();
      for (const n of shuffled) set.add(n);
    })
    .add(`Set<number> add ${String(N)} shuffled`, () => {
      const set = new Set<number>();
      for (const n of shuffled) set.add(n);
    });
  const every2nd = new RangeSet();
  for (let i = 0; i < N; i += 2) every2nd.add(i);
  const plain = new Set(every2nd.values());
  bench
    .add(`RangeSet has x${String(N)} (${String(every2nd.rangeCount)} ranges)`, () => {
      let hits = 0;
      for (let i = 0; i < N; i++) if (every2nd.has(i)) hits++;
      return hits;
    })
    .add(`Set<number> has x${String(N)}`, () => {
      let hits = 0;
      for (let i = 0; i < N; i++) if (plain.has(i)) hits++;
      return hits;
    });
  await bench.run();
  console.table(bench.table());
  const contiguous = new RangeSet();
  contiguous.addRange(0, 999_999);
  console.log(`memory: 1,000,000 contiguous numbers held as ${String(contiguous.rangeCount)} range (2 numbers)`);
}

async function queues(): Promise<void> {
  const bench = new Bench({ time: 400, warmupTime: 100 });
  bench
    .add(`SeqQueue push+take+ack x${String(N)}`, () => {
      const q = new SeqQueue<number>({ limits: { maxCount: N, maxBytes: N * 100 } });
      for (let i = 0; i < N; i++) q.pushBack(i, 100);
      for (let e = q.take(); e !== undefined; e = q.take()) q.ack(e.seq);
    })
    .add(`Array push+shift x${String(N)} (no bounds, no in-flight)`, () => {
      const a: { seq: number; value: number }[] = [];
      for (let i = 0; i < N; i++) a.push({ seq: i, value: i });
      while (a.length > 0) a.shift();
    });
  await bench.run();
  console.table(bench.table());
}

console.log("@handoff/seqlog");
await rangeSets();
await queues();
