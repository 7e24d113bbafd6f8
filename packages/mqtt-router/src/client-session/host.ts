/**
 * What a {@link ClientSession} asks of the app that runs it: the app keeps the socket, the
 * authentication, the store's commit, the timers and the logs; the session keeps the order in
 * which protocol and router meet.
 * @module
 */
import type { Clock } from "@handoff/seqlog";
import type { ProtocolVersion, QoS } from "../codec/packet.js";
import type { PublishTemplate } from "../codec/publish-template.js";
import type { DeliverResult } from "../protocol/outbound-flow.js";
import type { ClosedEffect, ConnectRequestEffect } from "../protocol/effects.js";
import type { ProtocolOptions } from "../protocol/options.js";
import type { Router } from "../router/router.js";
import type { SubscribeGrant, SubscribeRequest } from "../router/subscriptions.js";
import type { OutboundPublish } from "../router/sink.js";

/**
 * The durable store's commit, performed by the app and reported back by settling the promise. An
 * acknowledgement (CONNACK, SUBACK, PUBACK/PUBREC, PUBCOMP) goes out only after the commit
 * covering what it promises, and a QoS 1/2 delivery only after its routing is committed.
 */
export interface Commits {
  /**
   * Settles once every change recorded before the call is committed. A store may hand several
   * calls the same promise (one per pending batch); it must then settle it only once everything
   * recorded before the last of those calls is committed, since the session adds no further wait
   * behind a barrier on a promise it already waits for.
   */
  flush(): Promise<void>;
  /**
   * False while the store cannot take more (commits failing, too much uncommitted): new QoS 1/2
   * publishes are refused with 0x97 Quota exceeded meanwhile, and a CONNECT with 0x88 Server
   * unavailable before anything of it is applied. Absent: always true.
   */
  readonly admitting?: boolean;
}

/** A wait of a publisher for the congested subscribers it feeds (the app's flow control). */
export interface Hold {
  /** Settles once no subscriber holds the publisher back any more. */
  readonly released: Promise<void>;
  /** Stops waiting now (the publisher's connection is ending). */
  cancel(): void;
}

/** Which store commit failed, for the app's log. */
export type CommitFailure = "acknowledgement" | "deliveries" | "connect";

