import type { DecodeResult } from "../codec/decode.js";
import { PacketDecoder } from "../codec/decoder.js";
import type { MqttDecodeError } from "../codec/errors.js";
import { MAX_PACKET_SIZE } from "../codec/frame.js";
import type { AuthPacket, ConnectPacket, DisconnectPacket, Packet, ProtocolVersion } from "../codec/packet.js";
import { ReasonCode, isValidReasonCode } from "../codec/reason-codes.js";
import { AuthExchange } from "./auth.js";
import { acceptConnack, checkConnect, refuseConnack, type AcceptParams } from "./connect.js";
import { onConnectedPacket, type ConnectedPacketHandlers } from "./connected-packets.js";
import type { Connected, ConnectionPhase, Connecting, HeldPacket, State } from "./connection-state.js";
import { clientDisconnect, isViolation, serverDisconnect } from "./disconnect.js";
import type { Action, CloseCause } from "./effects.js";
import { InboundFlow } from "./inbound-flow.js";
import { Keepalive } from "./keepalive.js";
import { limitsOf, resolveOptions, type ProtocolOptions, type ResolvedOptions } from "./options.js";
import { OutboundFlow, type DeliverResult, type OutboundMessage } from "./outbound-flow.js";
import { Outbox } from "./outbox.js";
import { SubscriptionRequests } from "./subscribe.js";
import { OutboundTopicAliases } from "./topic-alias.js";

export type { ConnectionPhase } from "./connection-state.js";

/**
 * The per-connection MQTT 3.1.1 / 5.0 protocol state machine, sans I/O. Feed it the bytes the
 * client sends (`receiveBytes`), the app's answers (`accept`, `acknowledgePublish`,
 * `subscribed`, ...), deliveries from the router (`deliver`) and the time (`tick`); take the
 * resulting actions with `drain` and perform them in order. Nothing throws out of it for any
 * input bytes, and nothing is emitted after a `close` action.
 *
 * It delegates: CONNECT checks to connect.ts, AUTH to auth.ts, keep alive to keepalive.ts,
 * aliases to topic-alias.ts, QoS flows to inbound-flow.ts / outbound-flow.ts, SUBSCRIBE and
 * UNSUBSCRIBE to subscribe.ts, DISCONNECT rules to disconnect.ts.
 */
