/**
 * One client connection's session, sans I/O: bytes from the client go into the protocol state
 * machine; its actions go out through the host as bytes or become router calls; the router's
 * deliveries come back in through the {@link DeliverySink} this class implements. The store's
 * commit is an effect the host performs and reports back (a promise it settles), so a test
 * decides when each commit completes.
 * @module
 */
import { ReasonCode } from "../codec/reason-codes.js";
import { MqttConnection, type ConnectionPhase } from "../protocol/connection.js";
import type { ConnectRequestEffect, Effect } from "../protocol/effects.js";
import type { Router } from "../router/router.js";
import type { DeliverySink, OutboundPublish } from "../router/sink.js";
import { CommitAcks } from "./acknowledgements.js";
import { admit, type Admission } from "./admission.js";
import { EarlyDecisions, settled } from "./decisions.js";
import type { ClientSessionHost, ClientSessionOptions, Hold } from "./host.js";
import {
  deliveryAnswered,
  fenced,
  inboundQos2,
  publishDecision,
  publishFromClient,
  subscribeDecisions,
  subscribeFromClient,
  unsubscribeFromClient,
} from "./inbound.js";
import { OrderedOutput } from "./ordered-output.js";
import type { SessionState } from "./session-state.js";

/**
 * The session of one client connection. The router's owner of a client id is the one registry of
 * who holds it: {@link Router.owner} reads it.
 */
export class ClientSession<H extends ClientSessionHost = ClientSessionHost> implements DeliverySink {
  readonly #host: H;
  readonly #s: SessionState;
  /** The CONNECT's verdict (authentication, session claim) is being awaited. */
  #awaitingVerdict = false;
  #resumeInputScheduled = false;
  #readingPaused = false;
  /** The flow control wait this session is in, if any (see held-lane.ts). */
  #hold: Hold | undefined;
  /** Waits holding the connection's later input back (flow control, pending decisions). */
  #holds = 0;
  /** Authorization decisions are pending or asked early (decisions.ts): the lane is held. */
  #deciding = false;
  /** Stops waiting for the pending decision (the connection was told to leave). */
  #abandonDecision: (() => void) | undefined;

  constructor(router: Router<ClientSession<H>>, host: H, options: ClientSessionOptions) {
    this.#host = host;
    const conn = new MqttConnection(options.protocol);
    const flush = (): void => {
      this.#flush();
    };
    const commits = options.commits;
    this.#s = {
      conn,
      router,
      host,
      options,
      sink: this,
      clientId: undefined,
      generation: undefined,
      decisions: new EarlyDecisions(),
      abandoned: false,
      acks: new CommitAcks({ conn, host, commits, flush }),
      output: new OrderedOutput({
        conn,
        host,
        commits,
        flush,
        perform: (effect) => this.#effect(effect),
        // While a decision is pending, the PUBLISHes queued behind it are asked for at once; a
        // connection that ends other than by the client's DISCONNECT stops waiting for them.
        queued: (effect) => {
          if (!this.#deciding) return;
          if (effect.kind === "closed" && effect.cause !== "client-disconnect") this.#abandon();
          else this.#s.decisions.ask(effect, this.#host);
        },
        beforeRun: () => {
          this.#resumeInputLater();
        },
      }),
    };
  }

  /** The app's side of this session. */
  get host(): H {
    return this.#host;
  }

  /** The client id, once CONNECT was accepted. */
  get clientId(): string | undefined {
    return this.#s.clientId;
  }

  /** Whether the connection got its CONNACK (its session claim stands or stood). */
  get accepted(): boolean {
    return this.#s.generation !== undefined;
  }

  /** Where the connection is in its life. */
  get phase(): ConnectionPhase {
    return this.#s.conn.phase;
  }

  /** Whether this session is the router's owner of its client id now. */
  get owning(): boolean {
    const id = this.#s.clientId;
    return id !== undefined && this.#s.router.owner(id) === this;
  }

  /** Bytes from the client. */
  receive(chunk: Uint8Array): void {
    if (this.#s.output.lane.noteInput(chunk.byteLength) && !this.#readingPaused) {
      this.#readingPaused = true;
      this.#host.pauseReading();
    }
    this.#s.conn.receiveBytes(chunk);
    this.#flush();
  }

  /** The network connection is gone (the client closed it, or it failed). */
  connectionLost(): void {
    this.#hold?.cancel();
    this.#s.conn.connectionLost();
    this.#flush();
  }

  /** Drives keep alive and connect timeouts. */
  tick(now: number): void {
    this.#s.conn.tick(now);
    this.#flush();
  }

