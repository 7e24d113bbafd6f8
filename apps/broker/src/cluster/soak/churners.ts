/**
 * The churned client ids of the fault suite, as in the takeover churn
 * (e2e/takeover-churn.test-helpers.ts): each id connects again and again, each connection on the
 * next node of the ring and taking over the one before, clean and resuming by a fixed cycle, some
 * connections acknowledging slowly or never; each new session subscribes to a topic of its id that
 * neither of the two sessions before it had. Unlike there, faults happen meanwhile, so:
 * - A step goes to the next node that is up (the cluster takes a node out before a fault).
 * - An attempt can fail. Refused for sure (CONNACK error, TCP refused) changes nothing; uncertain
 *   (no CONNACK after the CONNECT may have arrived) leaves the session open either way, so the
 *   Session Present of the next connection and the loss check of the session are left out.
 * - A session is owed what was acknowledged before it ends only if it could read it: before a
 *   step ends a session whose last connection was cut by a fault (or was stalled), a resuming
 *   connection is inserted that empties it first; a session that ends with its connection
 *   (expiry 0) and was cut is owed what was acknowledged until {@link CUT_GRACE_MS} before the cut.
 * - Some ids carry wills (QoS 1, a topic per attempt): without delay, or with a delay longer than
 *   the run (which a resume cancels and a clean start fires, see history-check.ts).
 * @module
 */
import mqtt, { type MqttClient } from "mqtt";
import type { ClusterProcesses } from "./cluster-processes.js";
import type { FaultTimeline } from "./fault-timeline.js";
import { missingFrom, type ChurnHistory, type Connection, type Lifetime, type Mode, type SentMessage, type WillPlan } from "./history.js";

const RESUME: Mode = { clean: false, expiry: 300 };
const CLEAN: Mode = { clean: true, expiry: 0 };
const FRESH_KEPT: Mode = { clean: true, expiry: 300 }; // a new session that outlives its connection
const RESUME_ENDING: Mode = { clean: false, expiry: 0 }; // resumes, then ends with this connection
/** The takeover churn's MQTT 5 cycle: every kind of transition, each id from its own offset. */
const CYCLE: readonly Mode[] = [RESUME, RESUME, CLEAN, RESUME, FRESH_KEPT, RESUME, RESUME_ENDING, RESUME, RESUME_ENDING, CLEAN];
export const resumable = (mode: Mode): boolean => mode.expiry > 0;

/** A session that ends with a cut connection was owed what was acknowledged this long before the cut. */
export const CUT_GRACE_MS = 2000;
/** A delay no run reaches: the will waits for a resume (cancelled) or a clean start (fired). */
export const LONG_WILL_DELAY_S = 3600;
const CONNECT_TIMEOUT_MS = 15_000; // longer than any Redis outage: the CONNECT waits it out
const SUBACK_TIMEOUT_MS = 15_000;
const DRAIN_MS = 5000;
const DRAIN_LIMIT_MS = 60_000;

/** What the churners need of the run. */
export interface ChurnContext {
  readonly clock: () => number;
  readonly cluster: Pick<ClusterProcesses, "names" | "pick" | "step" | "url">;
  readonly timeline: FaultTimeline;
  readonly history: ChurnHistory;
  /** The messages sent to id `id`'s topics, in order. */
  readonly published: (id: number) => readonly SentMessage[];
  readonly topicOf: (id: number, which: number) => string;
  readonly willTopic: (clientId: string, attempt: number) => string;
  /** Keeps a client for the end of the run. */
  readonly track: (client: MqttClient) => void;
}

