/**
 * One client connection, as the broker runs it: the socket, authentication, the store's commit,
 * flow control, counters and logs around the package's {@link ClientSession}, which keeps the
 * protocol's orderings (acknowledge after commit, CONNACK before bind, SUBACK before retained
 * messages, takeover) and is the router's delivery sink.
 * @module
 */
import {
  ClientSession,
  ReasonCode,
  type ClientSessionHost,
  type ClientSessionOptions,
  type ClosedEffect,
  type CommitFailure,
  type Commits,
  type ConnectRequestEffect,
  type DeliverResult,
  type FlowControl,
  type Hold,
  type OutboundPublish,
  type ProtocolVersion,
  type PublishTemplate,
  type PublishTemplates,
  type QoS,
  type Router,
} from "@handoff/mqtt-router";
import type { Clock } from "@handoff/seqlog";
import type { Logger } from "pino";
import type { AccessControl, ClientIdentity, EnhancedAuthExchange, EnhancedAuthStep } from "../auth/access.js";
import type { ConnectionEvents, ConnectionInfo } from "./connection-info.js";
import type { BrokerCounters } from "./counters.js";
import type { DeniedSummary } from "./log-summary.js";
import type { Transport } from "./transport.js";

/** What every handler shares: the router, the access hooks, the session options. */
export interface HandlerContext {
  /** The router, whose owner of a client id is the session of one of these handlers. */
  readonly router: Router<ClientSession<ClientHandler>>;
  readonly clock: Clock;
  readonly log: Logger;
  readonly access: AccessControl;
  readonly counters: BrokerCounters;
  /** How every client session is configured (the store's commit among it). */
  readonly session: ClientSessionOptions;
  /** Encodings shared by the copies of a message fanned out to many clients. */
  readonly templates: PublishTemplates;
  /** Holds on publishers feeding congested subscribers. */
  readonly flow: FlowControl;
  /** Unsent bytes a client may hold before it is dropped as not reading. */
  readonly maxClientBuffer: number;
  /** Publishes and subscriptions the ACL denied, summed up in the log once per interval. */
  readonly denied: DeniedSummary;
  /** Told of accepted and ended connections (an embedding service's listeners). */
  readonly events?: ConnectionEvents;
  /** Runs `work` for `handler` on a later turn of the event loop, under the broker's error guard. */
  readonly defer: (handler: ClientHandler, work: () => void) => void;
}

/** Waits for the store to commit every change recorded so far (see {@link Commits}). */
export type Durability = Commits;

const COMMIT_FAILED = {
  acknowledgement: "store commit failed: no acknowledgement sent",
  deliveries: "store commit failed: deliveries withheld",
  connect: "store commit failed: connection refused",
} as const satisfies Record<CommitFailure, string>;

const PROTOCOL_NAMES = { 3: "MQTT 3.1", 4: "MQTT 3.1.1", 5: "MQTT 5.0" } as const;

/** Handles one client connection. */
export class ClientHandler implements ClientSessionHost {
  readonly #ctx: HandlerContext;
  readonly #transport: Transport;
  readonly #session: ClientSession<ClientHandler>;
  #identity: ClientIdentity | undefined;
  #info: ConnectionInfo | undefined;
  /** An enhanced authentication exchange under way during CONNECT. */
  #enhanced: { readonly request: ConnectRequestEffect; readonly exchange: EnhancedAuthExchange } | undefined;
  readonly #overLimit: boolean;

  /** @param overLimit the broker is at its connection limit: refuse the CONNECT with 0x97 */
  constructor(ctx: HandlerContext, transport: Transport, overLimit = false) {
    this.#ctx = ctx;
    this.#transport = transport;
    this.#overLimit = overLimit;
    this.#session = new ClientSession(ctx.router, this, ctx.session);
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

  /** Whether this connection owns its session now. */
  get owning(): boolean {
    return this.#session.owning;
  }

  /** Bytes from the client. */
  receive(chunk: Uint8Array): void {
    this.#ctx.counters.bytesReceived += chunk.byteLength;
    this.#session.receive(chunk);
  }

  /** The transport is gone (the client closed it, or it failed). */
  transportClosed(): void {
    this.#session.connectionLost();
  }

  /** Drives keep alive and connect timeouts. */
  tick(now: number): void {
    this.#session.tick(now);
  }

  /** Ends the connection from the server side with a DISCONNECT reason code (v5) or a close. */
  disconnect(reasonCode: number, reasonString?: string): void {
    this.#session.disconnect(reasonCode, reasonString);
  }

  /**
   * Another node claimed this connection's session: what waits here unsent is dropped (its writes
   * are refused by the store), then DISCONNECT 0x8E (see ClientSession.takenOverElsewhere).
   */
  takenOverElsewhere(reasonString?: string): void {
    this.#session.takenOverElsewhere(reasonString);
  }

  /** {@link ClientSessionHost}: the socket. */
  send(bytes: Uint8Array): void {
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

  close(): void {
    this.#transport.close();
  }

  get buffered(): number {
    return this.#transport.buffered;
  }

  pauseReading(): void {
    this.#transport.pauseReading();
  }

  resumeReading(): void {
    this.#transport.resumeReading();
  }

  resumeInputLater(): void {
    this.#ctx.defer(this, () => {
      this.#session.resumeInput();
    });
  }

