import { collectDefaultMetrics, Counter, Gauge, Registry } from "prom-client";
import type { SessionStats } from "@handoff/moq-relay";

/** The relay's Prometheus metrics, and the session stats that feed them. */
export class RelayMetrics implements SessionStats {
  /** The registry `/metrics` renders. */
  readonly registry = new Registry();
  readonly #sessions: Gauge;
  readonly #sessionsTotal: Counter<"transport">;
  readonly #rejected: Counter<"status">;
  readonly #subscriptions: Gauge;
  readonly #pending = { in: { groups: 0, frames: 0, bytes: 0 }, out: { groups: 0, frames: 0, bytes: 0 } };
  readonly #oversized: Counter;
  readonly #skipped: Counter;
  readonly #trackMoves: Counter<"reason">;
  readonly #dropped: Counter;
  readonly #incomplete: Counter;
  readonly #groupResets: Counter<"code">;
  readonly #goaways: Counter<"direction">;
  readonly #handovers: Counter<"outcome">;
  readonly #peers: Gauge;
  readonly #dials: Counter<"result">;
  readonly #handlerErrors: Counter<"where">;
  readonly #refused: Counter<"reason">;
  readonly #evicted: Counter<"budget">;
  readonly #budgetCloses: Counter;
  /** What the byte budget holds, read at scrape time. */
  #held: () => { readonly cached: number; readonly inbound: number } = () => ({ cached: 0, inbound: 0 });