  /** Ends the connection from the server side with a DISCONNECT reason code (v5) or a close. */
  disconnect(reasonCode: number, reasonString?: string): void {
    this.#hold?.cancel();
    this.#s.conn.disconnect(reasonCode, reasonString);
    this.#flush();
  }

  /**
   * Another node of a cluster claimed this session: the store refuses this node's writes for it
   * from the claim on, so nothing still waiting here to be sent may reach the client — a delivery
   * whose packet id was not stored would come again from the new owner as a new message (DUP=0),
   * an acknowledgement may promise what was not stored. Those packets are dropped, then the
   * connection ends with DISCONNECT 0x8E (Session taken over). The new owner sends the client
   * what the store holds.
   */
  takenOverElsewhere(reasonString?: string): void {
    this.#hold?.cancel();
    this.#s.output.discardUnsent();
    this.#s.conn.disconnect(ReasonCode.SessionTakenOver, reasonString);
    this.#flush();
  }

  /** Takes the next budget of input held back (see {@link ClientSessionHost.resumeInputLater}). */
  resumeInput(): void {
    this.#resumeInputScheduled = false;
    this.#s.conn.resume();
    this.#flush();
  }

  /** While a CONNECT is decided: whether it still waits (the client may have gone meanwhile). */
  get connecting(): boolean {
    return this.#s.conn.phase === "connecting";
  }

  /** Refuses the CONNECT being decided; performed once the verdict's promise settles. */
  reject(reasonCode: number, reasonString?: string): void {
    this.#s.conn.reject(reasonCode, reasonString);
  }

  /** Continues an enhanced authentication with AUTH 0x18. */
  authContinue(data: Uint8Array | undefined): void {
    this.#s.conn.authContinue(data);
  }

