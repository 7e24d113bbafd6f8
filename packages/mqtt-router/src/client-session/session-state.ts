/**
 * The parts of one client session that its behaviours (admission.ts, inbound.ts) share; held by
 * {@link ClientSession}, not exported from the package.
 * @module
 */
import type { MqttConnection } from "../protocol/connection.js";
import type { Router } from "../router/router.js";
import type { DeliverySink } from "../router/sink.js";
import type { CommitAcks } from "./acknowledgements.js";
import type { EarlyDecisions } from "./decisions.js";
import type { ClientSessionHost, ClientSessionOptions } from "./host.js";
import type { OrderedOutput } from "./ordered-output.js";

/** What the client-session layer's router delivers to, and tells to go when it is taken over. */
export interface SessionSink extends DeliverySink {
  /** Sends DISCONNECT with `reasonCode` and closes (the session was taken over). */
  disconnect(reasonCode: number, reasonString?: string): void;
}

/** One session's connection, router, host and where it is. */
export interface SessionState {
  readonly conn: MqttConnection;
  readonly router: Router<SessionSink>;
  readonly host: ClientSessionHost;
  readonly options: ClientSessionOptions;
  readonly output: OrderedOutput;
  readonly acks: CommitAcks;
  /** What the router delivers to: the session itself. */
  readonly sink: SessionSink;
  /** The client id, once CONNECT was accepted for the session. */
  clientId: string | undefined;
  /** The fence token of the session claim, while this connection holds it. */
  generation: number | undefined;
  /** Decisions on PUBLISHes asked for while one ahead of them is pending (decisions.ts). */
  readonly decisions: EarlyDecisions;
  /**
   * The connection was told to leave (taken over, disconnected by the server, lost) while an
   * authorization was pending: nothing it sent from there on is planned.
   */
  abandoned: boolean;
}
