// Router benchmarks: routing throughput (publishes/s) for 1->1, fan-in 1000->1 under a wildcard
// and fan-out 1->1000, and matching cost against index size and topic depth.
import { ManualClock } from "@handoff/seqlog";
import { Bench } from "tinybench";
import { Router } from "../src/router/index.js";
import type { DeliverySink, Message } from "../src/router/index.js";

const payload = new Uint8Array(32);
const msg = (topic: string): Message => ({ topic, payload, qos: 0, retain: false, properties: {} });

function counting(): DeliverySink & { count: number } {
  const sink = { count: 0, publish: () => ((sink.count += 1), true), pubrel: () => undefined };
  return sink;
}

function connect(router: Router, clientId: string, sink: DeliverySink): number {
  const { generation } = router.connect({ clientId, cleanStart: true, sessionExpiryInterval: 0, receiveMaximum: 65535, protocolVersion: 5, sink });
  router.bind(clientId, generation);
  return generation;
}

const options = { queueLimits: { maxCount: 1_000_000, maxBytes: 1 << 30 } };

/** A router holding `n` subscriptions spread over distinct 4-level filters, plus the clients. */
function withBackground(n: number): Router {
  const router = new Router({ clock: new ManualClock(), ...options });
  const perClient = 100;
  for (let c = 0; c < n / perClient; c++) {
    const id = `bg${String(c)}`;
    const gen = connect(router, id, counting());
    const subs = [];
    for (let s = 0; s < perClient; s++) {
      subs.push({ filter: `site/${String(c)}/dev${String(s)}/+`, qos: 0 as const, noLocal: false, retainAsPublished: false, retainHandling: 2 as const });
    }
    router.subscribe(id, gen, subs);
  }
  return router;
}

export async function benchRouter(): Promise<void> {
  const rows: { scenario: string; "publishes/s": string; "deliveries/s": string }[] = [];
  for (const background of [10_000, 100_000]) {
    const bench = new Bench({ time: 500, warmupTime: 100 });
    const router = withBackground(background);
    const one = counting();
    const oneGen = connect(router, "one", one);
    router.subscribe("one", oneGen, [{ filter: "direct/topic", qos: 0, noLocal: false, retainAsPublished: false, retainHandling: 2 }]);
    const fanIn = counting();
    const fanInGen = connect(router, "sink", fanIn);
    router.subscribe("sink", fanInGen, [{ filter: "fanin/+/data", qos: 0, noLocal: false, retainAsPublished: false, retainHandling: 2 }]);
    const fanOut: (DeliverySink & { count: number })[] = [];
    for (let i = 0; i < 1000; i++) {
      const s = counting();
      fanOut.push(s);
      const id = `fo${String(i)}`;
      router.subscribe(id, connect(router, id, s), [{ filter: "fanout/#", qos: 0, noLocal: false, retainAsPublished: false, retainHandling: 2 }]);
    }
    const fanInTopics = Array.from({ length: 1000 }, (_, i) => msg(`fanin/${String(i)}/data`));
    let k = 0;
    const direct = msg("direct/topic");
    const broadcast = msg("fanout/all");
    bench
      .add(`1->1 (${String(background)} subs in index)`, () => router.publish(direct))
      .add(`fan-in 1000->1 wildcard (${String(background)} subs)`, () => router.publish(fanInTopics[k++ % 1000] ?? direct))
      .add(`fan-out 1->1000 (${String(background)} subs)`, () => router.publish(broadcast));
    await bench.run();
    for (const task of bench.tasks) {
      const hz = task.result.state === "completed" ? task.result.throughput.mean : 0;
      const fan = task.name.startsWith("fan-out") ? 1000 : 1;
      rows.push({ scenario: task.name, "publishes/s": Math.round(hz).toLocaleString("en"), "deliveries/s": Math.round(hz * fan).toLocaleString("en") });
    }
  }
  console.log("router: routing throughput (QoS 0, in-memory, sinks count only)");
  console.table(rows);

  // Matching cost: plan() only, against index size (should be flat) and topic depth (grows).
  const depthRows: { "index size": string; "topic depth": number; "plans/s": string }[] = [];
  for (const background of [10_000, 100_000]) {
    const router = withBackground(background);
    const gen = connect(router, "deep", counting());
    for (const depth of [2, 4, 8, 16]) {
      const levels = Array.from({ length: depth }, (_, i) => `l${String(i)}`);
      router.subscribe("deep", gen, [{ filter: levels.join("/"), qos: 0, noLocal: false, retainAsPublished: false, retainHandling: 2 }]);
      const message = msg(levels.join("/"));
      const bench = new Bench({ time: 300, warmupTime: 50 });
      bench.add("plan", () => router.plan(message));
      await bench.run();
      const hz = bench.tasks[0]?.result.state === "completed" ? bench.tasks[0].result.throughput.mean : 0;
      depthRows.push({ "index size": background.toLocaleString("en"), "topic depth": depth, "plans/s": Math.round(hz).toLocaleString("en") });
    }
  }
  console.log("router: matching cost grows with topic depth, not with the number of subscriptions");
  console.table(depthRows);
}
