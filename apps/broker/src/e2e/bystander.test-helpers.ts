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
 * by the tests, never asserted against a wall-clock bound.
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
