// Test-only: a broker "process" that dies at a chosen commit boundary, restarted from what its
// SQLite file holds, with real MQTT.js clients over in-memory links. Bytes the dead process wrote
// before it died still reach the clients (they were on the wire); nothing it does after is seen.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Duplex } from "node:stream";
import type { Assigned, Delivery, Message, RouterStore, SessionRecord, SessionSubscription } from "@handoff/mqtt-router";
import { MqttClient, Store, type IClientOptions } from "mqtt";
import { pino } from "pino";
import { Broker, type BrokerOptions } from "../mqtt/broker.js";
import type { Durability } from "../mqtt/client-handler.js";
import type { TransportEvents } from "../mqtt/transport.js";
import { SqliteStore } from "./sqlite-store.js";

/** Where a process dies: inside commit `commit` (1-based) before it is durable, or right after it is. */
export interface KillPoint {
  readonly commit: number;
  readonly when: "before" | "after";
}

const never = new Promise<void>(() => undefined);

/** The store as the broker sees it: forwards to SQLite while the process lives, nothing after. */
class DyingStore implements RouterStore, Durability {
  constructor(
    readonly inner: SqliteStore,
    readonly life: Life,
  ) {}
  sessionSaved(r: SessionRecord): void {
    if (!this.life.dead) this.inner.sessionSaved(r);
  }
  sessionDeleted(id: string): void {
    if (!this.life.dead) this.inner.sessionDeleted(id);
  }
  subscriptionSaved(id: string, s: SessionSubscription): void {
    if (!this.life.dead) this.inner.subscriptionSaved(id, s);
  }
  subscriptionDeleted(id: string, f: string): void {
    if (!this.life.dead) this.inner.subscriptionDeleted(id, f);
  }
  deliveryQueued(id: string, seq: number, d: Delivery): void {
    if (!this.life.dead) this.inner.deliveryQueued(id, seq, d);
  }
  deliveryRemoved(id: string, seq: number): void {
    if (!this.life.dead) this.inner.deliveryRemoved(id, seq);
  }
  deliveryAssigned(id: string, seq: number, a: Assigned): void {
    if (!this.life.dead) this.inner.deliveryAssigned(id, seq, a);
  }
  inboundQos2Changed(id: string, p: number, r: boolean): void {
    if (!this.life.dead) this.inner.inboundQos2Changed(id, p, r);
  }
  retainedChanged(t: string, m: Message | undefined): void {
    if (!this.life.dead) this.inner.retainedChanged(t, m);
  }
  willChanged(id: string, w: { readonly message: Message; readonly delayMs: number } | undefined): void {
    if (!this.life.dead) this.inner.willChanged(id, w);
  }
  // A dead process acknowledges nothing.
  flush(): Promise<void> {
    return this.life.dead ? never : this.inner.flush();
  }
}

/** One run of the broker process on the data directory. */
export class Life {
  dead = false;
  commits = 0;
  readonly store: SqliteStore;
  readonly broker: Broker;
  readonly #world: CrashWorld;
  #kill: KillPoint | undefined;

