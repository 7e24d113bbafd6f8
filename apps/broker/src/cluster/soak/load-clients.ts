/**
 * The fault suite's persistent clients: QoS 1 publishers paced to a rate, and the watcher of will
 * topics. Both are MQTT 5 sessions with a long expiry that never move on purpose: MQTT.js
 * reconnects them by itself (to the next server of its list) when their node dies or Redis refuses
 * them, resends what is in flight, and every CONNACK after their first must say Session Present 1.
 * @module
 */
import mqtt, { type MqttClient } from "mqtt";
import type { Delivery, PersistentConnack, SentMessage } from "./history.js";

/** What the clients need of the run. */
export interface LoadContext {
  readonly clock: () => number;
  /** Every node's port, in node order. */
  readonly ports: readonly number[];
  readonly names: readonly string[];
  readonly connacks: PersistentConnack[];
}

// The broker's Receive Maximum is 64; MQTT.js does not hold back by itself.
const WINDOW = 48;

function persistentClient(ctx: LoadContext, clientId: string): { readonly client: MqttClient; readonly node: () => string } {
  const client = mqtt.connect({
    servers: ctx.ports.map((port) => ({ host: "127.0.0.1", port, protocol: "mqtt" as const })),
    clientId,
    protocolVersion: 5,
    clean: false,
    properties: { sessionExpiryInterval: 3600 },
    reconnectPeriod: 250,
    // CONNACK 0x88 while Redis is down must not end the reconnecting.
    reconnectOnConnackError: true,
    connectTimeout: 15_000,
    // Short, so that a connection to a stopped node is given up within seconds.
    keepalive: 3,
    // A lost session must show as lost messages and Session Present 0, not be patched over.
    resubscribe: false,
  });
  client.on("error", () => undefined);
  const nodeOf = (): string => ctx.names[ctx.ports.indexOf(client.options.port ?? -1)] ?? "?";
  let first = true;
  client.on("packetreceive", (packet) => {
    if (packet.cmd !== "connack" || (packet.reasonCode ?? 0) !== 0) return;
    ctx.connacks.push({ clientId, at: ctx.clock(), node: nodeOf(), sessionPresent: packet.sessionPresent, first });
    first = false;
  });
  return { client, node: nodeOf };
}

const connected = (client: MqttClient): Promise<void> =>
  new Promise((resolve) => {
    if (client.connected) resolve();
    else client.once("connect", () => { resolve(); });
  });

/** A QoS 1 publisher: message k goes to id k mod `ids`, topic `topicOf(id, k / ids)`. */
export class SoakPublisher {
  readonly messages: SentMessage[] = [];
  /** Publishes the broker answered with a failure reason code. */
  readonly refused: string[] = [];
  readonly client: MqttClient;
  readonly #node: () => string;
  readonly #clock: () => number;
  readonly #byPacketId = new Map<number, SentMessage>();
  readonly #byPayload = new Map<string, SentMessage>();
  #outstanding = 0;

  constructor(
    readonly name: string,
    ctx: LoadContext,
    readonly ids: number,
    readonly topicOf: (id: number, which: number) => string,
    readonly onSent: (m: SentMessage) => void,
  ) {
    this.#clock = ctx.clock;
    const { client, node } = persistentClient(ctx, `soak-${name}`);
    this.client = client;
    this.#node = node;
    // Acknowledgements are read off the wire: the packet id names the payload last sent under it.
    client.on("packetsend", (packet) => {
      if (packet.cmd !== "publish" || packet.messageId === undefined) return;
      const m = this.#byPayload.get(String(packet.payload));
      if (m === undefined) return;
      m.sends += 1;
      this.#byPacketId.set(packet.messageId, m);
    });
    client.on("packetreceive", (packet) => {
      if (packet.cmd !== "puback" || packet.messageId === undefined) return;
      const m = this.#byPacketId.get(packet.messageId);
      if (m === undefined) return;
      this.#byPacketId.delete(packet.messageId);
      const code = packet.reasonCode ?? 0;
      if (code >= 0x80) {
        this.refused.push(`${m.payload}: PUBACK 0x${code.toString(16)} at ${String(Math.round(this.#clock()))} ms`);
        return;
      }
      if (m.acked === undefined) {
        m.acked = this.#clock();
        m.ackNode = this.#node();
      }
    });
  }

  ready(): Promise<void> {
    return connected(this.client);
  }

  get outstanding(): number {
    return this.#outstanding;
  }

  /** One more publish if the window has room; false if it has none. */
  tick(): boolean {
    if (this.#outstanding >= WINDOW) return false;
    const k = this.messages.length;
    const id = k % this.ids;
    const payload = `${this.name}:${String(k)}`;
    const m: SentMessage = { publisher: this.name, n: k, payload, topic: this.topicOf(id, Math.floor(k / this.ids)), id, sent: this.#clock(), sends: 0 };
    this.messages.push(m);
    this.onSent(m);
    this.#byPayload.set(payload, m);
    this.#outstanding += 1;
    this.client.publish(m.topic, payload, { qos: 1 }, () => {
      this.#outstanding -= 1;
    });
    return true;
  }
}

/** Drives publishers at `rate` msg/s each until stopped; what a full window holds back is not made up. */
export function pace(publishers: readonly SoakPublisher[], rate: number): { stop(): void } {
  let last = Date.now();
  let owed = 0;
  const timer = setInterval(() => {
    const now = Date.now();
    owed += ((now - last) * rate) / 1000;
    last = now;
    const whole = Math.floor(owed);
    owed -= whole;
    for (const p of publishers) for (let i = 0; i < whole && p.tick(); i++);
  }, 10);
  return {
    stop: () => {
      clearInterval(timer);
    },
  };
}

/** The subscriber of every will topic, and what it received per topic. */
export class WillWatcher {
  readonly copies = new Map<string, Delivery[]>();
  readonly client: MqttClient;
  readonly #filter: string;

  constructor(ctx: LoadContext, filter: string) {
    const { client, node } = persistentClient(ctx, "soak-will-watcher");
    this.client = client;
    client.on("message", (topic, payload, packet) => {
      const list = this.copies.get(topic) ?? [];
      list.push({ topic, payload: payload.toString(), retain: packet.retain, qos: packet.qos, dup: packet.dup, at: ctx.clock(), node: node() });
      this.copies.set(topic, list);
    });
    this.#filter = filter;
  }

  async ready(): Promise<void> {
    await connected(this.client);
    await this.client.subscribeAsync(this.#filter, { qos: 1 });
  }
}