/** Which ids carry wills, and which delay. */
export function willDelayOf(id: number): number | undefined {
  return id % 4 === 0 ? 0 : id % 4 === 2 ? LONG_WILL_DELAY_S : undefined;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** One id's state between its steps. */
export class ChurnedId {
  step = 0;
  last: Connection | undefined;
  /** The client of `last`. */
  client: MqttClient | undefined;
  lifetime: Lifetime | undefined;
  /** An uncertain attempt came after `last`. */
  uncertain = false;
  readonly clientId: string;
  readonly attempts: Connection[];
  readonly lifetimes: Lifetime[];

  constructor(
    readonly ctx: ChurnContext,
    readonly id: number,
  ) {
    this.clientId = `soak-${String(id)}`;
    this.attempts = ctx.history.attempts[id] ?? [];
    this.lifetimes = ctx.history.lifetimes[id] ?? [];
  }

  /** Whether `c` is open, served by a node that was never killed or stopped since, and reading. */
  drainable(c: Connection): boolean {
    return c.outcome === "connected" && c.closed === undefined && !c.stalled && this.ctx.timeline.cutOf(c.node, c.connected ?? c.started) === undefined;
  }

  /** When `c` stopped being served: its close, or its node's fault. */
  cutOf(c: Connection): number {
    return Math.min(c.closed ?? Infinity, this.ctx.timeline.cutOf(c.node, c.connected ?? c.started) ?? Infinity, this.ctx.clock());
  }

  async #waitFor(l: Lifetime, c: Connection): Promise<void> {
    const { clock, timeline } = this.ctx;
    const started = clock();
    const published = this.ctx.published(this.id);
    const patient = (): boolean => clock() - started < DRAIN_LIMIT_MS && (clock() - started < DRAIN_MS || timeline.unsettled(clock(), 3000));
    while (missingFrom(l, published) > 0 && this.drainable(c) && patient()) await sleep(10);
  }

  /**
   * Gives `l` what it is owed through its last connection; false when that connection cannot read
   * (cut, closed, stalled) and a resuming one was tried instead (the caller tries again). A session
   * that ends with its connection is owed only what came well before the cut.
   */
  async drain(l: Lifetime): Promise<boolean> {
    const c = this.last;
    if (c === undefined) return true;
    if (this.drainable(c)) {
      await this.#waitFor(l, c);
      // Everything came, or it never will through a connection that stayed able to read.
      if (this.drainable(c) || missingFrom(l, this.ctx.published(this.id)) === 0) return true;
    }
    if (!resumable(c.mode)) {
      l.end = Math.min(l.end, this.cutOf(c) - CUT_GRACE_MS);
      return true;
    }
    if (!(await this.attempt(RESUME, false, true))) await sleep(150);
    return false;
  }

  /** Churns while `going()`. */
  async run(going: () => boolean): Promise<void> {
    while (going()) {
      const mode = CYCLE[(this.id + this.step) % CYCLE.length] ?? RESUME;
      const next = CYCLE[(this.id + this.step + 1) % CYCLE.length] ?? RESUME;
      const { last, lifetime } = this;
      const resumes = !mode.clean && last !== undefined && resumable(last.mode);
      if (lifetime !== undefined && last !== undefined && !resumes) {
        // This step ends the session: what was acknowledged until now (the first time it is
        // decided) must reach it first.
        lifetime.end = Math.min(lifetime.end, this.ctx.clock());
        if (!(await this.drain(lifetime))) continue;
      }
      // Only a connection the next one resumes may stall (a session that ends is drained first).
      const stalled = (this.id + this.step) % 3 === 0 && !next.clean && resumable(mode);
      const ok = await this.attempt(mode, stalled, false);
      this.step += 1;
      await sleep(ok ? 40 + ((this.id * 37 + this.step * 53) % 200) : 150);
    }
  }

  /** After the load: leaves the last session drainable (a resume if needed), or its end set. */
  async finish(): Promise<void> {
    for (let tries = 0; tries < 20; tries++) {
      const { last, lifetime } = this;
      if (last === undefined || lifetime === undefined || this.drainable(last)) return;
      if (await this.drain(lifetime)) return;
    }
  }

  /** One connection attempt on the next node up; true when it connected. */
  attempt(mode: Mode, stalled: boolean, drain: boolean): Promise<boolean> {
    const node = this.ctx.cluster.pick(this.id + this.step);
    return this.ctx.cluster.step(node, () => this.#attemptOn(node, mode, stalled, drain));
  }

  async #attemptOn(node: number, mode: Mode, stalled: boolean, drain: boolean): Promise<boolean> {
    const { ctx, id, clientId } = this;
    const nodeName = ctx.cluster.names[node] ?? "?";
    const delay = willDelayOf(id);
    const will: WillPlan | undefined = delay === undefined ? undefined : { topic: ctx.willTopic(clientId, this.attempts.length), delaySeconds: delay };
    const conn: Connection = { clientId, id, attempt: this.attempts.length, node: nodeName, mode, will, drain, stalled, started: ctx.clock(), outcome: "pending", got: [] };
    this.attempts.push(conn);
    const client = mqtt.connect(ctx.cluster.url(node), {
      clientId,
      protocolVersion: 5,
      clean: mode.clean,
      properties: { sessionExpiryInterval: mode.expiry },
      reconnectPeriod: 0,
      connectTimeout: CONNECT_TIMEOUT_MS,
      resubscribe: false,
      ...(will === undefined ? {} : { will: { topic: will.topic, payload: Buffer.from(will.topic), qos: 1, retain: false, properties: { willDelayInterval: will.delaySeconds } } }),
    });
    ctx.track(client);
    client.on("message", (topic, payload, packet) => {
      conn.got.push({ topic, payload: payload.toString(), retain: packet.retain, qos: packet.qos, dup: packet.dup, at: ctx.clock(), node: nodeName });
    });
    client.on("disconnect", (packet) => {
      conn.serverDisconnect ??= packet.reasonCode ?? 0;
    });
    pace(client, stalled ? "stalled" : (id + this.step) % 3 === 1 ? "slow" : "prompt");
    const result = await settle(client);
    client.on("error", () => undefined);
    client.on("close", () => {
      conn.closed ??= ctx.clock();
    });
    if (result.kind !== "connected") {
      conn.outcome = result.kind;
      conn.failure = result.why;
      client.end(true);
      if (result.kind === "uncertain") {
        this.uncertain = true;
        if (this.lifetime !== undefined) this.lifetime.unchecked ??= `attempt ${String(conn.attempt)} on ${nodeName} at ${String(Math.round(conn.started))} ms was uncertain (${result.why})`;
      }
      return false;
    }
    conn.outcome = "connected";
    conn.connected = ctx.clock();
    conn.sessionPresent = result.sessionPresent;
    const expected = this.uncertain ? undefined : this.last !== undefined && resumable(this.last.mode) && !mode.clean;
    conn.expectedPresent = expected;
    const current = this.lifetime;
    // Which session this connection is: the one expected, or, when that is open, the one it got.
    if ((expected ?? result.sessionPresent) && current !== undefined) current.connections.push(conn);
    else {
      const filter = ctx.topicOf(id, this.lifetimes.length);
      const l: Lifetime = { name: `${clientId}#${String(this.lifetimes.length)}`, id, filter, connectSent: conn.started, subscribeSent: ctx.clock(), subscribed: Infinity, connections: [conn], end: Infinity };
      if (current?.end === Infinity) current.end = conn.started;
      this.lifetimes.push(l);
      this.lifetime = l;
      const answer = await Promise.race([client.subscribeAsync(filter, { qos: 1 }).then(() => "ok" as const, () => "failed" as const), sleep(SUBACK_TIMEOUT_MS).then(() => "none" as const)]);
      if (answer === "ok") l.subscribed = ctx.clock();
      // No answer on a connection that stayed open on a node that was never stopped: stuck.
      else if (answer === "none" && this.drainable({ ...conn, stalled: false })) l.subackTimedOut = true;
    }
    this.last = conn;
    this.client = client;
    this.uncertain = false;
    return true;
  }
}

