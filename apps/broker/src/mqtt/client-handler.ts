/**
 * One client connection: bytes from the transport go into the protocol state machine; its
 * actions go out as bytes or become router calls; the router's deliveries come back in through
 * the {@link DeliverySink} this handler implements.
 *
 * Actions are performed strictly in order. Most effects are handled synchronously; the CONNECT
 * waits for authentication (scrypt is asynchronous), and everything behind it waits too.
 * @module
 */
import {
  MqttConnection,
  ReasonCode,
  type Action,
  type ConnectRequestEffect,
  type DeliverySink,
  type Effect,
  type OutboundPublish,
  type ProtocolOptions,
  type PublishEffect,
  type Router,
  type SubscribeEffect,
  type SubscribeGrant,
} from "@handoff/mqtt-router";
import type { Clock } from "@handoff/seqlog";
import type { Logger } from "pino";
import type { AccessControl, ClientIdentity, EnhancedExchange, EnhancedStep } from "./access.js";
import type { ConnectionInfo } from "./connection-info.js";
import type { BrokerCounters } from "./counters.js";
import type { FlowControl, Hold } from "./flow-control.js";
import { HeldLane } from "./held-lane.js";
import type { DeniedSummary } from "./log-summary.js";
import { subscribeInTurns } from "./paced-subscribe.js";
import type { PublishTemplates } from "./publish-templates.js";
import type { Transport } from "./transport.js";

/** What every handler shares: the router, the access hooks, the registry of owners. */
export interface HandlerContext {
  readonly router: Router;
  readonly clock: Clock;
  readonly log: Logger;
  readonly access: AccessControl;
  readonly counters: BrokerCounters;
  readonly protocol: ProtocolOptions;
  /** The handler that currently owns each client id. */
  readonly owners: Map<string, ClientHandler>;
  /** Above this many buffered bytes, QoS 0 deliveries to the client are dropped (and counted). */
  readonly qos0HighWaterBytes: number;
  /** Keep alive bounds in seconds; a client outside them gets the bound as Server Keep Alive. */
  readonly keepAlive: { readonly min: number; readonly max: number };
  /**
   * Cap on a client's unacknowledged QoS 1/2 deliveries, below its Receive Maximum: the rest waits
   * on the session queue, where the overflow policy can still act on it.
   */
  readonly outboundInflight: number;
  /**
   * The durable store's commit, when there is one: an acknowledgement (CONNACK, SUBACK,
   * PUBACK/PUBREC, PUBCOMP) goes out only after the commit covering what it promises.
   */
  readonly durability: Durability | undefined;
  /** Encodings shared by the copies of a message fanned out to many clients. */
  readonly templates: PublishTemplates;
  /** Holds on publishers feeding congested subscribers. */
  readonly flow: FlowControl;
  /** Unsent bytes a client may hold before it is dropped as not reading. */
  readonly maxClientBuffer: number;
  /** Publishes and subscriptions the ACL denied, summed up in the log once per interval. */
  readonly denied: DeniedSummary;
  /** Runs `work` for `handler` on a later turn of the event loop, under the broker's error guard. */
  readonly defer: (handler: ClientHandler, work: () => void) => void;
}

/** Waits for the store to commit every change recorded so far. */
export interface Durability {
  /**
   * Settles once every change recorded before the call is committed. A store may hand several
   * calls the same promise (SqliteStore does, one per pending batch); it must then settle it only
   * once everything recorded before the last of those calls is committed, since the handler adds
   * no further wait behind a barrier on a promise it already waits for.
   */
  flush(): Promise<void>;
  /**
   * False while the store cannot take more (commits failing, too much uncommitted): new QoS 1/2
   * publishes are refused with 0x97 Quota exceeded meanwhile. Absent: always true.
   */
  readonly admitting?: boolean;
}

// The keep alive the server imposes, if the client's is outside the bounds (0 means "none", which
// counts as above any finite maximum).
function imposedKeepAlive(asked: number, bounds: { readonly min: number; readonly max: number }): number | undefined {
  if (asked === 0) return bounds.max < 65_535 ? bounds.max : undefined;
  if (asked < bounds.min) return bounds.min;
  if (asked > bounds.max) return bounds.max;
  return undefined;
}

/**
 * A point in a connection's output that waits for the store's commit of every change recorded
 * before it: the QoS 1/2 PUBLISH or PUBREL behind it promises session state (the delivery is
 * routed, has its packet id, is in the PUBREL phase) that a crash must not take back once the
 * client has seen it.
 */
interface CommitBarrier {
  readonly kind: "commit";
  readonly committed: Promise<void>;
}