  constructor(world: CrashWorld) {
    this.#world = world;
    this.store = SqliteStore.open({
      dataDir: world.dir,
      synchronous: "normal",
      hooks: {
        beforeCommit: () => {
          if (this.dead) throw new Error("the process is dead");
          const kill = this.#kill;
          if (kill?.when === "before" && this.commits + 1 === kill.commit) {
            this.die();
            throw new Error("killed before commit");
          }
        },
        onCommit: () => {
          this.commits += 1;
          world.activity += 1;
          if (this.#kill?.when === "after" && this.commits === this.#kill.commit) this.die();
        },
      },
    });
    const store = new DyingStore(this.store, this);
    this.broker = new Broker({ tickMs: 3_600_000, ...world.brokerOptions, log: pino({ level: "silent" }), store, restore: this.store.load() });
  }

  /** Dies at `kill`, its commit counted from now. */
  arm(kill: KillPoint): void {
    this.#kill = { commit: this.commits + kill.commit, when: kill.when };
  }

  /** SIGKILL: every link goes dead at once; the clients still read what was already sent. */
  die(): void {
    if (this.dead) return;
    this.dead = true;
    this.#world.deaths += 1;
  }

  /** Releases the dead process's file handle without committing anything more. */
  async bury(): Promise<void> {
    this.dead = true;
    await this.broker.close(0);
    await this.store.close().catch(() => undefined);
  }

  /** A client connection to this process, as MQTT.js's stream. */
  connect(): Duplex {
    const world = this.#world;
    // Set once attached; the stream's callbacks run only after that.
    const broker: { events: TransportEvents | undefined } = { events: undefined };
    let open = true;
    // Input the broker paused (flow control) waits here, its writer with it, as in a socket's buffer.
    let paused = false;
    const unread: { readonly chunk: Uint8Array; readonly callback: () => void }[] = [];
    const end = (): void => {
      if (!open) return;
      open = false;
      stream.push(null);
      // The broker hears of the close on a later turn, as from a socket.
      if (!this.dead) {
        setImmediate(() => {
          broker.events?.closed();
        });
      }
    };
    const stream = new Duplex({
      allowHalfOpen: false,
      read() {
        // pushed by the broker side
      },
      write: (chunk: Buffer, _encoding, callback) => {
        if (paused && open && !this.dead) {
          unread.push({ chunk: new Uint8Array(chunk), callback });
          return;
        }
        if (open && !this.dead) {
          world.activity += 1;
          broker.events?.data(new Uint8Array(chunk));
        }
        callback();
      },
      final(callback) {
        end();
        callback();
      },
      destroy(error, callback) {
        end();
        callback(error);
      },
    });
    this.#world.lifeLinks.push({ life: this, end });
    // A dead process runs no more code: its sockets close when the test buries it.
    const closeFromBroker = (): void => {
      if (!this.dead) end();
    };
    broker.events = this.broker.attach({
      remote: "memory",
      listener: "tcp",
      buffered: 0,
      pauseReading: () => {
        paused = true;
      },
      resumeReading: () => {
        paused = false;
        for (const { chunk, callback } of unread.splice(0)) {
          if (open && !this.dead) {
            world.activity += 1;
            broker.events?.data(chunk);
          }
          callback();
        }
      },
      write: (bytes) => {
        if (!open || this.dead) return;
        world.activity += 1;
        stream.push(Buffer.from(bytes));
      },
      close: closeFromBroker,
      destroy: closeFromBroker,
    });
    return stream;
  }
}

/** The data directory, the current process and the clients. */
export class CrashWorld {
  readonly dir = mkdtempSync(join(tmpdir(), "handoff-crash-"));
  activity = 0;
  deaths = 0;
  life: Life;
  readonly lifeLinks: { readonly life: Life; readonly end: () => void }[] = [];
  readonly #dead: Life[] = [];
  readonly #clients: MqttClient[] = [];
  // MQTT.js keeps its session (in-flight messages both ways) in these across a reconnect only if
  // it is given them again.
  readonly #stores = new WeakMap<MqttClient, { readonly incomingStore: Store; readonly outgoingStore: Store }>();

  /** @param brokerOptions settings every process of this world starts with (queue bounds, flow control) */
  constructor(readonly brokerOptions: Omit<Partial<BrokerOptions>, "log" | "store" | "restore"> = {}) {
    this.life = new Life(this);
  }

  /**
   * A persistent MQTT 5 client connected to whichever process is current; `wire` attaches its
   * listeners before it connects. Waits for CONNACK.
   */
  async client(clientId: string, options: IClientOptions = {}, wire: (client: MqttClient) => void = () => undefined): Promise<MqttClient> {
    const stores = { incomingStore: new Store(), outgoingStore: new Store() };
    const client = new MqttClient(() => this.life.connect(), {
      ...stores,
      clientId,
      protocolVersion: 5,
      clean: false,
      properties: { sessionExpiryInterval: 3600 },
      reconnectPeriod: 0,
      keepalive: 0,
      connectTimeout: 60_000,
      ...options,
    });
    this.#clients.push(client);
    this.#stores.set(client, stores);
    client.on("error", () => undefined);
    wire(client); // before CONNACK: a resumed session's queue follows it at once
    await this.connected(client);
    return client;
  }