/**
 * How a connection acknowledges: at once (MQTT.js's default), 15 ms late per message, or never.
 * MQTT.js handles one message at a time and sends its PUBACK when `handleMessage` calls back, so a
 * late or stalled connection reads nothing more meanwhile.
 */
function pace(client: MqttClient, acks: "prompt" | "slow" | "stalled"): void {
  if (acks === "slow") {
    client.handleMessage = (_packet, callback) => {
      setTimeout(callback, 15);
    };
  } else if (acks === "stalled") {
    client.handleMessage = () => undefined;
  }
}

type Settled = { readonly kind: "connected"; readonly sessionPresent: boolean } | { readonly kind: "refused" | "uncertain"; readonly why: string };

// The first of CONNACK, an error or a close; a CONNACK error and a refused TCP connection are
// answers (the broker changed nothing), anything else leaves it open whether the CONNECT counted.
function settle(client: MqttClient): Promise<Settled> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      resolve({ kind: "uncertain", why: "no CONNACK in time" });
    }, CONNECT_TIMEOUT_MS + 5000);
    const done = (s: Settled): void => {
      clearTimeout(timer);
      resolve(s);
    };
    client.once("connect", (connack) => {
      done({ kind: "connected", sessionPresent: connack.sessionPresent });
    });
    client.once("error", (err) => {
      const code = (err as { code?: unknown }).code;
      if (typeof code === "number") done({ kind: "refused", why: `CONNACK 0x${code.toString(16)}` });
      else if (code === "ECONNREFUSED") done({ kind: "refused", why: "ECONNREFUSED" });
      else done({ kind: "uncertain", why: err.message });
    });
    client.once("close", () => {
      done({ kind: "uncertain", why: "closed before CONNACK" });
    });
  });
}