export class MqttConnection {
  readonly #o: ResolvedOptions;
  readonly #outbox: Outbox;
  readonly #decoder: PacketDecoder;
  /** Packets decoded while CONNECT awaits its verdict, processed after `accept` (from `#heldHead` on). */
  #held: HeldPacket[] = [];
  #heldHead = 0;
  #heldBytes = 0;
  readonly #keepalive: Keepalive;
  readonly #openedAt: number;
  #state: State = { phase: "awaiting-connect" };
  // Made once per connection: the packet dispatch is on the hot path.
  readonly #packets: ConnectedPacketHandlers = {
    violate: (reasonCode, detail) => {
      this.#violate(reasonCode, detail);
    },
    disconnect: (s, packet) => {
      this.#onDisconnect(s, packet);
    },
    auth: (s, packet) => {
      this.#onAuth(s, packet);
    },
  };

  /** @param options server configuration, clock and client id generator */
  constructor(options: ProtocolOptions) {
    this.#o = resolveOptions(options);
    this.#outbox = new Outbox(this.#o.reasonStrings);
    this.#openedAt = this.#o.clock.now();
    this.#keepalive = new Keepalive(this.#openedAt);
    this.#decoder = new PacketDecoder({ maxPacketSize: this.#o.maximumPacketSize });
  }

  /** Where the connection is in its life. */
  get phase(): ConnectionPhase {
    return this.#state.phase;
  }

  /** The client id in use (assigned or the client's), once CONNECT was accepted for processing. */
  get clientId(): string | undefined {
    const s = this.#state;
    return s.phase === "connecting" || s.phase === "connected" ? s.request.clientId : undefined;
  }

  /** QoS 1/2 PUBLISHes that may be delivered right now (the client's Receive Maximum minus in-flight). */
  get sendQuota(): number {
    return this.#state.phase === "connected" ? this.#state.outbound.quota : 0;
  }

  /**
   * The protocol version to pre-encode fan-out PUBLISHes in for this client (`encoded` of
   * {@link MqttConnection.deliver}), or undefined when they should be encoded for it alone: not
   * connected, or it receives outbound Topic Aliases (a shared encoding cannot carry them).
   */
  get sharedPublishVersion(): ProtocolVersion | undefined {
    const s = this.#state;
    if (s.phase !== "connected" || s.outbound.usesTopicAliases) return undefined;
    return s.version;
  }

  /** Outbound QoS 1/2 flows not finished yet. */
  get outboundInFlight(): number {
    return this.#state.phase === "connected" ? this.#state.outbound.inFlight : 0;
  }

  /** The time after which `tick` will close the connection, if the client stays silent. */
  nextTimeout(): number | undefined {
    const s = this.#state;
    if (s.phase === "awaiting-connect" || s.phase === "connecting") {
      return this.#o.connectTimeoutMs === undefined ? undefined : this.#openedAt + this.#o.connectTimeoutMs;
    }
    return s.phase === "closed" ? undefined : this.#keepalive.deadline();
  }

  /** Takes the actions produced so far, in order. */
  drain(): Action[] {
    return this.#outbox.drain();
  }

  /**
   * Bytes from the client. Packets are split and decoded here; bad bytes end the connection with
   * the decoder's reason code. While CONNECT awaits the app's verdict, only AUTH and DISCONNECT
   * are processed; the rest are held (up to `maxPendingBytes` of packets, counting those that
   * arrived in the same chunk as the CONNECT) until `accept`. With `inputBudgetBytes` set, at
   * most that many bytes of packets are processed per call; see {@link MqttConnection.backlogged}.
   */
  receiveBytes(chunk: Uint8Array): void {
    if (this.#state.phase === "closed") return;
    this.#decoder.push(chunk);
    this.#pump();
  }

  /**
   * True when received packets wait only for {@link MqttConnection.resume}: more than one call's
   * `inputBudgetBytes` came in (typically packets held before CONNACK). The app should call
   * `resume` on a later turn of its event loop, once per turn, until this is false.
   */
  get backlogged(): boolean {
    if (this.#state.phase !== "connected") return false;
    return this.#heldHead < this.#held.length || this.#decoder.queuedPackets > 0;
  }

  /** Processes up to `inputBudgetBytes` more of the backlog (see {@link MqttConnection.backlogged}). */
  resume(): void {
    if (this.#state.phase === "closed") return;
    this.#pump();
  }

  /** Checks the keep alive and connect timeouts at `now` (default: the clock's reading). */
  tick(now: number = this.#o.clock.now()): void {
    const s = this.#state;
    if (s.phase === "closed") return;
    // The deadline runs until CONNACK: it covers an enhanced authentication exchange (and a
    // verdict the app never gives) as well as a socket that never sends CONNECT.
    if (s.phase === "awaiting-connect" || s.phase === "connecting") {
      const limit = this.#o.connectTimeoutMs;
      if (limit !== undefined && now - this.#openedAt > limit) {
        this.#finish("connect-timeout", ReasonCode.KeepAliveTimeout, s.phase === "connecting" ? "CONNECT not completed in time" : "no CONNECT in time", false);
      }
      return;
    }
    if (!this.#keepalive.expired(now)) return;
    if (s.version === 5) this.#outbox.send(serverDisconnect(ReasonCode.KeepAliveTimeout, undefined));
    this.#finish("keepalive-timeout", ReasonCode.KeepAliveTimeout, "keep alive expired", true);
  }

  /**
   * Accepts the pending CONNECT: sends CONNACK 0x00 and starts processing what the client sent
   * after CONNECT. False when no CONNECT is pending.
   */
  accept(params: AcceptParams): boolean {
    const s = this.#state;
    if (s.phase !== "connecting") return false;
    const request = s.request;
    const v = request.protocolVersion;
    const limits = limitsOf(this.#o, params.limits);
    const expiry = Math.min(params.sessionExpiryInterval ?? request.sessionExpiryInterval, limits.maximumSessionExpiryInterval);
    // A CONNACK that cannot be encoded (invalid parameters) leaves the CONNECT pending.
    if (!this.#outbox.send(acceptConnack(request, s.requestedExpiry, params, limits, expiry)).ok) return false;
    if (v === 5 && limits.serverKeepAlive !== undefined) this.#keepalive.setInterval(limits.serverKeepAlive);
    const inbound = new InboundFlow(this.#outbox, v, limits);
    if (params.inboundQos2PacketIds !== undefined) inbound.restore(params.inboundQos2PacketIds);
    const aliasesOut = v === 5 && this.#o.outboundTopicAliases && request.topicAliasMaximum > 0;
    this.#state = {
      phase: "connected",
      request,
      version: v,
      auth: s.auth,
      limits,
      inbound,
      outbound: new OutboundFlow(
        this.#outbox,
        request.receiveMaximum,
        aliasesOut ? new OutboundTopicAliases(request.topicAliasMaximum) : undefined,
      ),
      subscriptions: new SubscriptionRequests(this.#outbox, v, limits),
      connectExpiry: s.requestedExpiry ?? request.sessionExpiryInterval,
      sessionExpiry: expiry,
    };
    this.#heldBytes = 0;
    this.#pump();
    return true;
  }

  /**
   * Refuses the pending CONNECT with a reason code >= 0x80 (mapped to a return code on 3.1.1),
   * then closes [MQTT-3.2.2-7]. During a re-authentication, ends the connection with DISCONNECT
   * instead. False when there is nothing to refuse or the code is not a failure.
   */
  reject(reasonCode: number, reasonString?: string): boolean {
    const s = this.#state;
    if (s.phase === "connected" && s.auth.reauthenticating) return this.disconnect(reasonCode, reasonString);
    if (s.phase !== "connecting" || reasonCode < 0x80 || !isValidReasonCode("connack", reasonCode)) return false;
    this.#outbox.send(refuseConnack(s.request.protocolVersion, reasonCode, reasonString));
    this.#finish("connect-rejected", reasonCode, reasonString ?? "connection refused", false);
    return true;
  }

  /** Continues an enhanced authentication: sends AUTH 0x18 with `data`. False when none is open. */
  authContinue(data?: Uint8Array): boolean {
    const s = this.#state;
    if (s.phase === "connecting") return s.auth.continue(data, false);
    if (s.phase === "connected") return s.auth.continue(data, true);
    return false;
  }

  /** Ends a successful re-authentication: sends AUTH 0x00. False when none is under way. */
  authSucceeded(data?: Uint8Array): boolean {
    return this.#state.phase === "connected" && this.#state.auth.succeed(data);
  }

  /**
   * Acknowledges an inbound QoS 1/2 PUBLISH once the app has committed it: PUBACK or PUBREC with
   * `reasonCode` (default Success). False for an id that awaits no acknowledgement or a reason
   * code PUBACK cannot carry.
   */
  acknowledgePublish(packetId: number, reasonCode: number = ReasonCode.Success, reasonString?: string): boolean {
    const s = this.#state;
    if (s.phase !== "connected" || !isValidReasonCode("puback", reasonCode)) return false;
    return s.inbound.acknowledge(packetId, reasonCode, reasonString);
  }

  /** Answers a `subscribe` effect: one code per forwarded subscription. */
  subscribed(packetId: number, reasonCodes: readonly number[]): boolean {
    const s = this.#state;
    if (s.phase !== "connected" || !reasonCodes.every((c) => isValidReasonCode("suback", c))) return false;
    return s.subscriptions.subscribed(packetId, reasonCodes);
  }

  /** Answers an `unsubscribe` effect: one code per filter (ignored on 3.1.1). */
  unsubscribed(packetId: number, reasonCodes: readonly number[]): boolean {
    const s = this.#state;
    if (s.phase !== "connected" || !reasonCodes.every((c) => isValidReasonCode("unsuback", c))) return false;
    return s.subscriptions.unsubscribed(packetId, reasonCodes);
  }

  /** Sends a message from the router; see {@link DeliverResult} for the refusals. */
  deliver(message: OutboundMessage): DeliverResult {
    const s = this.#state;
    if (s.phase !== "connected") return { status: "not-connected" };
    return s.outbound.deliver(message);
  }

  /** Resends the PUBREL of a QoS 2 delivery whose PUBREC arrived before a reconnect [MQTT-4.4.0-1]. */
  resendPubrel(packetId: number): boolean {
    const s = this.#state;
    if (s.phase !== "connected" || packetId < 1 || packetId > 0xffff) return false;
    s.outbound.resendPubrel(packetId);
    return true;
  }

  /**
   * Ends the connection from the server side: DISCONNECT with `reasonCode` on MQTT 5 after
   * CONNACK, a plain close otherwise (3.1.1 has no server DISCONNECT; none may precede CONNACK).
   * False when already closed or the code is not a DISCONNECT reason code.
   */
  disconnect(reasonCode: number, reasonString?: string): boolean {
    const s = this.#state;
    if (s.phase === "closed" || !isValidReasonCode("disconnect", reasonCode)) return false;
    if (s.phase === "connected" && s.version === 5) this.#outbox.send(serverDisconnect(reasonCode, reasonString));
    this.#finish("server-disconnect", reasonCode, reasonString ?? "disconnected by the server", true);
    return true;
  }

  /** The network connection went away without a DISCONNECT: the Will applies. */
  connectionLost(): void {
    if (this.#state.phase === "closed") return;
    this.#finish("connection-lost", ReasonCode.UnspecifiedError, "connection lost", true);
  }

  // Processes packets in order: those held before CONNACK first, then the decoder's, until the
  // input budget is spent (at least one packet per call, so a large packet still goes through).
  #pump(): void {
    let spent = 0;
    for (;;) {
      const phase = this.#state.phase;
      if (phase === "closed") return;
      if (phase === "connected" && spent >= this.#o.inputBudgetBytes) return;
      let item: DecodeResult | undefined;
      let bytes: number;
      const held = phase === "connected" ? this.#held[this.#heldHead] : undefined;
      if (held !== undefined) {
        // An index, not shift(): shifting a long array once per packet is quadratic.
        this.#heldHead += 1;
        if (this.#heldHead === this.#held.length) {
          this.#held = [];
          this.#heldHead = 0;
        }
        item = held.item;
        bytes = held.bytes;
      } else {
        item = this.#decoder.next();
        bytes = this.#decoder.lastPacketBytes;
        if (item?.ok === true) this.#keepalive.received(this.#o.clock.now());
      }
      if (item === undefined) return;
      if (!item.ok) {
        this.#decodeError(item.error);
        return;
      }
      // Before CONNACK only AUTH (and a DISCONNECT: the client gives up) is processed
      // [MQTT-3.1.4-6], [MQTT-3.1.2-30]; the rest waits for the verdict.
      const early = item.packet.type === "auth" || item.packet.type === "disconnect";
      if (phase === "connecting" && !early) {
        this.#heldBytes += bytes;
        if (this.#heldBytes > this.#o.maxPendingBytes) {
          this.#refusePending(this.#state);
          return;
        }
        this.#held.push({ item, bytes });
        continue;
      }
      spent += bytes;
      this.#handle(item.packet);
    }
  }

  // Too much sent before CONNACK: CONNACK 0x97 Quota exceeded (3.1.1: 3 Server unavailable), close.
  #refusePending(s: State): void {
    if (s.phase !== "connecting") return;
    const detail = `more than ${String(this.#o.maxPendingBytes)} bytes of packets sent before CONNACK`;
    this.#outbox.send(refuseConnack(s.request.protocolVersion, ReasonCode.QuotaExceeded, detail));
    this.#finish("protocol-error", ReasonCode.QuotaExceeded, detail, false);
  }

  #decodeError(error: MqttDecodeError): void {
    if (this.#state.phase === "awaiting-connect" && error.reasonCode === ReasonCode.UnsupportedProtocolVersion) {
      // The level is unknown, so answer in the oldest format every client can read.
      this.#outbox.send(refuseConnack(4, ReasonCode.UnsupportedProtocolVersion, undefined));
      this.#finish("connect-rejected", error.reasonCode, error.message, false);
      return;
    }
    this.#violate(error.reasonCode, error.message);
  }

  #handle(packet: Packet): void {
    const s = this.#state;
    switch (s.phase) {
      case "awaiting-connect":
        if (packet.type === "connect") this.#onConnect(packet);
        else this.#violate(ReasonCode.ProtocolError, "first packet must be CONNECT"); // [MQTT-3.1.0-1]
        return;
      case "connecting":
        if (packet.type === "auth") this.#onAuth(s, packet);
        else if (packet.type === "disconnect") this.#finish("client-disconnect", packet.reasonCode, "client left before CONNACK", false);
        return;
      case "connected":
        onConnectedPacket(s, packet, this.#outbox, this.#packets);
        return;
      case "closed":
        return;
      default: {
        const unreachable: never = s;
        throw new Error(`unknown phase ${String(unreachable)}`);
      }
    }
  }

  #onConnect(packet: ConnectPacket): void {
    const check = checkConnect(packet, this.#o);
    if (!check.ok) {
      this.#outbox.peer.version = check.version;
      this.#outbox.send(refuseConnack(check.version, check.reasonCode, check.detail));
      this.#finish("connect-rejected", check.reasonCode, check.detail, false);
      return;
    }
    const request = check.request;
    this.#outbox.peer.version = request.protocolVersion;
    this.#outbox.peer.maximumPacketSize = request.maximumPacketSize ?? MAX_PACKET_SIZE;
    this.#outbox.peer.problemInformation = request.requestProblemInformation;
    this.#keepalive.setInterval(request.keepAlive);
    this.#state = {
      phase: "connecting",
      request,
      auth: new AuthExchange(this.#outbox, request.authentication?.method),
      requestedExpiry: request.protocolVersion === 5 ? (packet.properties.sessionExpiryInterval ?? 0) : undefined,
    };
    this.#outbox.effect(request);
  }

  #onDisconnect(s: Connected, packet: DisconnectPacket): void {
    const result = clientDisconnect(packet, s.connectExpiry, s.sessionExpiry, s.limits.maximumSessionExpiryInterval);
    if (isViolation(result)) {
      this.#violate(result.reasonCode, result.detail);
      return;
    }
    s.sessionExpiry = result.sessionExpiryInterval;
    this.#finish("client-disconnect", result.reasonCode, result.reasonString ?? "client disconnected", result.publishWill);
  }

  #onAuth(s: Connecting | Connected, packet: AuthPacket): void {
    const result = s.auth.onClientAuth(packet, s.phase === "connected");
    if ("kind" in result) this.#outbox.effect(result);
    else this.#violate(result.reasonCode, result.detail);
  }

  /**
   * Ends the connection for a client's fault: MQTT 5 says why — DISCONNECT after CONNACK, a
   * failing CONNACK before it — and 3.1.1 just closes.
   */
  #violate(reasonCode: number, detail: string): void {
    const s = this.#state;
    if (s.phase === "connected" && s.version === 5) {
      const code = isValidReasonCode("disconnect", reasonCode) && reasonCode >= 0x80 ? reasonCode : ReasonCode.ProtocolError;
      this.#outbox.send(serverDisconnect(code, detail));
    } else if (s.phase === "connecting" && s.request.protocolVersion === 5) {
      const code = isValidReasonCode("connack", reasonCode) && reasonCode >= 0x80 ? reasonCode : ReasonCode.ProtocolError;
      this.#outbox.send(refuseConnack(5, code, detail));
    }
    this.#finish("protocol-error", reasonCode, detail, true);
  }

  /** Emits the `closed` effect and the close; the Will applies only to an accepted connection. */
  #finish(cause: CloseCause, reasonCode: number, detail: string, willApplies: boolean): void {
    const s = this.#state;
    const connected = s.phase === "connected";
    this.#outbox.effect({
      kind: "closed",
      cause,
      reasonCode,
      detail,
      publishWill: connected && willApplies && s.request.will !== undefined,
      sessionExpiryInterval: connected ? s.sessionExpiry : 0,
    });
    this.#outbox.close(reasonCode);
    this.#state = { phase: "closed" };
  }
}
