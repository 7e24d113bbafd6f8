// Test-only: a broker "process" that dies at a chosen commit boundary of its commit worker thread,
// restarted from what its SQLite file holds, with real MQTT.js clients over in-memory links.
//
// The kill is the worker's (see storage/commit-probe.ts): armed for its Nth transaction from now,
// the product's worker halts right before that transaction's COMMIT (nothing of it is durable) or
// right after it (durable, and no answer ever leaves the worker). The main thread runs on until the
// world is quiet — everything it does with what the worker answered before the halt, it would have
// done before a real crash too — and the process dies then: bytes it wrote before still reach the
// clients (they were on the wire); nothing it does after is seen, and the worker ends uncommitted.
//
// The probe also makes each answer of the worker arrive a fixed number of event-loop turns after
// its batch was handed over, and each write of a client reaches the broker on a turn of its own, as
// a socket's reads might. So every run makes the same commits at the same points (kill point N of
// one run is commit N of the baseline run, and every kill point of the baseline is reached), and
// clients keep talking while a batch is in flight, as in production.
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
import { CommitProbe, type HaltPoint } from "./commit-probe.js";
import { SqliteStore } from "./sqlite-store.js";

/**
 * Where a process dies: in the worker's transaction `commit` (from 1, counted from when the kill is
 * armed), before its COMMIT (nothing of it durable) or after it (durable, not answered).
 */
export interface KillPoint {
  readonly commit: number;
  readonly when: HaltPoint;
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
  /** Commits answered by the worker. */
  commits = 0;
  readonly store: SqliteStore;
  readonly broker: Broker;
  /** The commit worker's kill switch and counters. */
  readonly probe = new CommitProbe();
  readonly #world: CrashWorld;
  /** Links' reports of their close to this broker, for when it is buried. */
  readonly #closeReports: (() => void)[] = [];

  constructor(world: CrashWorld) {
    this.#world = world;
    this.store = SqliteStore.open({
      dataDir: world.dir,
      synchronous: "normal",
      // A dead process's store fails its last commits at once when it is buried (see bury).
      retryBackoffMs: { initial: 0, max: 0 },
      hooks: {
        probe: this.probe,
        beforeCommit: () => {
          if (this.dead) throw new Error("the process is dead");
        },
        onCommit: () => {
          this.commits += 1;
          world.activity += 1;
        },
      },
    });
    const store = new DyingStore(this.store, this);
    this.broker = new Broker({ tickMs: 3_600_000, ...world.brokerOptions, log: pino({ level: "silent" }), store, restore: this.store.load() });
  }

  /** Dies at `kill`, its commit counted from now. */
  arm(kill: KillPoint): void {
    this.probe.arm(kill.commit, kill.when);
  }

  /** SIGKILL: every link goes dead at once; the clients still read what was already sent. */
  die(): void {
    if (this.dead) return;
    this.dead = true;
    this.#world.deaths += 1;
  }

  /**
   * Releases the process's file: a halted worker ends without committing, and the store of a dead
   * process commits nothing more. Its broker hears its links closed at once (nothing it does is
   * seen any more), so it does not wait for them.
   */
  async bury(): Promise<void> {
    if (this.probe.halted) this.die();
    this.probe.release();
    if (this.dead) for (const report of this.#closeReports.splice(0)) report();
    await this.broker.close(0);
    await this.store.close().catch(() => undefined);
  }

  /** A client connection to this process, as MQTT.js's stream. */
  connect(): Duplex {
    const world = this.#world;
    // Set once attached; the stream's callbacks run only after that.
    const broker: { events: TransportEvents | undefined } = { events: undefined };
    let open = true;
    let reported = false;
    const report = (): void => {
      if (reported) return;
      reported = true;
      broker.events?.closed();
    };
    this.#closeReports.push(report);
    // Input reaches the broker one write per turn, as a socket's reads might: what a client sends
    // in one go reaches the broker while the commits of its first part are in flight. While the
    // broker paused reading (flow control) it waits here, as in a socket's buffer; so does the
    // client's end, which the broker hears after what was sent before it.
    let paused = false;
    let reading = false;
    let ended = false;
    const unread: Uint8Array[] = [];
    const read = (): void => {
      reading = false;
      const next = paused ? undefined : unread.shift();
      if (next !== undefined && open && !this.dead) {
        world.activity += 1;
        broker.events?.data(next);
      }
      if (ended && unread.length === 0) end();
      else readLater();
    };
    const readLater = (): void => {
      if (reading || paused || (unread.length === 0 && !ended)) return;
      reading = true;
      setImmediate(read);
    };
    const clientEnded = (): void => {
      ended = true;
      readLater();
    };
    // The link closes: the broker's side, a dead process's, or the client's after its input.
    const end = (): void => {
      if (!open) return;
      open = false;
      stream.push(null);
      // The broker hears of the close on a later turn, as from a socket.
      if (!this.dead) setImmediate(report);
    };
    const stream = new Duplex({
      allowHalfOpen: false,
      read() {
        // pushed by the broker side
      },
      write: (chunk: Buffer, _encoding, callback) => {
        if (open && !this.dead) unread.push(new Uint8Array(chunk));
        readLater();
        callback();
      },
      final(callback) {
        clientEnded();
        callback();
      },
      destroy(error, callback) {
        clientEnded();
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
        readLater();
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
   * Runs the event loop until nothing moves for a while: no bytes, no commits, and nothing recorded
   * that a live worker has still to commit. If the worker halted at its kill point, the process
   * dies now.
   */
  async settle(): Promise<void> {
    let quiet = 0;
    for (let i = 0; i < 5000 && quiet < 3; i++) {
      const before = this.activity;
      await turn();
      const life = this.life;
      const committing = !life.dead && !life.probe.halted && life.store.pendingOperations > 0;
      quiet = this.activity === before && !committing ? quiet + 1 : 0;
    }
    if (this.life.probe.halted) this.life.die();
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

/**
 * Vitest's timeout for a test that explores every kill point: a safety net, not a budget. The work
 * is bounded by the baseline's commits (one full run per kill point, a few dozen runs); a loaded
 * 2-core machine may take many times what an idle one does.
 */
export const CRASH_TESTS_TIMEOUT_MS = 30 * 60_000;

/** How a run at a kill point ended. */
export interface KilledRun {
  readonly violations: readonly string[];
  /** False if the run ended without reaching its kill point. */
  readonly died: boolean;
}

/**
 * Runs `run` killed before and after each of the `commits` commits a baseline run (not killed)
 * made after the point where the runs arm their kill, or at `only` alone; returns every violation,
 * prefixed with its kill point. Runs repeat the baseline's commits (see the module comment), so a
 * run that ends without reaching its kill point is a failure too: it would leave boundaries unkilled.
 */
export async function everyKillPoint(run: (kill: KillPoint) => Promise<KilledRun>, commits: number, only?: KillPoint): Promise<string[]> {
  const points: KillPoint[] = [];
  for (let commit = 1; commit <= commits; commit++) for (const when of ["before", "after"] as const) points.push({ commit, when });
  const failures: string[] = [];
  for (const kill of only === undefined ? points : [only]) {
    const outcome = await run(kill);
    const at = `killed ${kill.when} commit ${String(kill.commit)}`;
    for (const v of outcome.violations) failures.push(`${at}: ${v}`);
    if (!outcome.died) failures.push(`${at}: the run ended without reaching it (the baseline made ${String(commits)} commits)`);
  }
  return failures;
}