  /** Reconnects `client` to the current process with its session state, and waits for CONNACK. */
  async reconnect(client: MqttClient): Promise<void> {
    if (client.connected || client.disconnecting) return;
    client.reconnect(this.#stores.get(client));
    await this.connected(client);
  }

  /** Waits for `client`'s CONNACK, or gives up quietly if the process died. */
  async connected(client: MqttClient): Promise<void> {
    for (let i = 0; i < 2000 && !client.connected; i++) await turn();
  }

  /**
   * Runs the event loop until nothing moves for a while. A commit on the worker thread takes
   * longer than a few turns: while the live process has changes uncommitted, it waits for them.
   */
  async settle(): Promise<void> {
    let quiet = 0;
    for (let i = 0; i < 5000 && quiet < 3; i++) {
      const before = this.activity;
      await turn();
      const life = this.life;
      if (!life.dead && life.store.pendingOperations > 0) {
        await life.store.flush().catch(() => undefined);
        quiet = 0;
        continue;
      }
      quiet = this.activity === before ? quiet + 1 : 0;
    }
  }

  /**
   * If the process died: restart it on the same directory and reconnect `online` clients.
   * `lastWords` runs while the clients still think they are connected: what they send then is lost
   * with the dead process (acknowledgements they were holding back, say).
   */
  async restartIfDead(online: readonly MqttClient[], lastWords: () => Promise<void> = () => Promise.resolve()): Promise<boolean> {
    if (!this.life.dead) return false;
    await this.settle(); // the clients read what reached them
    await lastWords();
    const dead = this.life;
    for (const link of this.lifeLinks) if (link.life === dead) link.end();
    await this.settle();
    this.#dead.push(dead);
    await dead.bury();
    this.life = new Life(this);
    for (const client of online) await this.reconnect(client);
    return true;
  }

  async close(): Promise<void> {
    for (const client of this.#clients) client.end(true);
    await this.life.bury();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** One event-loop turn (timers, I/O, immediates). */
export function turn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** What a publisher sent and had acknowledged, as its own socket saw it. */
export interface PublisherRecord {
  /** Payloads whose PUBACK/PUBCOMP (success) arrived, in arrival order. */
  readonly acknowledged: string[];
  /** PUBLISH packets sent per payload (more than one: a resend, which MQTT.js sends without DUP). */
  readonly sends: Map<string, number>;
}

/**
 * Records `client`'s acknowledgements from its packets into `record`: a PUBACK/PUBCOMP for the
 * packet id it last used for a payload (MQTT.js's callbacks of resent messages may not fire).
 */
export function recordPublisher(client: MqttClient, record: PublisherRecord = { acknowledged: [], sends: new Map() }): PublisherRecord {
  const inFlight = new Map<number, string>();
  client.on("packetsend", (packet) => {
    if (packet.cmd === "publish" && packet.messageId !== undefined) {
      const payload = String(packet.payload);
      inFlight.set(packet.messageId, payload);
      record.sends.set(payload, (record.sends.get(payload) ?? 0) + 1);
    }
  });
  client.on("packetreceive", (packet) => {
    if ((packet.cmd === "puback" || packet.cmd === "pubcomp") && packet.messageId !== undefined) {
      const payload = inFlight.get(packet.messageId);
      inFlight.delete(packet.messageId);
      if (payload !== undefined && !record.acknowledged.includes(payload)) record.acknowledged.push(payload);
    }
  });
  return record;
}

/** What {@link everyKillPoint} found. */
export interface KillPointsExplored {
  /** Violations of every run, prefixed with its kill point. */
  readonly failures: string[];
  /** Kill points at which the process did die. */
  readonly killed: number;
}

/**
 * Runs `run` killed before and after commit 1, 2, ... until a run ends without reaching its kill
 * point. Commits on the worker thread batch as the threads' timing falls, so how many a run makes
 * varies: the kill points are counted from the commits runs actually make, not from a baseline's.
 * `only` runs that one kill point. At most `max` commits (a run that always dies is a bug).
 */
export async function everyKillPoint(
  run: (kill: KillPoint) => Promise<{ readonly violations: readonly string[]; readonly died: boolean }>,
  options: { readonly max?: number; readonly only?: KillPoint } = {},
): Promise<KillPointsExplored> {
  const failures: string[] = [];
  let killed = 0;
  const max = options.max ?? 500;
  for (let commit = 1; commit <= max; commit++) {
    for (const when of ["before", "after"] as const) {
      if (options.only !== undefined && (options.only.commit !== commit || options.only.when !== when)) continue;
      const outcome = await run({ commit, when });
      for (const v of outcome.violations) failures.push(`killed ${when} commit ${String(commit)}: ${v}`);
      if (!outcome.died) return { failures, killed };
      killed += 1;
    }
    if (options.only !== undefined && commit >= options.only.commit) return { failures, killed };
  }
  failures.push(`still dying at commit ${String(max)}: the runs never end`);
  return { failures, killed };
}