  /**
   * Admits the authenticated CONNECT being decided: claims the session (the connection that held
   * it gets DISCONNECT 0x8E), waits for the claim's commit, sends CONNACK, then binds.
   */
  admit(request: ConnectRequestEffect, admission: Admission): Promise<void> {
    return admit(this.#s, request, admission, () => this.#s.router.owner(request.clientId));
  }

  #flush(): void {
    const s = this.#s;
    s.output.take(s.conn.drain());
    // The connection ended while its verdict is awaited, before any session was claimed: its
    // answer and close go out now (see OrderedOutput.endBeforeVerdict).
    if (this.#awaitingVerdict && s.generation === undefined && s.conn.phase === "closed") s.output.endBeforeVerdict();
    s.output.run();
  }

  // Input the connection holds back for its budget (a burst sent before CONNACK) is taken one
  // budget per event-loop turn, so every other connection is served in between.
  #resumeInputLater(): void {
    if (this.#resumeInputScheduled || !this.#s.conn.backlogged) return;
    this.#resumeInputScheduled = true;
    this.#host.resumeInputLater();
  }

  #effect(effect: Effect): Promise<void> | undefined {
    const s = this.#s;
    switch (effect.kind) {
      case "connect-request":
        this.#awaitingVerdict = true;
        return this.#host.connectRequested(effect).finally(() => {
          this.#awaitingVerdict = false;
        });
      case "auth": {
        const waiting = effect.phase === "connect" ? this.#host.authenticate(effect.data) : undefined;
        // Re-authentication is not offered: end the connection [MQTT-4.12.1-2].
        if (waiting === undefined) s.conn.disconnect(ReasonCode.BadAuthenticationMethod, "re-authentication is not supported");
        return waiting;
      }
      case "publish": {
        const allowed = publishDecision(s, effect);
        if (allowed === undefined) return undefined;
        if (typeof allowed === "boolean") {
          // The last decision asked early was given at once: nothing is pending any more.
          if (this.#deciding && this.#abandonDecision === undefined && s.decisions.size === 0) this.#endDeciding();
          return this.#holdFor(publishFromClient(s, effect, allowed));
        }
        return this.#decide(settled(allowed).then((ok) => (fenced(s) ? undefined : this.#holdFor(publishFromClient(s, effect, ok)))));
      }
      case "subscribe": {
        const allowed = subscribeDecisions(s, effect);
        if (allowed === undefined) return undefined;
        if (!("then" in allowed)) return subscribeFromClient(s, effect, allowed);
        return this.#decide(allowed.then((decided) => (fenced(s) || s.generation === undefined ? undefined : subscribeFromClient(s, effect, decided))));
      }
      case "unsubscribe":
        unsubscribeFromClient(s, effect);
        return undefined;
      case "inbound-qos2-received":
      case "inbound-qos2-released":
        return inboundQos2(s, effect);
      case "delivery-acked":
      case "delivery-rejected":
      case "delivery-completed":
      case "delivery-received":
        return deliveryAnswered(s, effect);
      case "closed":
        this.#host.closed(effect, s.generation !== undefined);
        if (s.clientId === undefined || s.generation === undefined) return undefined;
        // Refused by the router if this connection was displaced: it cannot release the session.
        if (s.router.disconnect(s.clientId, s.generation, { publishWill: effect.publishWill, sessionExpiryInterval: effect.sessionExpiryInterval }).ok) {
          this.#host.released(s.clientId);
        }
        return undefined;
      default: {
        const never: never = effect;
        throw new Error(`unknown effect ${String(never)}`);
      }
    }
  }

  // Flow control: the message left subscribers congested, so this publisher waits (its ack too)
  // until they drain, are cut off as stalled, or this connection ends.
  #holdFor(congested: readonly string[] | undefined): Promise<void> | undefined {
    if (congested === undefined || this.#s.conn.phase !== "connected") return undefined;
    const hold = this.#host.hold(congested);
    if (hold === undefined) return undefined;
    this.#hold = hold;
    this.#holdLane();
    return hold.released.then(() => {
      this.#hold = undefined;
      this.#releaseLane();
    });
  }

  // A decision is pending: what the client sent after it waits (the returned wait), the lane is
  // held (deliveries to this client pass), and the PUBLISHes queued behind are asked for at once.
  // Told to leave meanwhile, the session stops waiting and plans nothing more (#abandon).
  #decide(decided: Promise<unknown>): Promise<void> {
    if (!this.#deciding) {
      this.#deciding = true;
      this.#holdLane();
    }
    const abandoned = new Promise<void>((resolve) => {
      this.#abandonDecision = resolve;
    });
    const done = (): void => {
      this.#abandonDecision = undefined;
      // More decisions asked early: the lane stays held until the last of them is taken.
      if (this.#deciding && this.#s.decisions.size === 0) this.#endDeciding();
    };
    return Promise.race([decided, abandoned]).then(done, (err: unknown) => {
      done();
      throw err;
    });
  }

  #endDeciding(): void {
    this.#deciding = false;
    this.#releaseLane();
  }

  // The connection ends (taken over, disconnected by the server, lost, a protocol error) while a
  // decision is pending or asked early: nothing it sent from there on is planned, and its end
  // (DISCONNECT, close, release of the session, the will) does not wait for the hook.
  #abandon(): void {
    if (!this.#deciding) return;
    this.#s.abandoned = true;
    this.#s.decisions.clear();
    const stop = this.#abandonDecision;
    if (stop === undefined) this.#endDeciding();
    else stop();
  }

  #holdLane(): void {
    this.#holds += 1;
    if (this.#holds > 1) return;
    this.#s.output.lane.start();
    // What already waits behind may include deliveries to this very client.
    this.#s.output.retake();
  }

  #releaseLane(): void {
    this.#holds -= 1;
    if (this.#holds > 0) return;
    this.#s.output.lane.end();
    if (this.#readingPaused) {
      this.#readingPaused = false;
      this.#host.resumeReading();
    }
  }

  /** {@link DeliverySink}: sends a PUBLISH the router planned for this client. */
  publish(publish: OutboundPublish): boolean {
    const s = this.#s;
    // A slow reader: QoS 0 is droppable; QoS 1/2 is bounded by the client's Receive Maximum.
    if (publish.qos === 0 && this.#host.buffered > s.options.qos0HighWaterBytes) return false;
    // A QoS 1/2 copy leaves only once its routing and packet id are stored (a commit barrier).
    if (publish.qos > 0) s.output.barrier();
    // Encoded once per fan-out and shared, unless this client gets outbound Topic Aliases.
    const version = s.conn.sharedPublishVersion;
    const encoded = version === undefined ? undefined : this.#host.encoded(publish, version);
    const result = s.conn.deliver({
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
        this.#host.sent(publish.qos);
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
        this.#host.deliveryRefused(result.status);
        return false;
      default: {
        const never: never = result;
        throw new Error(`unknown delivery result ${String(never)}`);
      }
    }
  }

  /** {@link DeliverySink}: resends a PUBREL after reconnect. */
  pubrel(packetId: number): void {
    this.#s.output.barrier();
    this.#s.conn.resendPubrel(packetId);
    this.#flush();
  }
}
