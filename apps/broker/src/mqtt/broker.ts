/**
 * The broker core of the app: one router, the access hooks, and a handler per connection.
 * Listeners hand it transports; a timer drives keep alive, will delays and session expiry.
 * @module
 */
import { randomUUID } from "node:crypto";
import { FlowControl, PublishTemplates, ReasonCode, Router, type ClientSession, type Hold, type ProtocolOptions, type RouterOptions, type RouterSnapshot, type RouterStore } from "@handoff/mqtt-router";
import { GenerationAllocator, type Clock } from "@handoff/seqlog";
import type { Logger } from "pino";
import { allowAll, type AccessControl } from "../auth/access.js";
import { ClientHandler, type Durability, type HandlerContext } from "./client-handler.js";
import type { ConnectionEvents, ConnectionInfo } from "./connection-info.js";
import { BrokerCounters } from "./counters.js";
import { DeniedSummary, LimitSummary } from "./log-summary.js";
import { SLICE_BYTES, type Transport, type TransportEvents } from "./transport.js";
import { subscribeInTurns } from "./paced-subscribe.js";
import { STREAM_BACKLOG } from "./stream-backlog.js";
import { TurnClock } from "./turn-clock.js";

/** Broker settings the core needs (listeners are configured separately). */
export interface BrokerOptions {
  readonly log: Logger;
  readonly access?: AccessControl;
  /** Wall clock by default: session and message expiry must survive restarts. */
  readonly clock?: Clock;
  /** Per-connection protocol limits (receive maximum, packet size, aliases, keep alive...). */
  readonly protocol?: Omit<ProtocolOptions, "clock" | "generateClientId">;
  /** Router settings (queue bounds, overflow policy, expiry cap). */
  readonly router?: Omit<RouterOptions, "clock" | "store">;
  /**
   * A durable store: it records every change the router makes, and acknowledgements wait for its
   * commits. Without one, state lives in memory only.
   */
  readonly store?: RouterStore & Durability;
  /** What the store held at startup, restored before any client connects. */
  readonly restore?: RouterSnapshot;
  /**
   * A cluster's session handoff (see `ClientSessionOptions.loadSession`): brings the router's copy
   * of a connecting client's session up to date from the shared store before the claim.
   */
  readonly loadSession?: (router: Router<ClientSession<ClientHandler>>, clientId: string) => Promise<void>;
  /** Most simultaneous connections; a connection beyond it is closed at once and logged. */
  readonly maxConnections?: number;
  /** Buffered bytes above which QoS 0 deliveries to a slow client are dropped. Default 64 KiB. */
  readonly qos0HighWaterBytes?: number;
  /**
   * Most unacknowledged QoS 1/2 deliveries per client, whatever Receive Maximum it announces
   * (3.1.1 clients announce none, i.e. 65535). Default 100.
   */
  readonly outboundInflight?: number;
  /** Unsent bytes a client may hold before it is dropped as not reading. Default 16 MiB. */
  readonly maxClientBuffer?: number;
  /**
   * How long a congested subscriber may hold its publishers back (flow control) before it is
   * disconnected as stalled, ms. Default 5000.
   */
  readonly stallMs?: number;
  /**
   * A cluster's routes stream is past its backlog bound: publishers told of `STREAM_BACKLOG`
   * congestion wait while this is true (released each tick once false; the stall budget releases
   * them for one more window at most each budget).
   */
  readonly streamBacklogged?: () => boolean;
  /** How often timers run, ms. Default 1000. */
  readonly tickMs?: number;
  /** Told of accepted and ended connections. */
  readonly events?: ConnectionEvents;
  /** Bounds on a client's keep alive, seconds: outside them the server imposes the bound (Server Keep Alive). */
  readonly keepAlive?: { readonly min: number; readonly max: number };
}

/** The setting behind each limit name of `limitsExceeded`, for the log. */
const LIMIT_SETTINGS: Readonly<Record<string, string>> = {
  connections: "limits.maxConnections",
  sessions: "limits.maxSessions",
  "subscriptions-per-session": "limits.maxSubscriptionsPerSession",
  "retained-messages": "limits.maxRetainedMessages",
  "retained-bytes": "limits.maxRetainedBytes",
  "bytes-before-connack": "limits.maxBytesBeforeConnack",
  "filters-per-subscribe": "limits.maxFiltersPerSubscribe",
  "packet-size": "limits.maxPacketSize",
};