/** What the app does for one client session. Methods named after an event only report it. */
export interface ClientSessionHost {
  /** Writes bytes to the client (the app may drop a client that stopped reading instead). */
  send(bytes: Uint8Array): void;
  /** Closes the network connection after what was sent. */
  close(): void;
  /** Bytes written and not yet taken by the network. */
  readonly buffered: number;
  /** Stops reading the socket (a held publisher sent too much). */
  pauseReading(): void;
  /** Reads the socket again. */
  resumeReading(): void;
  /** Calls {@link ClientSession.resumeInput} on a later turn of the event loop. */
  resumeInputLater(): void;
  /**
   * Decides a CONNECT: authenticates, then calls {@link ClientSession.admit} or
   * {@link ClientSession.reject}. Everything the client sent after it waits until this settles.
   */
  connectRequested(request: ConnectRequestEffect): Promise<void>;
  /**
   * An AUTH packet of an enhanced authentication during CONNECT; undefined when none is under way
   * (the session then ends the connection, 0x8C).
   */
  authenticate(data: Uint8Array | undefined): Promise<void> | undefined;
  /**
   * Whether this client may publish to `topic` (the app counts and logs a refusal): at once, or a
   * promise (an async authorization hook). While it is pending, what the client sent after the
   * PUBLISH waits, except that the later PUBLISHes are asked about at once; they are still routed
   * in arrival order. A refusal is answered 0x87 (QoS 0: dropped); a rejection counts as a
   * refusal (the app logs it). A decision that settles after the connection was told to leave
   * plans nothing. A plain boolean costs no microtask.
   */
  mayPublish(topic: string): boolean | Promise<boolean>;
  /**
   * Whether this client may subscribe to `filter` (the app counts and logs a refusal): at once, or
   * a promise, as for {@link ClientSessionHost.mayPublish}; a refused filter's SUBACK code is 0x87.
   */
  maySubscribe(filter: string): boolean | Promise<boolean>;
  /**
   * Waits for the congested subscribers a publish left behind; undefined when there is nothing to
   * wait for.
   */
  hold(congested: readonly string[]): Hold | undefined;
  /** The client acknowledged a delivery: a subscriber that drains may release its publishers. */
  deliveryProgressed(clientId: string): void;
  /** The session was released by its owner: it holds no publisher back any more. */
  released(clientId: string): void;
  /** The encoding shared by the copies of `publish` in `version` (fan-out), or undefined. */
  encoded(publish: OutboundPublish, version: ProtocolVersion): PublishTemplate | undefined;
  /** A PUBLISH from the client of this QoS arrived. */
  received(qos: QoS): void;
  /** A PUBLISH of this QoS went to the client. */
  sent(qos: QoS): void;
  /** The connection refused a delivery the router planned. */
  deliveryRefused(status: Exclude<DeliverResult["status"], "sent" | "too-large" | "not-connected">): void;
  /** A retained message was delivered but not stored (the router's retained limits). */
  retainNotStored(topic: string): void;
  /** A QoS 1/2 publish was refused with 0x97: the store admits no more. */
  refusedForStorage(packetId: number): void;
  /** A subscription was refused with 0x97: the session's subscription limit. */
  subscriptionRefused(filter: string | undefined): void;
  /** A CONNECT was refused with 0x97: the router's session limit. */
  sessionLimitReached(clientId: string): void;
  /** The session of `clientId` was taken over by this connection. */
  takenOver(clientId: string, cleanStart: boolean): void;
  /** CONNACK went out; the keep alive in force and Session Present. */
  connected(request: ConnectRequestEffect, keepAlive: number, sessionPresent: boolean): void;
  /** A store commit failed; the session disconnected or refused the client. */
  commitFailed(err: unknown, what: CommitFailure): void;
  /** The app's work on an effect failed; the session disconnects the client (0x80). */
  failed(err: unknown): void;
  /** The connection ended; `accepted` when it had got its CONNACK. */
  closed(effect: ClosedEffect, accepted: boolean): void;
}

/** Subscribes filters for a SUBSCRIBE; may spread them over several turns (a large retained store). */
export type SubscribeFilters = (
  router: Router,
  clientId: string,
  generation: number,
  requests: readonly SubscribeRequest[],
  subscriptionId: number | undefined,
) => readonly SubscribeGrant[] | undefined | Promise<readonly SubscribeGrant[] | undefined>;

/** How a {@link ClientSession} is configured; shared by every session of an app. */
export interface ClientSessionOptions {
  /** The app's clock (tests drive their own): a publish's Message Expiry Interval becomes an expiry time on it. */
  readonly clock: Clock;
  /** The protocol limits every connection enforces. */
  readonly protocol: ProtocolOptions;
  /** The store's commit; undefined without a durable store (nothing waits then). */
  readonly commits: Commits | undefined;
  /** Above this many buffered bytes, QoS 0 deliveries to the client are dropped. */
  readonly qos0HighWaterBytes: number;
  /** Keep alive bounds in seconds; a client outside them gets the bound as Server Keep Alive. */
  readonly keepAlive: { readonly min: number; readonly max: number };
  /**
   * Cap on a client's unacknowledged QoS 1/2 deliveries, below its Receive Maximum: the rest waits
   * on the session queue, where the overflow policy can still act on it.
   */
  readonly outboundInflight: number;
  /** How a SUBSCRIBE's filters are taken (default: all at once). */
  readonly subscribe?: SubscribeFilters;
  /**
   * A cluster's session handoff: after authentication and before the CONNECT claims its session,
   * the app brings this router's copy of `clientId`'s session up to date from the shared store
   * (claiming the client id there, then `Router.adopt`). A rejection refuses the client with 0x88
   * Server unavailable (the host hears `commitFailed(err, "connect")`). Absent: the router's own
   * copy is the session (one node).
   */
  readonly loadSession?: (clientId: string) => Promise<void>;
}