type Step = Action | CommitBarrier;

// A payload decoded from a socket chunk is a view into that chunk; a message kept on a queue must
// not pin the whole chunk, so it gets its own copy unless it already is the whole buffer. Not
// `bytes.slice()`: on a Node Buffer (what sockets deliver) that is a view as well.
function own(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);
}

const PROTOCOL_NAMES = { 3: "MQTT 3.1", 4: "MQTT 3.1.1", 5: "MQTT 5.0" } as const;

/** Handles one client connection. */
export class ClientHandler implements DeliverySink {
  readonly #ctx: HandlerContext;
  readonly #transport: Transport;
  readonly #conn: MqttConnection;
  readonly #pending: Step[] = [];
  #head = 0;
  #busy = false;
  #identity: ClientIdentity | undefined;
  #info: ConnectionInfo | undefined;
  /** The flow control wait this handler is in, if any (see held-lane.ts). */
  #hold: Hold | undefined;
  readonly #lane = new HeldLane();
  /** What passed the hold (held-lane.ts), with the commit barriers it must still wait for. */
  readonly #laneSteps: Step[] = [];
  /** The commit the last barrier put in #pending waits for (see #barrier). */
  #pendingTicket: Promise<void> | undefined;
  /** The same for #laneSteps. */
  #laneTicket: Promise<void> | undefined;
  #laneBusy = false;
  #readingPaused = false;
  #resumeInputScheduled = false;
  /** The CONNECT's verdict (authentication, session claim) is being awaited. */
  #awaitingVerdict = false;
  /** Acknowledgements waiting for a commit: a refusal must not overtake them [MQTT-4.6.0-2]. */
  #acksWaiting = 0;
  /** Inbound QoS 2 ids refused for storage: their release needs no commit before the PUBREC. */
  readonly #refusedQos2 = new Set<number>();
  #generation: number | undefined;
  /** An enhanced authentication exchange under way during CONNECT. */
  #enhanced: { readonly request: ConnectRequestEffect; readonly exchange: EnhancedExchange } | undefined;

  readonly #overLimit: boolean;

  /** @param overLimit the broker is at its connection limit: refuse the CONNECT with 0x97 */
  constructor(ctx: HandlerContext, transport: Transport, overLimit = false) {
    this.#ctx = ctx;
    this.#transport = transport;
    this.#overLimit = overLimit;
    this.#conn = new MqttConnection(ctx.protocol);
    ctx.counters.connectionsTotal += 1;
    ctx.counters.connectionsOpen += 1;
  }

  /** The client id, once CONNECT was accepted. */
  get clientId(): string | undefined {
    return this.#identity?.clientId;
  }

  /** Who is connected, from where and how, once CONNECT was accepted (for operators). */
  get info(): ConnectionInfo | undefined {
    return this.#info;
  }

  /** Bytes from the client. */
  receive(chunk: Uint8Array): void {
    this.#ctx.counters.bytesReceived += chunk.byteLength;
    if (this.#lane.noteInput(chunk.byteLength) && !this.#readingPaused) {
      this.#readingPaused = true;
      this.#transport.pauseReading();
    }
    this.#conn.receiveBytes(chunk);
    this.#flush();
  }

  /** The transport is gone (the client closed it, or it failed). */
  transportClosed(): void {
    this.#hold?.cancel();
    this.#conn.connectionLost();
    this.#flush();
  }

  /** Drives keep alive and connect timeouts. */
  tick(now: number): void {
    this.#conn.tick(now);
    this.#flush();
  }

  /** Ends the connection from the server side with a DISCONNECT reason code (v5) or a close. */
  disconnect(reasonCode: number, reasonString?: string): void {
    this.#hold?.cancel();
    this.#conn.disconnect(reasonCode, reasonString);
    this.#flush();
  }

  #flush(): void {
    this.#take(this.#conn.drain());
    if (this.#awaitingVerdict && this.#generation === undefined && this.#conn.phase === "closed") this.#endBeforeVerdict();
    this.#run();
  }