  constructor() {
    const registers = [this.registry];
    this.#sessions = new Gauge({ name: "relay_sessions", help: "Open moq-lite sessions", registers });
    this.#sessionsTotal = new Counter({ name: "relay_sessions_total", help: "Sessions accepted", labelNames: ["transport"], registers });
    this.#rejected = new Counter({ name: "relay_rejected_total", help: "Connections refused before a session started", labelNames: ["status"], registers });
    this.#subscriptions = new Gauge({ name: "relay_subscriptions", help: "Downstream subscriptions being served", registers });
    // Per-frame counts are kept as plain numbers and handed to prom-client at scrape time: a
    // labelled inc() per frame per subscriber costs more than the rest of the fan-out bookkeeping.
    const pending = this.#pending;
    const flush = (counter: Counter<"direction">, key: "groups" | "frames" | "bytes"): void => {
      for (const direction of ["in", "out"] as const) {
        const delta = pending[direction][key];
        if (delta === 0) continue;
        counter.inc({ direction }, delta);
        pending[direction][key] = 0;
      }
    };
    // Registered in the registry, which is all a scrape needs of them.
    new Counter({
      name: "relay_groups_total",
      help: "Group streams",
      labelNames: ["direction"],
      registers,
      collect() {
        flush(this, "groups");
      },
    });
    new Counter({
      name: "relay_frames_total",
      help: "Frames",
      labelNames: ["direction"],
      registers,
      collect() {
        flush(this, "frames");
      },
    });
    new Counter({
      name: "relay_frame_bytes_total",
      help: "Frame payload bytes",
      labelNames: ["direction"],
      registers,
      collect() {
        flush(this, "bytes");
      },
    });
    this.#skipped = new Counter({ name: "relay_groups_skipped_total", help: "Groups skipped for slow subscribers", registers });
    this.#oversized = new Counter({ name: "relay_groups_oversized_total", help: "Publishers' groups aborted past the per-group byte limit", registers });
    this.#trackMoves = new Counter({
      name: "relay_track_routes_total",
      help: "Upstream copies a track started on (first) or resumed on after a route change (failover, handover)",
      labelNames: ["reason"],
      registers,
    });
    this.#dropped = new Counter({
      name: "relay_groups_dropped_total",
      help: "Groups gone (evicted or aborted) before a subscriber got them, reported with SUBSCRIBE_DROP",
      registers,
    });
    this.#incomplete = new Counter({
      name: "relay_groups_incomplete_total",
      help: "Groups that went downstream with frames missing and were reset (code 422) instead of finished",
      registers,
    });
    this.#groupResets = new Counter({
      name: "relay_groups_reset_total",
      help: "Group streams the relay reset, by code: 430 skipped for a slow subscriber, 0 cancelled with the subscription, 422 incomplete, or the peer's code when it stopped one",
      labelNames: ["code"],
      registers,
    });
    this.#goaways = new Counter({ name: "relay_goaway_total", help: "GOAWAY messages sent and received", labelNames: ["direction"], registers });
    this.#handovers = new Counter({
      name: "relay_handovers_total",
      help: "Redirected peer links closed: migrated (every track moved) or deadline (the handover deadline passed)",
      labelNames: ["outcome"],
      registers,
    });
    this.#peers = new Gauge({ name: "relay_cluster_peers", help: "Cluster peers with a live session", registers });
    this.#dials = new Counter({ name: "relay_cluster_dials_total", help: "Dials to cluster peers", labelNames: ["result"], registers });
    this.#refused = new Counter({ name: "relay_announces_refused_total", help: "Peers' announces not taken", labelNames: ["reason"], registers });
    this.#evicted = new Counter({
      name: "relay_groups_evicted_total",
      help: "Cached groups evicted to keep a byte budget (track: one copy's maxTrackBytes; relay: the process's maxRelayBytes); their readers were told",
      labelNames: ["budget"],
      registers,
    });
    this.#budgetCloses = new Counter({
      name: "relay_budget_closes_total",
      help: "Sessions closed (429) because the relay's byte budget was full of data they were still sending",
      registers,
    });
    const held = (): { readonly cached: number; readonly inbound: number } => this.#held();
    new Gauge({
      name: "relay_held_bytes",
      help: "Bytes held from peers under the relay's byte budget: cached group payloads, and partial frames and messages being received",
      labelNames: ["kind"],
      registers,
      collect() {
        const now = held();
        this.set({ kind: "cached" }, now.cached);
        this.set({ kind: "inbound" }, now.inbound);
      },
    });
    this.#handlerErrors = new Counter({
      name: "relay_handler_errors_total",
      help: "Errors that escaped a connection's handler (that connection was closed)",
      labelNames: ["where"],
      registers,
    });
  }

  /** @inheritdoc */
  dropped(): void {
    this.#dropped.inc();
  }

  /** @inheritdoc */
  incomplete(): void {
    this.#incomplete.inc();
  }

  /** @inheritdoc */
  groupReset(code: number): void {
    this.#groupResets.inc({ code: String(code) });
  }

  /** A track started on, or moved to, an upstream copy. */
  trackMoved(reason: "first" | "failover" | "handover"): void {
    this.#trackMoves.inc({ reason });
  }

  /** A GOAWAY went out or came in. */
  goaway(direction: "sent" | "received"): void {
    this.#goaways.inc({ direction });
  }

  /** A redirected link was closed, after its tracks moved or at the deadline. */
  handover(outcome: "migrated" | "deadline"): void {
    this.#handovers.inc({ outcome });
  }

  /** A cluster peer's session came up (+1) or went (-1). */
  peer(delta: 1 | -1): void {
    this.#peers.inc(delta);
  }

  /** A dial to a cluster peer ended. */
  dial(result: "ok" | "failed"): void {
    this.#dials.inc({ result });
  }

  /** @inheritdoc */
  refused(reason: "path-parts"): void {
    this.#refused.inc({ reason });
  }

  /** `groups` cached groups were evicted to keep `budget`. */
  evicted(budget: "track" | "relay", groups: number): void {
    this.#evicted.inc({ budget }, groups);
  }

  /** A session was closed to keep the relay's byte budget. */
  budgetClosed(): void {
    this.#budgetCloses.inc();
  }

  /** Where the held-bytes gauge reads from. */
  holding(read: () => { readonly cached: number; readonly inbound: number }): void {
    this.#held = read;
  }

  /** An error escaped a connection's handler at `where` (the connection was closed). */
  handlerError(where: string): void {
    this.#handlerErrors.inc({ where });
  }

  /** A session started on `transport` (ws or tcp). */
  sessionOpened(transport: "ws" | "tcp"): void {
    this.#sessions.inc();
    this.#sessionsTotal.inc({ transport });
  }

  /** A session ended. */
  sessionClosed(): void {
    this.#sessions.dec();
  }

  /** A connection was refused with an HTTP status. */
  rejected(status: number): void {
    this.#rejected.inc({ status: String(status) });
  }

  /** @inheritdoc */
  group(direction: "in" | "out"): void {
    this.#pending[direction].groups += 1;
  }

  /** @inheritdoc */
  frame(direction: "in" | "out", bytes: number): void {
    const counts = this.#pending[direction];
    counts.frames += 1;
    counts.bytes += bytes;
  }

  /** @inheritdoc */
  subscription(delta: 1 | -1): void {
    this.#subscriptions.inc(delta);
  }

  /** @inheritdoc */
  skipped(): void {
    this.#skipped.inc();
  }

  /** @inheritdoc */
  oversized(): void {
    this.#oversized.inc();
  }

  /**
   * Adds the process's own metrics (prom-client's defaults: CPU, memory, GC, and the event-loop
   * delay as `nodejs_eventloop_lag_{p50,p90,p99,max}_seconds` since the previous scrape). Once per
   * process: the relay's entry point calls it, in-process test relays do not.
   */
  collectProcess(): void {
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 10 });
  }

  /** The exposition text. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  /** The exposition content type. */
  get contentType(): string {
    return this.registry.contentType;
  }
}
