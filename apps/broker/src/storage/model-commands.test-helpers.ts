// Test-only: the random router operations of the model-based store tests, shared by every durable
// store (SQLite, Redis): each run applies them to a router writing to the store under test and to
// the in-memory reference store side by side.
import { type QoS, type Router } from "@handoff/mqtt-router";
import { SESSION_NEVER_EXPIRES } from "@handoff/mqtt-router/codec";
import type { ManualClock } from "@handoff/seqlog";
import fc from "fast-check";
import { message, recordingSink, type referenceStore } from "./store.test-helpers.js";

/**
 * Vitest's timeout for a model-based store test: a safety net, not a budget. Each test is bounded
 * by its runs (fast-check's numRuns; every run opens and reopens a store, a worker thread each
 * time), and a loaded 2-core machine may take many times what an idle one does.
 */
export const MODEL_TEST_TIMEOUT_MS = 10 * 60_000;

const clients = ["a", "b", "c"] as const;
const topics = ["t/1", "t/2", "u"] as const;
const filters = ["t/+", "t/#", "u", "#", "$share/g/t/+"] as const;
const qos = fc.constantFrom<QoS>(0, 1, 2);

/** What a model step does. */
export type Command =
  | { kind: "connect"; client: string; cleanStart: boolean; expiry: number; receiveMaximum: number; will: { topic: string; delaySeconds: number } | null }
  | { kind: "disconnect"; client: string; publishWill: boolean; expiry: number | null }
  | { kind: "subscribe"; client: string; filter: string; qos: QoS; subscriptionId: number | null }
  | { kind: "unsubscribe"; client: string; filter: string }
  | { kind: "publish"; topic: string; qos: QoS; retain: boolean; payload: string; origin: string | null; expiresIn: number | null; props: boolean }
  | { kind: "ack" | "pubrec"; client: string; pick: number }
  | { kind: "inbound"; client: string; packetId: number; received: boolean }
  | { kind: "advance"; ms: number }
  | { kind: "commit" }
  | { kind: "restart" };

const client = fc.constantFrom(...clients);
/** One random operation. */
export const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({
    kind: fc.constant("connect" as const),
    client,
    cleanStart: fc.boolean(),
    expiry: fc.constantFrom(0, 10, SESSION_NEVER_EXPIRES),
    receiveMaximum: fc.integer({ min: 1, max: 3 }),
    will: fc.option(fc.record({ topic: fc.constantFrom(...topics), delaySeconds: fc.constantFrom(0, 5) })),
  }),
  fc.record({ kind: fc.constant("disconnect" as const), client, publishWill: fc.boolean(), expiry: fc.option(fc.constantFrom(0, 10)) }),
  fc.record({ kind: fc.constant("subscribe" as const), client, filter: fc.constantFrom(...filters), qos, subscriptionId: fc.option(fc.integer({ min: 1, max: 9 })) }),
  fc.record({ kind: fc.constant("unsubscribe" as const), client, filter: fc.constantFrom(...filters) }),
  fc.record({
    kind: fc.constant("publish" as const),
    topic: fc.constantFrom(...topics),
    qos,
    retain: fc.boolean(),
    payload: fc.constantFrom("", "x", "hello"),
    origin: fc.option(client),
    expiresIn: fc.option(fc.integer({ min: 1, max: 20_000 })),
    props: fc.boolean(),
  }),
  fc.record({ kind: fc.constantFrom("ack" as const, "pubrec" as const), client, pick: fc.nat(5) }),
  fc.record({ kind: fc.constant("inbound" as const), client, packetId: fc.integer({ min: 1, max: 4 }), received: fc.boolean() }),
  fc.record({ kind: fc.constant("advance" as const), ms: fc.integer({ min: 0, max: 12_000 }) }),
  fc.constant({ kind: "commit" as const }),
  fc.constant({ kind: "restart" as const }),
);