  // The connection ended while its CONNECT's verdict is awaited, before any session was claimed
  // (too much sent before CONNACK, the connect deadline, the socket gone): its answer and close go
  // out now, not after a password check that may take long. Nothing else is queued then.
  #endBeforeVerdict(): void {
    for (const step of this.#pending.splice(this.#head)) {
      if (step.kind === "send") this.#send(step.bytes);
      else if (step.kind === "close") this.#transport.close();
      else if (step.kind === "effect" && step.effect.kind === "closed") void this.#effect(step.effect);
    }
  }

  // Queues actions in order; while held for flow control, deliveries to this client and its acks
  // of them go at once instead (held-lane.ts).
  #take(actions: readonly Step[]): void {
    for (const action of actions) {
      if (action.kind === "commit") {
        // A barrier taken again when a hold starts holds back the lane as well.
        if (this.#lane.held) {
          this.#laneSteps.push(action);
          this.#laneTicket = action.committed;
        }
        this.#pending.push(action);
      } else if (this.#lane.passes(action)) {
        this.#laneSteps.push(action);
        this.#runLane();
      } else this.#pending.push(action);
    }
  }

  // Performs what passed a flow control wait, in order. The lane bypasses the publisher's hold,
  // never a commit barrier: a delivery waits for its commit here too, and so does the PUBREL after
  // a delivery-received effect (the effect's wait is the commit of the PUBREL phase).
  #runLane(): void {
    if (this.#laneBusy) return;
    this.#laneBusy = true;
    for (;;) {
      const step = this.#laneSteps.shift();
      if (step === undefined) break;
      const waiting = step.kind === "commit" ? step.committed : this.#perform(step);
      if (waiting !== undefined) {
        waiting.then(
          () => {
            this.#laneBusy = false;
            this.#runLane();
          },
          (err: unknown) => {
            this.#laneBusy = false;
            this.#withhold(err);
            this.#flush();
          },
        );
        return; // the lane stays busy until the wait settles
      }
    }
    this.#laneBusy = false;
  }

  // Performs an action that passes a flow control wait: a send, or an effect (its wait, if any).
  #perform(action: Action): Promise<void> | undefined {
    if (action.kind === "send") this.#send(action.bytes);
    else if (action.kind === "effect") return this.#effect(action.effect);
    return undefined;
  }

  #send(bytes: Uint8Array): void {
    const transport = this.#transport;
    // A client that stopped reading is dropped once its unsent output passes the cap (issue #17.8).
    if (transport.buffered > this.#ctx.maxClientBuffer) {
      this.#ctx.counters.slowClientsDropped += 1;
      this.#ctx.log.warn({ clientId: this.clientId, buffered: transport.buffered, remote: transport.remote }, "client dropped: not reading its output");
      transport.destroy();
      return;
    }
    this.#ctx.counters.bytesSent += bytes.byteLength;
    transport.write(bytes);
  }

  // Input the connection holds back for its budget (a burst sent before CONNACK) is taken one
  // budget per event-loop turn, so every other connection is served in between.
  #resumeInputLater(): void {
    if (this.#resumeInputScheduled || !this.#conn.backlogged) return;
    this.#resumeInputScheduled = true;
    this.#ctx.defer(this, () => {
      this.#resumeInputScheduled = false;
      this.#conn.resume();
      this.#flush();
    });
  }

  // Performs pending actions in order; stops at an effect that has to wait, and resumes after it.
  #run(): void {
    this.#resumeInputLater();
    if (this.#busy) return;
    this.#busy = true;
    for (;;) {
      const action = this.#pending[this.#head];
      if (action === undefined) break;
      this.#head += 1;
      switch (action.kind) {
        case "send":
          this.#send(action.bytes);
          break;
        case "close":
          this.#transport.close();
          break;
        case "commit":
          action.committed.then(
            () => {
              this.#resume();
            },
            (err: unknown) => {
              this.#withhold(err);
              this.#resume();
            },
          );
          return; // stays busy until the commit settles
        case "effect": {
          const waiting = this.#effect(action.effect);
          this.#take(this.#conn.drain());
          if (waiting !== undefined) {
            waiting.then(
              () => {
                this.#resume();
              },
              (err: unknown) => {
                this.#ctx.log.error({ err, clientId: this.clientId }, "connection handler failed");
                this.#conn.disconnect(ReasonCode.UnspecifiedError);
                this.#resume();
              },
            );
            return; // stays busy until the effect settles
          }
          break;
        }
        default: {
          const never: never = action;
          throw new Error(`unknown action ${String(never)}`);
        }
      }
    }
    this.#pending.length = 0;
    this.#head = 0;
    this.#busy = false;
  }

  // Runs `then` once everything recorded so far is committed (at once without a durable store).
  // Commits resolve in order, so acknowledgements keep the order of the packets they answer.
  // A failed commit sends no acknowledgement: the client gets DISCONNECT 0x80 and may retry.
  #afterCommit(then: () => void): void {
    const durability = this.#ctx.durability;
    if (durability === undefined) {
      then();
      return;
    }
    this.#acksWaiting += 1;
    durability.flush().then(
      () => {
        this.#acksWaiting -= 1;
        then();
        this.#flush();
      },
      (err: unknown) => {
        this.#acksWaiting -= 1;
        this.#ctx.log.error({ err, clientId: this.clientId }, "store commit failed: no acknowledgement sent");
        this.#conn.disconnect(ReasonCode.UnspecifiedError, "storage unavailable");
        this.#flush();
      },
    );
  }

  // The commit behind a barrier failed: what waited for it must not reach the client, which is
  // disconnected (0x80) and gets it again, from what is stored, when it comes back.
  #withhold(err: unknown): void {
    this.#ctx.log.error({ err, clientId: this.clientId }, "store commit failed: deliveries withheld");
    const rest = this.#pending.splice(this.#head).filter((step) => step.kind !== "send");
    for (const step of rest) this.#pending.push(step);
    const lane = this.#laneSteps.splice(0).filter((step) => step.kind !== "send");
    for (const step of lane) this.#laneSteps.push(step);
    this.#conn.disconnect(ReasonCode.UnspecifiedError, "storage unavailable");
  }

  // Output from here on waits for the commit of what the router recorded so far. The store hands
  // out one ticket per pending batch: while it is the ticket of the last barrier in a queue, that
  // barrier is still ahead (a barrier is passed only once its commit settled, which ends the
  // ticket) and covers this change too, so no further stop is added.
  #barrier(): void {
    const durability = this.#ctx.durability;
    if (durability === undefined) return;
    const committed = durability.flush();
    const barrier: CommitBarrier = { kind: "commit", committed };
    if (this.#lane.held) {
      // What follows may pass the hold through the lane or wait behind it: both wait for the
      // commit. Nothing is drained here: the lane may be performing, and order must hold.
      if (this.#laneTicket !== committed) {
        this.#laneSteps.push(barrier);
        this.#laneTicket = committed;
      }
    } else {
      for (const next of this.#conn.drain()) this.#pending.push(next);
    }
    if (this.#pendingTicket !== committed) {
      this.#pending.push(barrier);
      this.#pendingTicket = committed;
    }
  }

  #resume(): void {
    this.#busy = false;
    this.#take(this.#conn.drain());
    this.#run();
  }

  #effect(effect: Effect): Promise<void> | undefined {
    const { router } = this.#ctx;
    const id = this.#identity;
    const generation = this.#generation;
    switch (effect.kind) {
      case "connect-request":
        this.#awaitingVerdict = true;
        return this.#connect(effect).finally(() => {
          this.#awaitingVerdict = false;
        });
      case "auth": {
        const pending = this.#enhanced;
        if (effect.phase === "connect" && pending !== undefined) {
          return pending.exchange.next(effect.data).then((step) => this.#enhancedStep(step));
        }
        // Re-authentication is not offered: end the connection [MQTT-4.12.1-2].
        this.#conn.disconnect(ReasonCode.BadAuthenticationMethod, "re-authentication is not supported");
        return undefined;
      }
      case "publish":
        return this.#publish(effect);
      case "subscribe":
        return this.#subscribe(effect);
      case "unsubscribe": {
        if (id === undefined || generation === undefined) return undefined;
        const result = router.unsubscribe(id.clientId, generation, effect.topicFilters);
        if (result.ok) {
          this.#afterCommit(() => {
            this.#conn.unsubscribed(
              effect.packetId,
              result.existed.map((existed) => (existed ? ReasonCode.Success : ReasonCode.NoSubscriptionExisted)),
            );
          });
        }
        return undefined;
      }
      case "inbound-qos2-received":
      case "inbound-qos2-released":
        if (id !== undefined && generation !== undefined) {
          router.inboundQos2(id.clientId, generation, effect.packetId, effect.kind === "inbound-qos2-received");
        }
        // The PUBCOMP that follows a release is queued behind this effect: hold it for the commit
        // (not so the PUBREC of a publish refused for storage: it promises nothing).
        if (effect.kind === "inbound-qos2-received" || this.#refusedQos2.delete(effect.packetId)) return undefined;
        return this.#ctx.durability?.flush();
      case "delivery-acked":
      case "delivery-rejected":
      case "delivery-completed":
        if (id !== undefined && generation !== undefined) {
          router.acknowledge(id.clientId, generation, effect.packetId);
          this.#ctx.flow.progressed(id.clientId);
        }
        return undefined;
      case "delivery-received":
        if (id !== undefined && generation !== undefined) router.pubrec(id.clientId, generation, effect.packetId);
        // The PUBREL queued behind this effect waits for the PUBREL phase to be stored: once the
        // client has it, it may complete and forget the message, and a restart that resent the
        // PUBLISH instead would deliver it twice.
        return this.#ctx.durability?.flush();
      case "closed":
        this.#closed(effect.publishWill, effect.sessionExpiryInterval, effect.cause, effect.reasonCode, effect.detail);
        return undefined;
      default: {
        const never: never = effect;
        throw new Error(`unknown effect ${String(never)}`);
      }
    }
  }

  // Re-read after each await: the client may have gone while the CONNECT was being decided.
  #connecting(): boolean {
    return this.#conn.phase === "connecting";
  }

  async #connect(request: ConnectRequestEffect): Promise<void> {
    const { access, log, counters } = this.#ctx;
    if (this.#overLimit) {
      counters.connectsRefused += 1;
      counters.limitExceeded("connections");
      log.warn({ clientId: request.clientId, remote: this.#transport.remote }, "connect refused: connection limit reached");
      this.#conn.reject(ReasonCode.QuotaExceeded, "connection limit reached");
      return;
    }
    if (request.authentication !== undefined) {
      // MQTT 5 enhanced authentication: the method's exchange runs over AUTH packets.
      const started = await access.startEnhanced?.(request.clientId, request.authentication.method, request.authentication.data);
      if (!this.#connecting()) return;
      if (started === undefined) {
        counters.connectsRefused += 1;
        counters.authFailed(ReasonCode.BadAuthenticationMethod);
        log.info({ clientId: request.clientId, remote: this.#transport.remote, method: request.authentication.method }, "connect refused: authentication method not supported");
        this.#conn.reject(ReasonCode.BadAuthenticationMethod, "authentication method not supported");
        return;
      }
      this.#enhanced = { request, exchange: started.exchange };
      await this.#enhancedStep(started.step);
      return;
    }
    const verdict = await access.authenticate({
      clientId: request.clientId,
      ...(request.username === undefined ? {} : { username: request.username }),
      ...(request.password === undefined ? {} : { password: request.password }),
    });
    if (!this.#connecting()) return; // the client left while we checked
    if (!verdict.ok) {
      counters.connectsRefused += 1;
      counters.authFailed(verdict.reasonCode);
      log.info({ clientId: request.clientId, username: request.username, remote: this.#transport.remote, reasonCode: verdict.reasonCode, reason: verdict.reason }, "connect refused");
      this.#conn.reject(verdict.reasonCode);
      return;
    }
    await this.#admit(request, verdict.identity, undefined);
  }

  // Acts on one step of an enhanced authentication exchange during CONNECT.
  async #enhancedStep(step: EnhancedStep): Promise<void> {
    const pending = this.#enhanced;
    if (pending === undefined || !this.#connecting()) return;
    switch (step.kind) {
      case "continue":
        this.#conn.authContinue(step.data);
        return;
      case "failure":
        this.#enhanced = undefined;
        this.#ctx.counters.connectsRefused += 1;
        this.#ctx.counters.authFailed(step.reasonCode);
        this.#ctx.log.info({ clientId: pending.request.clientId, remote: this.#transport.remote, reasonCode: step.reasonCode }, "connect refused: enhanced authentication failed");
        this.#conn.reject(step.reasonCode);
        return;
      case "success":
        this.#enhanced = undefined;
        await this.#admit(pending.request, step.identity, step.data);
        return;
      default: {
        const never: never = step;
        throw new Error(`unknown step ${String(never)}`);
      }
    }
  }

  // An authenticated CONNECT: claim the session, commit, CONNACK, then let the session drain.
  async #admit(request: ConnectRequestEffect, identity: ClientIdentity, authenticationData: Uint8Array | undefined): Promise<void> {
    const { router, log, owners, access, counters } = this.#ctx;
    const will = request.will;
    // A will is a publish: its topic passes the publish ACL at CONNECT (0x87, 3.1.1 0x05).
    if (will !== undefined && !access.canPublish(identity, will.topic)) {
      counters.connectsRefused += 1;
      counters.authFailed(ReasonCode.NotAuthorized);
      log.info({ clientId: request.clientId, username: identity.username, remote: this.#transport.remote, topic: will.topic }, "connect refused: will topic not authorized");
      this.#conn.reject(ReasonCode.NotAuthorized, "will topic not authorized");
      return;
    }
    // A new session past the cap (limits.maxSessions): 0x97 Quota exceeded (3.1.1: 3 Server unavailable).
    if (!router.admitsSession(request.clientId)) {
      counters.connectsRefused += 1;
      counters.limitExceeded("sessions");
      log.info({ clientId: request.clientId, username: identity.username, remote: this.#transport.remote, sessions: router.sessionCount }, "connect refused: session limit reached");
      this.#conn.reject(ReasonCode.QuotaExceeded, "session limit reached");
      return;
    }
    const outcome = router.connect({
      clientId: request.clientId,
      cleanStart: request.cleanStart,
      sessionExpiryInterval: request.sessionExpiryInterval,
      receiveMaximum: Math.min(request.receiveMaximum, this.#ctx.outboundInflight),
      protocolVersion: request.protocolVersion,
      sink: this,
      ...(access.canReceive === undefined ? {} : { readable: (topic: string) => access.canReceive?.(identity, topic) ?? true }),
      ...(will === undefined
        ? {}
        : {
            will: {
              message: {
                topic: will.topic,
                payload: own(will.payload),
                qos: will.qos,
                retain: will.retain,
                properties: messageProperties(will.properties),
                origin: request.clientId,
              },
              delaySeconds: will.properties.willDelayInterval ?? 0,
              ...(will.properties.messageExpiryInterval === undefined ? {} : { expirySeconds: will.properties.messageExpiryInterval }),
            },
          }),
    });
    if (outcome.displaced !== undefined) {
      const previous = owners.get(request.clientId);
      log.info({ clientId: request.clientId, clean: request.cleanStart }, "session taken over");
      previous?.disconnect(ReasonCode.SessionTakenOver); // [MQTT-3.1.4-3]
    }
    owners.set(request.clientId, this);
    this.#identity = identity;
    this.#generation = outcome.generation;
    if (this.#ctx.durability !== undefined) {
      try {
        await this.#ctx.durability.flush(); // CONNACK only after the session claim is on disk
      } catch (err) {
        log.error({ err, clientId: request.clientId }, "store commit failed: connection refused");
        router.disconnect(request.clientId, outcome.generation, { publishWill: false });
        if (owners.get(request.clientId) === this) owners.delete(request.clientId);
        this.#generation = undefined;
        this.#conn.reject(ReasonCode.ServerUnavailable, "storage unavailable");
        return;
      }
      if (!this.#connecting()) return;
    }
    const serverKeepAlive = imposedKeepAlive(request.keepAlive, this.#ctx.keepAlive);
    this.#conn.accept({
      sessionPresent: outcome.sessionPresent,
      ...(authenticationData === undefined ? {} : { authenticationData }),
      ...(serverKeepAlive === undefined ? {} : { limits: { serverKeepAlive } }),
      inboundQos2PacketIds: outcome.inboundQos2,
      ...(outcome.sessionExpiryInterval === request.sessionExpiryInterval ? {} : { sessionExpiryInterval: outcome.sessionExpiryInterval }),
    });
    // CONNACK is queued first; only then may the router resend and drain the session.
    router.bind(request.clientId, outcome.generation);
    counters.connects += 1;
    this.#info = {
      clientId: request.clientId,
      ...(identity.username === undefined ? {} : { username: identity.username }),
      remote: this.#transport.remote,
      listener: this.#transport.listener,
      protocolVersion: request.protocolVersion,
      connectedAt: this.#ctx.clock.now(),
      keepAlive: serverKeepAlive ?? request.keepAlive,
      cleanStart: request.cleanStart,
    };
    // What mosquitto users read their logs for: who, from where, how.
    log.info(
      {
        clientId: request.clientId,
        username: identity.username,
        remote: this.#transport.remote,
        listener: this.#transport.listener,
        protocol: PROTOCOL_NAMES[request.protocolVersion],
        cleanStart: request.cleanStart,
        keepAlive: serverKeepAlive ?? request.keepAlive,
        sessionPresent: outcome.sessionPresent,
      },
      "client connected",
    );
  }

  #publish(effect: PublishEffect): Promise<void> | undefined {
    const { router, access, clock, counters, log } = this.#ctx;
    const id = this.#identity;
    if (id === undefined) return;
    counters.received(effect.qos);
    if (!access.canPublish(id, effect.topic)) {
      counters.publishesDenied += 1;
      this.#ctx.denied.note("publish", id.clientId);
      log.debug({ clientId: id.clientId, topic: effect.topic }, "publish denied");
      const packetId = effect.packetId;
      if (packetId !== undefined) {
        this.#afterCommit(() => {
          this.#conn.acknowledgePublish(packetId, ReasonCode.NotAuthorized);
        });
      }
      return undefined;
    }
    if (effect.packetId !== undefined && this.#ctx.durability?.admitting === false) {
      this.#refuseForStorage(effect.packetId, effect.qos === 2);
      return undefined;
    }
    const expiry = effect.properties.messageExpiryInterval;
    const outcome = router.publish({
      topic: effect.topic,
      payload: own(effect.payload),
      qos: effect.qos,
      retain: effect.retain,
      properties: messageProperties(effect.properties),
      ...(expiry === undefined ? {} : { expiresAt: clock.now() + expiry * 1000 }),
      origin: id.clientId,
    });
    // Past the retained limits the message is delivered but not stored (counted by the router).
    if (outcome.retainRefused) log.debug({ clientId: id.clientId, topic: effect.topic }, "retained message not stored: retained limit reached");
    const packetId = effect.packetId;
    if (packetId !== undefined) {
      // PUBACK/PUBREC only once the message is stored for every session owed it.
      this.#afterCommit(() => {
        this.#conn.acknowledgePublish(
          packetId,
          outcome.noMatchingSubscribers ? ReasonCode.NoMatchingSubscribers : ReasonCode.Success,
          outcome.retainRefused ? "delivered but not retained: retained message limit reached" : undefined,
        );
      });
    }
    return outcome.congested.length === 0 ? undefined : this.#holdFor(outcome.congested);
  }

  // Flow control: the message left subscribers congested, so this publisher waits (its ack too)
  // until they drain, are cut off as stalled, or this connection ends.
  #holdFor(congested: readonly string[]): Promise<void> | undefined {
    if (this.#conn.phase !== "connected") return undefined;
    const hold = this.#ctx.flow.hold(congested, this.#ctx.clock.now());
    if (hold === undefined) return undefined;
    this.#hold = hold;
    this.#lane.start();
    // What already waits behind this publish may include deliveries to this very client.
    this.#take(this.#pending.splice(this.#head));
    return hold.released.then(() => {
      this.#hold = undefined;
      this.#lane.end();
      if (this.#readingPaused) {
        this.#readingPaused = false;
        this.#transport.resumeReading();
      }
    });
  }

  // The store cannot take more: PUBACK/PUBREC 0x97, at once unless earlier acknowledgements wait.
  #refuseForStorage(packetId: number, qos2: boolean): void {
    this.#ctx.counters.publishesRefusedStorage += 1;
    this.#ctx.log.debug({ clientId: this.clientId, packetId }, "publish refused: storage unavailable");
    if (qos2) this.#refusedQos2.add(packetId);
    const refuse = (): void => {
      this.#conn.acknowledgePublish(packetId, ReasonCode.QuotaExceeded, "storage unavailable");
    };
    const durability = this.#ctx.durability;
    if (this.#acksWaiting === 0 || durability === undefined) {
      refuse();
      return;
    }
    this.#acksWaiting += 1;
    const settled = (): void => {
      this.#acksWaiting -= 1;
      refuse();
      this.#flush();
    };
    durability.flush().then(settled, settled);
  }

  #subscribe(effect: SubscribeEffect): Promise<void> | undefined {
    const { router, access, counters, log } = this.#ctx;
    const id = this.#identity;
    const generation = this.#generation;
    if (id === undefined || generation === undefined) return undefined;
    // 3.1.1 has no reason codes: the protocol layer sends any failure as 0x80.
    const denied = ReasonCode.NotAuthorized;
    const codes: number[] = [];
    const allowed: number[] = [];
    const requests = [];
    for (const [i, s] of effect.subscriptions.entries()) {
      if (!access.canSubscribe(id, s.topicFilter)) {
        counters.subscriptionsDenied += 1;
        this.#ctx.denied.note("subscribe", id.clientId);
        log.debug({ clientId: id.clientId, filter: s.topicFilter }, "subscribe denied");
        codes.push(denied);
        continue;
      }
      codes.push(s.qos);
      allowed.push(i);
      requests.push({
        filter: s.topicFilter,
        qos: s.qos,
        noLocal: s.noLocal,
        retainAsPublished: s.retainAsPublished,
        retainHandling: s.retainHandling,
      });
    }
    // Retained messages for the new subscriptions follow the SUBACK rather than precede it, and
    // whatever else arrives before the SUBACK queues behind them: deliveries wait until then.
    router.unbind(id.clientId, generation);
    const answer = (granted: readonly SubscribeGrant[] | undefined): void => {
      if (granted === undefined) return; // displaced meanwhile
      granted.forEach((code, k) => {
        const index = allowed[k];
        if (index !== undefined) codes[index] = code;
        if (code === ReasonCode.QuotaExceeded) log.debug({ clientId: id.clientId, filter: effect.subscriptions[index ?? -1]?.topicFilter }, "subscription refused: subscription limit reached");
      });
      this.#afterCommit(() => {
        this.#conn.subscribed(effect.packetId, codes);
        router.bind(id.clientId, generation);
      });
    };
    // Many filters over a large retained store take several turns; what follows waits for them.
    const granted = subscribeInTurns(router, id.clientId, generation, requests, effect.subscriptionIdentifier);
    if (granted instanceof Promise) return granted.then(answer);
    answer(granted);
    return undefined;
  }

  #closed(publishWill: boolean, sessionExpiryInterval: number, cause: string, reasonCode: number, detail: string): void {
    const { router, owners, log, counters } = this.#ctx;
    counters.connectionsOpen -= 1;
    counters.disconnected(cause);
    const id = this.#identity;
    const fields = { clientId: id?.clientId, cause, reasonCode, detail, remote: this.#transport.remote };
    if (cause === "protocol-error") {
      counters.protocolErrors += 1;
      // 0x97 before CONNACK is only ever too much sent before it (after it: too many filters).
      if (reasonCode === ReasonCode.QuotaExceeded) counters.limitExceeded(this.#generation === undefined ? "bytes-before-connack" : "filters-per-subscribe");
      else if (reasonCode === ReasonCode.PacketTooLarge) counters.limitExceeded("packet-size");
      log.info(fields, "protocol error");
    }
    // A connection that never completed CONNECT (a refusal is logged as such) is debug only.
    if (this.#generation !== undefined) log.info(fields, "client disconnected");
    else log.debug(fields, "connection closed before CONNACK");
    if (id === undefined || this.#generation === undefined) return;
    // Refused by the router if this connection was displaced: it cannot release the session.
    if (router.disconnect(id.clientId, this.#generation, { publishWill, sessionExpiryInterval }).ok) this.#ctx.flow.release(id.clientId);
    if (owners.get(id.clientId) === this) owners.delete(id.clientId);
  }

  /** {@link DeliverySink}: sends a PUBLISH the router planned for this client. */
  publish(publish: OutboundPublish): boolean {
    // A slow reader: QoS 0 is droppable; QoS 1/2 is bounded by the client's Receive Maximum.
    if (publish.qos === 0 && this.#transport.buffered > this.#ctx.qos0HighWaterBytes) return false;
    // A QoS 1/2 copy leaves only once its routing and packet id are stored (see CommitBarrier).
    if (publish.qos > 0) this.#barrier();
    // Encoded once per fan-out and shared, unless this client gets outbound Topic Aliases.
    const version = this.#conn.sharedPublishVersion;
    const encoded = version === undefined ? undefined : this.#ctx.templates.get(publish, version);
    const result = this.#conn.deliver({
      topic: publish.topic,
      payload: publish.payload,
      qos: publish.qos,
      retain: publish.retain,
      dup: publish.dup,
      ...(publish.packetId === undefined ? {} : { packetId: publish.packetId }),
      properties: publish.properties,
      ...(encoded === undefined ? {} : { encoded }),
    });
    this.#flush();
    switch (result.status) {
      case "sent":
        this.#ctx.counters.sent(publish.qos);
        return true;
      case "too-large":
        return false; // discarded, as the spec requires [MQTT-3.1.2-25]; the router counts it
      case "not-connected":
        // The connection is ending and its close is not processed yet. A QoS 1/2 copy stays in
        // flight in the session and goes out again (DUP=1) on the next connection; QoS 0 is dropped.
        return publish.qos > 0;
      case "quota-exhausted":
      case "packet-id-in-use":
      case "invalid":
        this.#ctx.log.warn({ clientId: this.clientId, status: result.status }, "delivery refused by the connection");
        return false;
      default: {
        const never: never = result;
        throw new Error(`unknown delivery result ${String(never)}`);
      }
    }
  }

  /** {@link DeliverySink}: resends a PUBREL after reconnect. */
  pubrel(packetId: number): void {
    this.#barrier();
    this.#conn.resendPubrel(packetId);
    this.#flush();
  }
}

function messageProperties(p: PublishEffect["properties"]) {
  return {
    ...(p.payloadFormatIndicator === undefined ? {} : { payloadFormatIndicator: p.payloadFormatIndicator }),
    ...(p.contentType === undefined ? {} : { contentType: p.contentType }),
    ...(p.responseTopic === undefined ? {} : { responseTopic: p.responseTopic }),
    // Kept on queues and in the retained store: a copy, not a view pinning the received chunk.
    ...(p.correlationData === undefined ? {} : { correlationData: own(p.correlationData) }),
    ...(p.userProperties === undefined ? {} : { userProperties: p.userProperties }),
  };
}