  /** {@link ClientSessionHost}: authentication, then the session's admission. */
  async connectRequested(request: ConnectRequestEffect): Promise<void> {
    const { access, log, counters } = this.#ctx;
    if (this.#overLimit) {
      counters.connectsRefused += 1;
      counters.limitExceeded("connections");
      log.warn({ clientId: request.clientId, remote: this.#transport.remote }, "connect refused: connection limit reached");
      this.#session.reject(ReasonCode.QuotaExceeded, "connection limit reached");
      return;
    }
    if (request.authentication !== undefined) {
      // MQTT 5 enhanced authentication: the method's exchange runs over AUTH packets.
      const started = await access.startEnhanced?.(request.clientId, request.authentication.method, request.authentication.data);
      if (!this.#session.connecting) return;
      if (started === undefined) {
        counters.connectsRefused += 1;
        counters.authFailed(ReasonCode.BadAuthenticationMethod);
        log.info({ clientId: request.clientId, remote: this.#transport.remote, method: request.authentication.method }, "connect refused: authentication method not supported");
        this.#session.reject(ReasonCode.BadAuthenticationMethod, "authentication method not supported");
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
    if (!this.#session.connecting) return; // the client left while we checked
    if (!verdict.ok) {
      counters.connectsRefused += 1;
      counters.authFailed(verdict.reasonCode);
      log.info({ clientId: request.clientId, username: request.username, remote: this.#transport.remote, reasonCode: verdict.reasonCode, reason: verdict.reason }, "connect refused");
      this.#session.reject(verdict.reasonCode);
      return;
    }
    await this.#admit(request, verdict.identity, undefined);
  }

  /** {@link ClientSessionHost}: the next AUTH of an enhanced authentication during CONNECT. */
  authenticate(data: Uint8Array | undefined): Promise<void> | undefined {
    const pending = this.#enhanced;
    if (pending === undefined) return undefined;
    return pending.exchange.next(data).then((step) => this.#enhancedStep(step));
  }

  // Acts on one step of an enhanced authentication exchange during CONNECT.
  async #enhancedStep(step: EnhancedAuthStep): Promise<void> {
    const pending = this.#enhanced;
    if (pending === undefined || !this.#session.connecting) return;
    switch (step.kind) {
      case "continue":
        this.#session.authContinue(step.data);
        return;
      case "failure":
        this.#enhanced = undefined;
        this.#ctx.counters.connectsRefused += 1;
        this.#ctx.counters.authFailed(step.reasonCode);
        this.#ctx.log.info({ clientId: pending.request.clientId, remote: this.#transport.remote, reasonCode: step.reasonCode }, "connect refused: enhanced authentication failed");
        this.#session.reject(step.reasonCode);
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

  // An authenticated CONNECT: the will's ACL here, then the session claims, commits, CONNACKs, binds.
  async #admit(request: ConnectRequestEffect, identity: ClientIdentity, authenticationData: Uint8Array | undefined): Promise<void> {
    const { log, access, counters } = this.#ctx;
    const will = request.will;
    // A will is a publish: its topic passes the publish ACL at CONNECT (0x87, 3.1.1 0x05).
    const decision = will === undefined ? true : access.canPublish(identity, will.topic);
    const willAllowed = typeof decision === "boolean" ? decision : await decision;
    if (!this.#session.connecting) return; // the client left while a hook decided
    if (will !== undefined && !willAllowed) {
      counters.connectsRefused += 1;
      counters.authFailed(ReasonCode.NotAuthorized);
      log.info({ clientId: request.clientId, username: identity.username, remote: this.#transport.remote, topic: will.topic }, "connect refused: will topic not authorized");
      this.#session.reject(ReasonCode.NotAuthorized, "will topic not authorized");
      return;
    }
    this.#identity = identity;
    await this.#session.admit(request, {
      ...(authenticationData === undefined ? {} : { authenticationData }),
      ...(access.canReceive === undefined ? {} : { readable: (topic: string) => access.canReceive?.(identity, topic) ?? true }),
    });
  }

  sessionLimitReached(clientId: string): void {
    this.#ctx.counters.connectsRefused += 1;
    this.#ctx.counters.limitExceeded("sessions");
    this.#ctx.log.info({ clientId, username: this.#identity?.username, remote: this.#transport.remote, sessions: this.#ctx.router.sessionCount }, "connect refused: session limit reached");
    // Not admitted: the identity was the candidate's only.
    this.#identity = undefined;
  }

  takenOver(clientId: string, cleanStart: boolean): void {
    this.#ctx.log.info({ clientId, clean: cleanStart }, "session taken over");
  }

  connected(request: ConnectRequestEffect, keepAlive: number, sessionPresent: boolean): void {
    const username = this.#identity?.username;
    this.#ctx.counters.connects += 1;
    this.#info = {
      clientId: request.clientId,
      ...(username === undefined ? {} : { username }),
      remote: this.#transport.remote,
      listener: this.#transport.listener,
      protocolVersion: request.protocolVersion,
      connectedAt: this.#ctx.clock.now(),
      keepAlive,
      cleanStart: request.cleanStart,
    };
    // What mosquitto users read their logs for: who, from where, how.
    this.#ctx.log.info(
      {
        clientId: request.clientId,
        username,
        remote: this.#transport.remote,
        listener: this.#transport.listener,
        protocol: PROTOCOL_NAMES[request.protocolVersion],
        cleanStart: request.cleanStart,
        keepAlive,
        sessionPresent,
      },
      "client connected",
    );
    this.#ctx.events?.connected?.(this.#info);
  }

  mayPublish(topic: string): boolean | Promise<boolean> {
    const id = this.#identity;
    if (id === undefined) return true;
    const allowed = this.#ctx.access.canPublish(id, topic);
    // A plain answer stays synchronous: no microtask per PUBLISH for the file ACL.
    if (typeof allowed === "boolean") return allowed || this.#denied("publish", id, topic);
    return allowed.then((ok) => ok || this.#denied("publish", id, topic));
  }

  maySubscribe(filter: string): boolean | Promise<boolean> {
    const id = this.#identity;
    if (id === undefined) return true;
    const allowed = this.#ctx.access.canSubscribe(id, filter);
    if (typeof allowed === "boolean") return allowed || this.#denied("subscribe", id, filter);
    return allowed.then((ok) => ok || this.#denied("subscribe", id, filter));
  }

  // Counts and logs a refusal (0x87; a QoS 0 PUBLISH is dropped); false.
  #denied(what: "publish" | "subscribe", id: ClientIdentity, topic: string): false {
    if (what === "publish") this.#ctx.counters.publishesDenied += 1;
    else this.#ctx.counters.subscriptionsDenied += 1;
    this.#ctx.denied.note(what, id.clientId);
    this.#ctx.log.debug({ clientId: id.clientId, ...(what === "publish" ? { topic } : { filter: topic }) }, `${what} denied`);
    return false;
  }

  hold(congested: readonly string[]): Hold | undefined {
    return this.#ctx.flow.hold(congested, this.#ctx.clock.now());
  }

  deliveryProgressed(clientId: string): void {
    this.#ctx.flow.progressed(clientId);
  }

  released(clientId: string): void {
    this.#ctx.flow.release(clientId);
  }

  encoded(publish: OutboundPublish, version: ProtocolVersion): PublishTemplate | undefined {
    return this.#ctx.templates.get(publish, version);
  }

  received(qos: QoS): void {
    this.#ctx.counters.received(qos);
  }

  sent(qos: QoS): void {
    this.#ctx.counters.sent(qos);
  }

  deliveryRefused(status: Exclude<DeliverResult["status"], "sent" | "too-large" | "not-connected">): void {
    this.#ctx.log.warn({ clientId: this.clientId, status }, "delivery refused by the connection");
  }

  retainNotStored(topic: string): void {
    this.#ctx.log.debug({ clientId: this.clientId, topic }, "retained message not stored: retained limit reached");
  }

  refusedForStorage(packetId: number): void {
    this.#ctx.counters.publishesRefusedStorage += 1;
    this.#ctx.log.debug({ clientId: this.clientId, packetId }, "publish refused: storage unavailable");
  }

  subscriptionRefused(filter: string | undefined): void {
    this.#ctx.log.debug({ clientId: this.clientId, filter }, "subscription refused: subscription limit reached");
  }

  commitFailed(err: unknown, what: CommitFailure): void {
    this.#ctx.log.error({ err, clientId: this.clientId }, COMMIT_FAILED[what]);
  }

  failed(err: unknown): void {
    this.#ctx.log.error({ err, clientId: this.clientId }, "connection handler failed");
  }

  closed(effect: ClosedEffect, accepted: boolean): void {
    const { log, counters } = this.#ctx;
    const { cause, reasonCode, detail } = effect;
    counters.connectionsOpen -= 1;
    counters.disconnected(cause);
    const fields = { clientId: this.clientId, cause, reasonCode, detail, remote: this.#transport.remote };
    if (cause === "protocol-error") {
      counters.protocolErrors += 1;
      // 0x97 before CONNACK is only ever too much sent before it (after it: too many filters).
      if (reasonCode === ReasonCode.QuotaExceeded) counters.limitExceeded(accepted ? "filters-per-subscribe" : "bytes-before-connack");
      else if (reasonCode === ReasonCode.PacketTooLarge) counters.limitExceeded("packet-size");
      log.info(fields, "protocol error");
    }
    // A connection that never completed CONNECT (a refusal is logged as such) is debug only.
    if (accepted) {
      log.info(fields, "client disconnected");
      this.#ctx.events?.disconnected?.({ clientId: this.clientId ?? "", cause, reasonCode });
    } else log.debug(fields, "connection closed before CONNACK");
  }
}