/** The broker core. */
export class Broker {
  readonly router: Router<ClientSession<ClientHandler>>;
  readonly counters = new BrokerCounters();
  readonly #ctx: HandlerContext;
  readonly #handlers = new Set<ClientHandler>();
  readonly #transports = new Map<ClientHandler, Transport>();
  readonly #maxConnections: number;
  readonly #timer: NodeJS.Timeout;
  readonly #denied: DeniedSummary;
  readonly #limitLog: LimitSummary;
  #closing = false;

  constructor(options: BrokerOptions) {
    const clock = options.clock ?? new TurnClock();
    this.router = new Router({
      clock,
      generations: new GenerationAllocator({ wallClockMs: Date.now() }),
      ...options.router,
      ...(options.store === undefined ? {} : { store: options.store }),
    });
    if (options.restore !== undefined) this.router.restore(options.restore);
    this.#maxConnections = options.maxConnections ?? Number.POSITIVE_INFINITY;
    this.#denied = new DeniedSummary(options.log, clock.now());
    this.#limitLog = new LimitSummary(options.log, () => this.limitsExceeded(), LIMIT_SETTINGS, clock.now());
    // Inbound topic aliases on by default (mosquitto's default maximum is 10 too).
    // A socket that never completes CONNECT is closed after 10 s, as mosquitto does.
    // Input is processed at most one listener slice per call, like the listeners hand it in: a
    // burst held before CONNACK is then answered over several turns, not in one.
    const protocol: ProtocolOptions = {
      topicAliasMaximum: 10,
      connectTimeoutMs: 10_000,
      inputBudgetBytes: SLICE_BYTES,
      ...options.protocol,
      clock,
      generateClientId: () => `handoff-${randomUUID()}`,
    };
    this.#ctx = {
      router: this.router,
      clock,
      log: options.log,
      access: options.access ?? allowAll,
      counters: this.counters,
      session: {
        clock,
        protocol,
        commits: options.store,
        ...(options.loadSession === undefined ? {} : { loadSession: (clientId: string) => options.loadSession?.(this.router, clientId) ?? Promise.resolve() }),
        qos0HighWaterBytes: options.qos0HighWaterBytes ?? 64 * 1024,
        outboundInflight: options.outboundInflight ?? 100,
        keepAlive: options.keepAlive ?? { min: 0, max: 65_535 },
        // Many filters over a large retained store take several turns of the event loop.
        subscribe: subscribeInTurns,
      },
      templates: new PublishTemplates(),
      flow: new FlowControl((clientId) => (clientId === STREAM_BACKLOG ? (options.streamBacklogged?.() ?? false) : this.router.backlogged(clientId)), options.stallMs ?? 5000),
      maxClientBuffer: options.maxClientBuffer ?? 16 * 1024 * 1024,
      denied: this.#denied,
      ...(options.events === undefined ? {} : { events: options.events }),
      defer: (handler, work) => {
        setImmediate(() => {
          if (this.#handlers.has(handler)) this.#guard(handler, work);
        });
      },
    };
    this.#timer = setInterval(() => {
      this.tick();
    }, options.tickMs ?? 1000);
    this.#timer.unref();
  }

  /**
   * Flow control for routing that is not a client's publish (a cluster's routes reader): a hold on
   * the subscribers in `congested` (an `ExecuteOutcome`'s) still backlogged, released as
   * they drain or when the stall budget cuts one off; undefined when there is nothing to wait for.
   */
  holdFor(congested: readonly string[]): Hold | undefined {
    return this.#ctx.flow.hold(congested, this.#ctx.clock.now());
  }

  /** Open client connections. */
  get connections(): number {
    return this.#handlers.size;
  }

  /** The accepted connections that own their sessions now (for operators), in no set order. */
  clients(): ConnectionInfo[] {
    const out: ConnectionInfo[] = [];
    for (const handler of this.#handlers) if (handler.info !== undefined && handler.owning) out.push(handler.info);
    return out;
  }

  /** The accepted connection that owns `clientId`'s session now, if any. */
  client(clientId: string): ConnectionInfo | undefined {
    return this.router.owner(clientId)?.host.info;
  }

  /**
   * Disconnects `clientId` on an operator's request: MQTT 5 clients get DISCONNECT 0x98
   * (Administrative action, or `reason`), 3.1.1 clients a close. The session stays, as after any
   * server-side disconnect (its will applies). False when no connection owns the id.
   */
  kick(clientId: string, reason: ReasonCode = ReasonCode.AdministrativeAction, text = "disconnected by an administrator"): boolean {
    const handler = this.router.owner(clientId)?.host;
    if (handler === undefined) return false;
    this.#guard(handler, () => {
      handler.disconnect(reason, text);
    });
    return true;
  }

  /** Resolves once the store has committed every change recorded so far (at once without one). */
  async committed(): Promise<void> {
    await this.#ctx.session.commits?.flush();
  }

  /** How often each limit refused something, by limit name: the connections' and the router's. */
  limitsExceeded(): Record<string, number> {
    return { ...this.counters.limitsExceeded, ...this.router.stats.limitsExceeded };
  }

  /** Wires a new client transport; returns the callbacks the transport reports to. */
  attach(transport: Transport): TransportEvents | undefined {
    if (this.#closing) {
      transport.destroy();
      return undefined;
    }
    // Over the limit, the connection still gets to send its CONNECT, so that it can be refused
    // with a reason (0x97 Quota exceeded; 3.1.1: 3 Server unavailable) instead of a bare close.
    // A bounded overshoot (a tenth of the limit) is allowed for that; beyond it, close at once.
    const open = this.#handlers.size;
    if (open >= this.#maxConnections * 1.1 + 10) {
      this.#ctx.log.warn({ remote: transport.remote, open }, "connection closed: far over the connection limit");
      transport.destroy();
      return undefined;
    }
    const handler = new ClientHandler(this.#ctx, transport, open >= this.#maxConnections);
    this.#handlers.add(handler);
    this.#transports.set(handler, transport);
    let closed = false;
    return {
      data: (chunk) => {
        this.#guard(handler, () => {
          handler.receive(chunk);
        });
      },
      closed: () => {
        if (closed) return;
        closed = true;
        this.#handlers.delete(handler);
        this.#transports.delete(handler);
        this.#guard(handler, () => {
          handler.transportClosed();
        });
      },
    };
  }

  /**
   * Runs `work` for one connection. An error escaping it is a bug, but it is that connection's:
   * it is logged and counted, and only that connection is dropped (its session released as on a
   * lost connection); every other client keeps being served.
   */
  #guard(handler: ClientHandler, work: () => void): void {
    try {
      work();
    } catch (err) {
      this.counters.handlerErrors += 1;
      this.#ctx.log.error({ err, clientId: handler.clientId }, "connection handler failed: closing that connection");
      const transport = this.#transports.get(handler);
      this.#handlers.delete(handler);
      this.#transports.delete(handler);
      transport?.destroy();
      try {
        handler.transportClosed();
      } catch (again) {
        this.#ctx.log.error({ err: again, clientId: handler.clientId }, "connection handler failed while closing");
      }
    }
  }

  /** Runs timers now: keep alive for every connection, then the router's wills and expiry. */
  tick(): void {
    const now = this.#ctx.clock.now();
    for (const handler of this.#handlers) {
      this.#guard(handler, () => {
        handler.tick(now);
      });
    }
    for (const event of this.router.tick()) this.#ctx.log.info(event, event.kind);
    this.#cutStalled(now);
    this.#denied.flush(now);
    this.#limitLog.flush(now);
  }

  // Flow control's budget: a subscriber that held publishers back too long is disconnected (0x97);
  // its session goes offline, where the queue's bounds and overflow policy apply.
  #cutStalled(now: number): void {
    const { flow, log, counters } = this.#ctx;
    for (const clientId of flow.stalled(now)) {
      const handler = this.router.owner(clientId)?.host;
      flow.release(clientId);
      if (handler === undefined) continue;
      counters.stalledSubscribersDisconnected += 1;
      log.warn({ clientId, queued: this.router.session(clientId)?.queue.count }, "subscriber disconnected: held its publishers back past the stall budget");
      handler.disconnect(ReasonCode.QuotaExceeded, "too slow: queue held publishers back");
    }
  }

  /**
   * Stops: every MQTT 5 client gets DISCONNECT 0x8B (Server shutting down) [MQTT-3.14.2], 3.1.1
   * clients a close; resolves once all connections are gone. Those still open after `graceMs` (a
   * client that neither reads nor closes its side) are destroyed then, and logged.
   */
  async close(graceMs = 2000): Promise<void> {
    this.#closing = true;
    clearInterval(this.#timer);
    for (const handler of this.#handlers) {
      this.#guard(handler, () => {
        handler.disconnect(ReasonCode.ServerShuttingDown);
      });
    }
    const deadline = Date.now() + graceMs;
    while (this.#handlers.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    if (this.#handlers.size === 0) return;
    this.#ctx.log.warn({ connections: this.#handlers.size, graceMs }, "shutdown: connections still open after the grace period destroyed");
    for (const transport of this.#transports.values()) transport.destroy();
    // The transports report their close (and the handlers release their sessions) as they go,
    // which a destroyed socket does on the next turns.
    const cut = Date.now() + 1000;
    while (this.#handlers.size > 0 && Date.now() < cut) await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
