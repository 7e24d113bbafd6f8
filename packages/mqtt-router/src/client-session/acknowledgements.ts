/**
 * Acknowledgements that wait for the store's commit: a PUBACK, PUBREC, SUBACK or UNSUBACK goes
 * out only once what it promises is committed, in the order of the packets it answers, and a
 * refusal never overtakes an acknowledgement still waiting [MQTT-4.6.0-2].
 * @module
 */
import { ReasonCode } from "../codec/reason-codes.js";
import type { MqttConnection } from "../protocol/connection.js";
import type { ClientSessionHost, Commits } from "./host.js";

/** What the acknowledgements need of their session. */
export interface AckPorts {
  readonly conn: MqttConnection;
  readonly host: ClientSessionHost;
  readonly commits: Commits | undefined;
  /** Takes what the connection produced and runs it. */
  flush(): void;
}

/** Acknowledgements waiting for one commit ticket, in packet order. */
interface AckBatch {
  readonly ticket: Promise<void>;
  readonly thens: (() => void)[];
}

/** The acknowledgements of one session that wait for a commit. */
export class CommitAcks {
  readonly #p: AckPorts;
  /** Acknowledgements waiting for a commit: a refusal must not overtake them. */
  #waiting = 0;
  /** The acknowledgements waiting for the latest commit ticket seen. */
  #batch: AckBatch | undefined;
  /** Inbound QoS 2 ids refused for storage: their release needs no commit before the PUBCOMP. */
  // Made on first use: an idle client never needs it.
  #refusedQos2: Set<number> | undefined;

  constructor(ports: AckPorts) {
    this.#p = ports;
  }

  /**
   * Runs `then` once everything recorded so far is committed (at once without a durable store).
   * Commits resolve in order, so acknowledgements keep the order of the packets they answer. A
   * failed commit sends no acknowledgement: the client gets DISCONNECT 0x80 and may retry.
   */
  afterCommit(then: () => void): void {
    const commits = this.#p.commits;
    if (commits === undefined) {
      then();
      return;
    }
    this.#waiting += 1;
    const ticket = commits.flush();
    // Every acknowledgement waiting for the same commit shares one continuation: per packet, a
    // push, not a promise and two closures.
    const batch = this.#batch;
    if (batch?.ticket === ticket) {
      batch.thens.push(then);
      return;
    }
    const next: AckBatch = { ticket, thens: [then] };
    this.#batch = next;
    ticket.then(
      () => {
        this.#settled(next);
        for (const run of next.thens) {
          this.#waiting -= 1;
          run();
        }
        this.#p.flush();
      },
      (err: unknown) => {
        this.#settled(next);
        for (const _ of next.thens) {
          this.#waiting -= 1;
          this.#p.host.commitFailed(err, "acknowledgement");
          this.#p.conn.disconnect(ReasonCode.UnspecifiedError, "storage unavailable");
        }
        this.#p.flush();
      },
    );
  }

  // A settled batch takes no more acknowledgements (a later flush() is a new commit).
  #settled(batch: AckBatch): void {
    if (this.#batch === batch) this.#batch = undefined;
  }

  /** The store cannot take more: PUBACK/PUBREC 0x97, at once unless earlier acknowledgements wait. */
  refuseForStorage(packetId: number, qos2: boolean): void {
    this.#p.host.refusedForStorage(packetId);
    if (qos2) (this.#refusedQos2 ??= new Set()).add(packetId);
    const refuse = (): void => {
      this.#p.conn.acknowledgePublish(packetId, ReasonCode.QuotaExceeded, "storage unavailable");
    };
    const commits = this.#p.commits;
    if (this.#waiting === 0 || commits === undefined) {
      refuse();
      return;
    }
    this.#waiting += 1;
    this.#batch = undefined; // acknowledgements after this refusal go out after it
    const settled = (): void => {
      this.#waiting -= 1;
      refuse();
      this.#p.flush();
    };
    commits.flush().then(settled, settled);
  }

  /**
   * The wait of the PUBCOMP that follows the release of an inbound QoS 2 message: the commit of
   * the release, except for a publish refused for storage (its PUBREC promised nothing).
   */
  released(packetId: number): Promise<void> | undefined {
    if (this.#refusedQos2?.delete(packetId)) return undefined;
    this.#batch = undefined; // acknowledgements after this release go out after its PUBCOMP
    return this.#p.commits?.flush();
  }
}
