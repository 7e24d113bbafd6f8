// Test-only: a broker on loopback port 0 with its listeners, and MQTT.js clients bounded in time.
import { WAIT_LIMIT_MS, waitLimit } from "@handoff/test-kit";
import mqtt, { type IClientOptions, type MqttClient } from "mqtt";
import { pino } from "pino";
import { listenTcp, type Listening } from "../listeners/tcp.js";
import { listenWs } from "../listeners/ws.js";
import { Broker, type BrokerOptions } from "../mqtt/broker.js";

export interface Harness {
  readonly broker: Broker;
  readonly tcpPort: number;
  readonly wsPort: number;
  /** Connects an MQTT.js client over TCP (or WebSocket) and waits for CONNACK. */
  client(options?: IClientOptions & { transport?: "tcp" | "ws" }): Promise<MqttClient>;
  close(): Promise<void>;
}

/**
 * Connects an MQTT.js client (MQTT 5, no reconnect, bounded) to `url`, collecting its messages
 * from the first packet on (a resumed session's queue arrives right after CONNACK), and waits
 * for CONNACK; `into` keeps it for the test's cleanup.
 */
export async function connectClient(url: string, options: IClientOptions, into?: { add(client: MqttClient): unknown }): Promise<MqttClient> {
  const client = mqtt.connect(url, { reconnectPeriod: 0, connectTimeout: WAIT_LIMIT_MS, protocolVersion: 5, ...options });
  into?.add(client);
  collect(client);
  await new Promise<void>((resolve, reject) => {
    client.once("connect", () => {
      resolve();
    });
    client.once("error", reject);
  });
  return client;
}

export async function startBroker(options: Partial<BrokerOptions> = {}): Promise<Harness> {
  const log = pino({ level: process.env["HANDOFF_TEST_LOG"] ?? "silent" });
  // A reading client that a loaded machine keeps from its acknowledgements for a few seconds is
  // not stalled: tests of the stall budget set their own (and their own clock).
  const broker = new Broker({ log, tickMs: 100, stallMs: WAIT_LIMIT_MS, ...options });
  const listeners: Listening[] = [await listenTcp(broker, log, "127.0.0.1", 0), await listenWs(broker, log, { host: "127.0.0.1", port: 0, path: "/mqtt", maxPayload: 1 << 20 })];
  const [tcp, ws] = listeners;
  if (tcp === undefined || ws === undefined) throw new Error("listeners did not start");
  const clients = new Set<MqttClient>();
  return {
    broker,
    tcpPort: tcp.address.port,
    wsPort: ws.address.port,
    client: async ({ transport = "tcp", ...options } = {}) => {
      const url = transport === "ws" ? `ws://127.0.0.1:${String(ws.address.port)}/mqtt` : `mqtt://127.0.0.1:${String(tcp.address.port)}`;
      return connectClient(url, options, clients);
    },
    close: async () => {
      await Promise.all([...clients].map((c) => c.endAsync(true)));
      for (const l of listeners) await l.close();
      await broker.close(500);
    },
  };
}

/** A message as a test client saw it. */
export interface Got {
  readonly topic: string;
  readonly payload: string;
  readonly retain: boolean;
  readonly qos: number;
  readonly dup: boolean;
}

const received = new WeakMap<MqttClient, Got[]>();

/** The messages a harness client has received since it connected (the same array every call). */
export function collect(client: MqttClient): Got[] {
  let got = received.get(client);
  if (got === undefined) {
    const list: Got[] = [];
    got = list;
    received.set(client, list);
    client.on("message", (topic, payload, packet) => {
      list.push({ topic, payload: payload.toString(), retain: packet.retain, qos: packet.qos, dup: packet.dup });
    });
  }
  return got;
}

/**
 * Waits until `check` holds, polling. `ms` is how long it takes on an idle machine; the wait gives
 * up only at test-kit's safety net (waitLimit), so a loaded machine does not fail it.
 */
export async function until(check: () => boolean, ms = 5000, what = "condition"): Promise<void> {
  const limit = waitLimit(ms);
  const deadline = Date.now() + limit;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (${String(limit)} ms)`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The reason code MQTT.js reports for a refused publish, or "ok". */
export async function outcome(promise: Promise<unknown>): Promise<number | "ok"> {
  try {
    await promise;
    return "ok";
  } catch (err) {
    return (err as { code?: number }).code ?? -1;
  }
}
