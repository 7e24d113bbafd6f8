/**
 * Takeover: a connection claims a client id's session (CONNECT). A clean start discards any
 * existing session, so plans built for it are refused later; a resume keeps it, and the displaced
 * connection's in-flight deliveries go back to the front of the queue with their packet ids for a
 * DUP=1 resend. The new owner is *behind* until it binds: nothing is sent to it before then.
 * @module
 */
import type { ProtocolVersion } from "../codec/packet.js";
import { pump } from "./delivery.js";
import { deliveryContext, ownedSession, type RouterState } from "./router-state.js";
import { Session } from "./mqtt-session.js";
import { endSession } from "./session-lifetime.js";
import type { DeliverySink } from "./sink.js";
import { armWill, disarmWill, fireWill, type WillRequest } from "./wills.js";

/** A connection asking to own a session; `Sink` is the router's type of connection. */
export interface ConnectRequest<Sink extends DeliverySink = DeliverySink> {
  /** The session to claim. */
  readonly clientId: string;
  /** Discard a stored session instead of resuming it. */
  readonly cleanStart: boolean;
  /** Seconds; 0 ends the session with the connection; 0xFFFFFFFF never expires. */
  readonly sessionExpiryInterval: number;
  /** The client's Receive Maximum (1..65535). */
  readonly receiveMaximum: number;
  /** The connection's protocol level; decides what its deliveries may carry. */
  readonly protocolVersion: ProtocolVersion;
  /** Where the session's deliveries go while this connection owns it. */
  readonly sink: Sink;
  /**
   * Whether this client may read `topic` (the ACL at delivery): a copy for a topic it may not read
   * is never queued nor sent, whatever filter matched it. Absent: everything is readable.
   */
  readonly readable?: (topic: string) => boolean;
  /**
   * The will, with its delay in seconds and its Message Expiry Interval in seconds, which starts
   * counting when the will is published; `message.expiresAt` is ignored.
   */
  readonly will?: WillRequest;
}

/** The router's answer to a CONNECT. */
export interface ConnectOutcome {
  /** The new connection's generation: its fence token for every later call. */
  readonly generation: number;
  /** Session Present for CONNACK [MQTT-3.2.2-2/3]. */
  readonly sessionPresent: boolean;
  /** The Session Expiry Interval in force (lower than asked if the server caps it). */
  readonly sessionExpiryInterval: number;
  /** Inbound QoS 2 packet ids still awaiting PUBREL, for the protocol's dedupe. */
  readonly inboundQos2: readonly number[];
  /** The displaced connection's generation, if the session was taken over: send it DISCONNECT 0x8E. */
  readonly displaced?: number;
}

/** Whether a CONNECT for `clientId` may claim a session (see `maxSessions`). */
export function admitsSession(state: RouterState, clientId: string): boolean {
  return state.sessions.has(clientId) || state.sessions.size < state.settings.maxSessions;
}

/** Hands `request.clientId`'s session to a new connection, synchronously. */
export function connect(state: RouterState, request: ConnectRequest): ConnectOutcome {
  const generation = state.generations.allocate();
  const expiry = Math.min(request.sessionExpiryInterval, state.settings.maxSessionExpiry);
  let session = state.sessions.get(request.clientId);
  let displaced: number | undefined;

  // A session that ends with its connection (3.1.1 CleanSession=1, MQTT 5 expiry 0) ends with a
  // takeover too, so it is never resumed: the new owner starts clean [MQTT-3.1.2-6], 3.1.2.11.
  const clean = request.cleanStart || (session?.owner !== undefined && session.expiryInterval === 0);
  if (session?.owner !== undefined) {
    displaced = session.generation;
    state.stats.takeovers += 1;
    session.owner = undefined;
    session.requeueInflight();
  }
  // The previous connection's will: a clean start ends the session, which publishes it; a
  // resume publishes it only if it had no delay (its connection just closed), and otherwise
  // cancels it, as the session reconnected within the delay [MQTT-3.1.3-9], [MQTT-3.1.2-8].
  if (session?.will !== undefined) {
    if (clean || (displaced !== undefined && session.will.delayMs === 0)) fireWill(state, session);
    else disarmWill(state, session);
  }

  const sessionPresent = session !== undefined && !clean;
  if (session !== undefined && clean) endSession(state, session);
  if (session === undefined || clean) {
    // A fresh session's queue starts at a fresh generation, so no epoch a plan for an earlier
    // session of this id carried can ever match it.
    session = new Session(request.clientId, expiry, state.settings.queueLimits, generation);
    state.sessions.set(request.clientId, session);
  }
  session.expiryInterval = expiry;
  session.disconnectedAt = undefined;
  // What was queued under an earlier identity (or restored) is checked again as it goes out.
  session.readable = request.readable;
  session.readableFrom = session.queue.nextSeq;
  session.claim(generation, {
    sink: request.sink,
    receiveMaximum: request.receiveMaximum,
    protocolVersion: request.protocolVersion,
    bound: false,
  });
  state.store.sessionSaved({ clientId: session.clientId, expiryInterval: expiry, generation, disconnectedAt: undefined });
  if (request.will !== undefined) armWill(state, session, generation, request.will);
  return {
    generation,
    sessionPresent,
    sessionExpiryInterval: expiry,
    inboundQos2: session.inboundQos2Ids(),
    ...(displaced === undefined ? {} : { displaced }),
  };
}

/** Holds deliveries to the connection `generation` back until it binds again; false if stale. */
export function unbind(state: RouterState, clientId: string, generation: number): boolean {
  const owner = ownedSession(state, clientId, generation)?.owner;
  if (owner === undefined) return false;
  owner.bound = false;
  return true;
}

/** The owner `generation` is ready: resends, then the queue, go out in order. False if stale. */
export function bind(state: RouterState, clientId: string, generation: number): boolean {
  const session = ownedSession(state, clientId, generation);
  const owner = session?.owner;
  if (session === undefined || owner === undefined) return false;
  owner.bound = true;
  pump(session, deliveryContext(state));
  return true;
}