/** A router over the store under test, with the connections the commands made. */
export interface World<S> {
  store: S;
  router: Router;
  clock: ManualClock;
  readonly generations: Map<string, number>;
}

/** A store as the driver uses it. */
interface Flushable {
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** Starts a world on the store (restoring what it holds when `restore`), fed to `reference` too. */
export type StartWorld<S> = (reference: ReturnType<typeof referenceStore>, now: number, restore: boolean) => Promise<World<S>>;

/** Runs `commands`: commit awaits a flush, restart closes the store and starts again from it. */
export async function drive<S extends Flushable>(commands: readonly Command[], reference: ReturnType<typeof referenceStore>, start: StartWorld<S>): Promise<void> {
  let world = await start(reference, 1_000_000, false);
  try {
    for (const c of commands) {
      if (c.kind === "commit") await world.store.flush();
      else if (c.kind === "restart") {
        await world.store.close();
        world = await start(reference, world.clock.now(), true);
      } else run(world, c);
    }
  } finally {
    await world.store.close();
  }
}

function run<S>(world: World<S>, c: Command): void {
  const { router } = world;
  const owned = (id: string): number | undefined => world.generations.get(id);
  switch (c.kind) {
    case "connect": {
      const outcome = router.connect({
        clientId: c.client,
        cleanStart: c.cleanStart,
        sessionExpiryInterval: c.expiry,
        receiveMaximum: c.receiveMaximum,
        protocolVersion: 5,
        sink: recordingSink(),
        ...(c.will === null ? {} : { will: { message: message(c.will.topic, `will of ${c.client}`), delaySeconds: c.will.delaySeconds } }),
      });
      world.generations.set(c.client, outcome.generation);
      router.bind(c.client, outcome.generation);
      return;
    }
    case "disconnect": {
      const generation = owned(c.client);
      if (generation === undefined) return;
      router.disconnect(c.client, generation, { publishWill: c.publishWill, ...(c.expiry === null ? {} : { sessionExpiryInterval: c.expiry }) });
      world.generations.delete(c.client);
      return;
    }
    case "subscribe": {
      const generation = owned(c.client);
      if (generation === undefined) return;
      const request = { filter: c.filter, qos: c.qos, noLocal: false, retainAsPublished: c.qos === 1, retainHandling: 0 as const };
      router.subscribe(c.client, generation, [request], c.subscriptionId ?? undefined);
      return;
    }
    case "unsubscribe": {
      const generation = owned(c.client);
      if (generation !== undefined) router.unsubscribe(c.client, generation, [c.filter]);
      return;
    }
    case "publish": {
      const props = c.props ? { correlationData: new Uint8Array([1, 2, 3]), userProperties: [["k", "v"], ["a", "b"]] as const, contentType: "x/y" } : {};
      router.publish(
        message(c.topic, c.payload, c.qos, {
          retain: c.retain,
          properties: props,
          ...(c.origin === null ? {} : { origin: c.origin }),
          ...(c.expiresIn === null ? {} : { expiresAt: world.clock.now() + c.expiresIn }),
        }),
      );
      return;
    }
    case "ack":
    case "pubrec": {
      const generation = owned(c.client);
      const ids = [...(router.session(c.client)?.seqByPacketId.keys() ?? [])];
      const id = ids[c.pick % Math.max(1, ids.length)];
      if (generation === undefined || id === undefined) return;
      if (c.kind === "ack") router.acknowledge(c.client, generation, id);
      else router.pubrec(c.client, generation, id);
      return;
    }
    case "inbound": {
      const generation = owned(c.client);
      if (generation !== undefined) router.inboundQos2(c.client, generation, c.packetId, c.received);
      return;
    }
    case "advance":
      world.clock.advance(c.ms);
      router.tick();
      return;
    case "commit":
    case "restart":
      return; // asynchronous: handled by the driver
    default: {
      const never: never = c;
      throw new Error(`unknown command ${JSON.stringify(never)}`);
    }
  }
}

