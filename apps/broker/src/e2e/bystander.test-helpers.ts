// Test-only: a bystander MQTT.js client that must keep being served while someone attacks the broker.
import type { MqttClient } from "mqtt";
import { collect, until } from "./harness.test-helpers.js";

/** A full round trip through the broker: subscribe, publish QoS 1, receive it back. */
export async function roundTrip(client: MqttClient, topic = `bystander/${String(Math.random()).slice(2)}`): Promise<void> {
  await client.subscribeAsync(topic, { qos: 1 });
  const before = collect(client).filter((m) => m.topic === topic).length;
  await client.publishAsync(topic, "still here", { qos: 1 });
  await until(() => collect(client).filter((m) => m.topic === topic).length > before, 5000, "the bystander's own message");
}

/** One PINGREQ → PINGRESP round trip, in milliseconds. */
export function ping(client: MqttClient): Promise<number> {
  const started = performance.now();
  return new Promise((resolve) => {
    const onPacket = (packet: { cmd: string }): void => {
      if (packet.cmd !== "pingresp") return;
      client.off("packetreceive", onPacket);
      resolve(performance.now() - started);
    };
    client.on("packetreceive", onPacket);
    client.sendPing();
  });
}

/**
 * Pings `client` back to back until `done` settles; returns every round trip time (ms). Printed
 * by the tests, and compared only with times measured in the same test (never a fixed bound alone).
 */
export async function pingWhile(client: MqttClient, done: Promise<unknown>): Promise<number[]> {
  const state = { finished: false };
  void done.finally(() => {
    state.finished = true;
  });
  const times: number[] = [];
  while (!state.finished) times.push(await ping(client));
  return times;
}

/**
 * Pings `client` back to back until `done` settles; for each round trip, how far `work()` moved
 * while that ping was out (a counter of the attacker's work, such as the bytes the broker sent).
 * A broker that takes a flood in slices, a few per event-loop turn, serves the bystander between
 * them, so each ping waits for a few slices; a freeze makes one ping wait for the whole flood.
 * Counted in work, not milliseconds: a loaded machine slows the flood and the pings alike.
 */
export async function workPerPing(client: MqttClient, done: Promise<unknown>, work: () => number): Promise<number[]> {
  const state = { finished: false };
  void done.finally(() => {
    state.finished = true;
  });
  const moved: number[] = [];
  while (!state.finished) {
    const before = work();
    await ping(client);
    moved.push(work() - before);
  }
  return moved;
}
