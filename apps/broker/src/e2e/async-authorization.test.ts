// An embedded broker's async authorization hooks over a real socket: the hook answers a burst of
// PUBLISHes in the reverse of their arrival order (after a setImmediate), and MQTT.js clients
// still see them routed in the order they were sent, with 0x87 for each refusal (a hook that
// throws or rejects included, and logged); SUBSCRIBE's filters are decided the same way.
import { Writable } from "node:stream";
import type { IClientOptions, MqttClient } from "mqtt";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { createBroker, type EmbeddedBroker } from "../index.js";
import { collect, connectClient, outcome, until } from "./harness.test-helpers.js";

/**
 * Answers its calls in the reverse of the order they came in: once `size` of them wait (on the
 * next turn), or without a size, those of one event-loop turn on the next.
 */
class ReverseGate {
  readonly answered: string[] = [];
  #batch: (() => void)[] = [];

  constructor(readonly size?: number) {}

  decide(name: string, verdict: () => boolean): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.#batch.push(() => {
        this.answered.push(name);
        try {
          resolve(verdict());
        } catch (err) {
          reject(err instanceof Error ? err : new Error(String(err)));
        }
      });
      if (this.#batch.length === (this.size ?? 1)) {
        setImmediate(() => {
          const batch = this.#batch.reverse();
          this.#batch = [];
          for (const answer of batch) answer();
        });
      }
    });
  }
}

let broker: EmbeddedBroker | undefined;
const clients = new Set<MqttClient>();
afterEach(async () => {
  await Promise.all([...clients].map((c) => c.endAsync(true)));
  clients.clear();
  await broker?.close();
  broker = undefined;
});

const connect = (port: number, options: IClientOptions): Promise<MqttClient> => connectClient(`mqtt://127.0.0.1:${String(port)}`, options, clients);

describe("async authorization hooks of an embedded broker", () => {
  it("routes a burst in the order it was sent though the hook answers it in reverse, refusing with 0x87 (a throwing hook too, logged)", async () => {
    // Nothing is answered before all eight PUBLISHes are asked about: they are asked in parallel.
    const gate = new ReverseGate(8);
    const logged: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logged.push(chunk.toString());
        done();
      },
    });
    broker = await createBroker({
      storage: "memory",
      listeners: { tcp: { port: 0, host: "127.0.0.1" } },
      http: { enabled: false },
      logger: pino({ level: "error" }, sink),
      hooks: {
        authorizePublish: (client, topic) =>
          client.clientId === "pub"
            ? gate.decide(topic, () => {
                if (topic.endsWith("/boom")) throw new Error("user database unreachable");
                return !topic.includes("/deny");
              })
            : true,
      },
    });
    const port = (await broker.listen()).mqtt ?? 0;
    const sub = await connect(port, { clientId: "sub" });
    const got = collect(sub);
    await sub.subscribeAsync("t/#", { qos: 1 });
    const pub = await connect(port, { clientId: "pub" });
    const sent = ["t/1", "t/2/deny", "t/3", "t/4/boom", "t/5", "t/6"];
    const results = sent.map((topic) => outcome(pub.publishAsync(topic, topic, { qos: 1 })));
    pub.publish("t/7/deny", "dropped", { qos: 0 });
    pub.publish("t/8", "t/8", { qos: 0 });
    expect(await Promise.all(results)).toEqual(["ok", 0x87, "ok", 0x87, "ok", "ok"]);
    await until(() => got.length === 5, 5000, "the allowed messages");
    expect(got.map((m) => m.topic)).toEqual(["t/1", "t/3", "t/5", "t/6", "t/8"]);
    expect(gate.answered).toEqual(["t/8", "t/7/deny", "t/6", "t/5", "t/4/boom", "t/3", "t/2/deny", "t/1"]);
    expect(logged.some((line) => line.includes("authorize publish hook failed") && line.includes("t/4/boom"))).toBe(true);
  });

  it("decides a SUBSCRIBE's filters asynchronously: 0x87 for a refused one, and the client's PUBLISH after it waits for it", async () => {
    const gate = new ReverseGate();
    broker = await createBroker({
      storage: "memory",
      listeners: { tcp: { port: 0, host: "127.0.0.1" } },
      http: { enabled: false },
      logger: pino({ level: "silent" }),
      hooks: { authorizeSubscribe: (_client, filter) => gate.decide(filter, () => filter !== "secret/#") },
    });
    const port = (await broker.listen()).mqtt ?? 0;
    const c = await connect(port, { clientId: "c" });
    const got = collect(c);
    const granted = c.subscribeAsync("mine/#", { qos: 1 });
    const refused = c.subscribeAsync("secret/#", { qos: 1 });
    const published = c.publishAsync("mine/1", "to myself", { qos: 1 });
    expect((await granted).map((g) => g.qos)).toEqual([1]);
    await expect(refused).rejects.toThrow(/Not authorized/);
    await published;
    await until(() => got.length === 1, 5000, "its own message, through the subscription decided first");
    expect(got[0]).toMatchObject({ topic: "mine/1", payload: "to myself" });
  });
});
